/**
 * @module The export names a template imports, computed ones too: `!ImportValue !Sub
 * '${NetworkStack}-VpcId'`, the common form, names its export from a parameter. As CloudFormation
 * lets an import's name depend on nothing a resource makes, it is evaluated before the template is
 * analysed, with the stack's parameters, name and pseudo parameters; one that cannot be evaluated is
 * left to the analysis, which reports it where it is written.
 */
import { createScope } from './analyze.js';
import { importedValues, importsIn, type Imported } from './imports.js';
import { evaluate, type ParameterValue, type PseudoParameters } from './intrinsics.js';
import type { StackStore } from './records.js';
import type { Template } from './template.js';

/** What an import's name may be built from. */
export interface ImportNameScope {
  parameters: ReadonlyMap<string, ParameterValue>;
  stackName: string;
  pseudo: PseudoParameters;
}

/** The arguments of the template's `Fn::ImportValue`s that are not a literal name. */
function computedNames(value: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) computedNames(item, out);
  else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === 'Fn::ImportValue' && typeof record['Fn::ImportValue'] !== 'string')
      out.push(record['Fn::ImportValue']);
    else for (const item of Object.values(record)) computedNames(item, out);
  }
  return out;
}

/** Every export name the template imports: literal ones, and computed ones as `scope` makes them. */
export function importNames(template: Template, scope: ImportNameScope): Set<string> {
  const names = new Set<string>();
  const expressions: unknown[] = [];
  for (const r of template.resources.values()) {
    importsIn(r.properties, names);
    computedNames(r.properties, expressions);
  }
  for (const o of template.outputs.values()) {
    importsIn(o.value, names);
    computedNames(o.value, expressions);
  }
  if (expressions.length === 0) return names;
  const evaluation = createScope({
    template,
    parameters: scope.parameters,
    stackName: scope.stackName,
    stackId: 'validate',
    pseudo: scope.pseudo,
    applied: () => undefined,
    importValue: () => undefined,
  });
  for (const expression of expressions) {
    try {
      const name = evaluate(expression, evaluation, '');
      if (typeof name === 'string') names.add(name);
    } catch {
      // Reported by the analysis, located.
    }
  }
  return names;
}

/** The values of every export the template imports (see {@link importNames}). */
export function importValuesOf(
  records: StackStore,
  template: Template,
  scope: ImportNameScope,
): Promise<Map<string, Imported>> {
  return importedValues(records, template, importNames(template, scope));
}
