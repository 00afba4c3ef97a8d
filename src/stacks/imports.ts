/**
 * @module The values a template imports (`Fn::ImportValue` of a literal export name), read from the
 * exports other stacks published. Read before the template is analysed, so a missing export is a
 * diagnostic, not a failure half-way through a deployment.
 */
import type { StackStore } from './records.js';
import type { Template } from './template.js';

export function importedNames(template: Template): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    const name = record['Fn::ImportValue'];
    if (typeof name === 'string' && Object.keys(record).length === 1) names.add(name);
    else Object.values(record).forEach(visit);
  };
  for (const r of template.resources.values()) visit(r.properties);
  for (const o of template.outputs.values()) visit(o.value);
  return names;
}

export async function importedValues(records: StackStore, template: Template): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of importedNames(template)) {
    const held = await records.getExport(name);
    if (held) out.set(name, String(records.open(held.value, `stack-export:${name}`)));
  }
  return out;
}
