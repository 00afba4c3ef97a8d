/**
 * @module The values a template imports (`Fn::ImportValue` of a literal export name), read from the
 * exports other stacks published. Read before the template is analysed, so a missing export is a
 * diagnostic, not a failure half-way through a deployment.
 */
import type { StackStore } from './records.js';
import type { Template } from './template.js';

/** The export names a template value imports by a literal name. */
export function importsIn(value: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) importsIn(item, names);
    return names;
  }
  if (typeof value !== 'object' || value === null) return names;
  const record = value as Record<string, unknown>;
  const name = record['Fn::ImportValue'];
  if (typeof name === 'string' && Object.keys(record).length === 1) names.add(name);
  else for (const item of Object.values(record)) importsIn(item, names);
  return names;
}

/** Whether a value imports by a name it computes (`!ImportValue !Sub '${Stack}-VpcId'`). */
export function hasComputedImport(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasComputedImport);
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (Object.keys(record).length === 1 && 'Fn::ImportValue' in record)
    return typeof record['Fn::ImportValue'] !== 'string';
  return Object.values(record).some(hasComputedImport);
}

/** Whether a template imports anything, by a literal name or a computed one (anywhere in its text). */
export function importsAnything(template: Template): boolean {
  return JSON.stringify(template.document.value).includes('"Fn::ImportValue"');
}

export function importedNames(template: Template): Set<string> {
  const names = new Set<string>();
  for (const r of template.resources.values()) importsIn(r.properties, names);
  for (const o of template.outputs.values()) importsIn(o.value, names);
  return names;
}

/** An imported value; `secret` when its export is sealed (built from a secret): it stays one here. */
export interface Imported {
  value: string;
  secret: boolean;
}

/** The values of the exports `names` (by default, those the template imports by a literal name). */
export async function importedValues(
  records: StackStore,
  template: Template,
  names: ReadonlySet<string> = importedNames(template),
): Promise<Map<string, Imported>> {
  const out = new Map<string, Imported>();
  for (const name of names) {
    const held = await records.getExport(name);
    if (held)
      out.set(name, {
        value: String(records.open(held.value, `stack-export:${name}`)),
        secret: 'sealed' in held.value,
      });
  }
  return out;
}

/** The names of the imports whose exports are secret. */
export function secretImports(imports: ReadonlyMap<string, Imported>): Set<string> {
  return new Set([...imports].filter(([, i]) => i.secret).map(([name]) => name));
}
