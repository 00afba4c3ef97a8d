/**
 * @module CloudFormation's `AWS::LanguageExtensions` transform, run on a template before its sections
 * are read: `Fn::ForEach` loops expanded (see for-each.ts), intrinsic functions in `DeletionPolicy` and
 * `UpdateReplacePolicy` resolved, with the stack's parameter values and pseudo parameters. (`Fn::Length`,
 * `Fn::ToJsonString` and `Fn::FindInMap`'s `DefaultValue` are evaluated with the other functions.)
 * What the rest of Typeplane sees is the expanded template, whose diagnostics are located where the
 * template was written. Other transforms are refused by name (transforms.ts, which template.ts and
 * intrinsics.ts import themselves: this index imports the analysis, which imports them).
 *
 * @example
 * const loaded = await loadTemplateYielding(text, undefined, languageExtensions({ parameters, pseudo }));
 */
import { asEvaluationError, createScope } from '../analyze.js';
import {
  DEFAULT_PSEUDO,
  PSEUDO_NAMES,
  Unknown,
  containsUnknown,
  evaluate,
  type ParameterValue,
  type PseudoParameters,
} from '../intrinsics.js';
import { resolveParameters } from '../parameters.js';
import { referencesIn } from '../references.js';
import type { SecretSources } from '../secrets.js';
import type { SourceDocument } from '../../schema/index.js';
import type { Expand, ParameterDeclaration, Template } from '../template.js';
import { ForEachExpansion, type Resolver } from './for-each.js';
import { Origins } from './origins.js';

export interface TemplateValues {
  /** The values given for the parameters; without them, their defaults (validating a template alone). */
  parameters?: Record<string, unknown>;
  pseudo?: PseudoParameters;
  stackName?: string;
}

/** The transform, for {@link loadTemplate}: it expands a template that names it, with these values. */
export function languageExtensions(values: TemplateValues = {}): Expand {
  return (document, declarations) => {
    const origins = new Origins();
    const used = new Set<string>();
    const known = knownValues(document, declarations, values);
    const expansion = new ForEachExpansion(origins, (conditions) => resolver(known, conditions, used));
    const value = expansion.expand(document.value as Record<string, unknown>);
    return { document: origins.document(document, value), diagnostics: expansion.diagnostics, used };
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the expansion knows before any resource exists: the template as written, the parameters' values. */
interface Known {
  template: Template;
  parameters: Map<string, ParameterValue | Unknown>;
  /** SSM parameter types' parameters: their values are read from the parameter store after the expansion. */
  fromStore: Set<string>;
  secret: SecretSources;
  values: TemplateValues;
}

function knownValues(
  document: SourceDocument,
  declarations: ReadonlyMap<string, ParameterDeclaration>,
  values: TemplateValues,
): Known {
  const root = document.value as Record<string, unknown>;
  const template: Template = {
    document,
    parameters: new Map(declarations),
    mappings: isObject(root.Mappings) ? root.Mappings : {},
    conditions: new Map(),
    resources: new Map(),
    outputs: new Map(),
  };
  // Refused values are reported when the template is analysed; here they are unknown.
  const resolved = resolveParameters(template, values.parameters ?? {});
  const parameters = new Map<string, ParameterValue | Unknown>(resolved.values);
  for (const name of declarations.keys())
    if (!resolved.values.has(name)) parameters.set(name, new Unknown([name]));
  const fromStore = new Set(
    [...declarations.values()].filter((p) => p.parameterStore === 'value').map((p) => p.name),
  );
  const secret = {
    parameters: new Set([...declarations.values()].filter((p) => p.noEcho).map((p) => p.name)),
    imports: new Set<string>(),
  };
  return { template, parameters, fromStore, secret, values };
}

/** Values decided as the template is expanded: from parameters, mappings, pseudo parameters and conditions. */
function resolver(
  { template, parameters, fromStore, secret, values }: Known,
  conditions: Record<string, unknown>,
  /** The parameters and conditions the values resolved name. */
  used: Set<string>,
): Resolver {
  const scope = createScope({
    template: { ...template, conditions: new Map(Object.entries(conditions)) },
    parameters,
    stackName: values.stackName ?? 'validate',
    stackId: 'validate',
    pseudo: values.pseudo ?? DEFAULT_PSEUDO,
    applied: () => undefined,
    importValue: () => undefined,
    secret,
  });
  return {
    secret: (expression) => scope.hides(expression),
    resolve(expression, pointer) {
      for (const ref of referencesIn(expression, pointer)) {
        if (ref.kind !== 'getatt') used.add(ref.name);
        if (ref.kind === 'ref' && fromStore.has(ref.name))
          return {
            problem: {
              rule: 'TP4014',
              pointer: ref.pointer,
              message: `this value is decided as the template is expanded (AWS::LanguageExtensions), before ${ref.name}'s SSM parameter is read: declare ${ref.name} as CommaDelimitedList (or String) and pass the value itself`,
            },
          };
        if (
          ref.kind === 'getatt' ||
          (ref.kind === 'ref' &&
            !parameters.has(ref.name) &&
            !(PSEUDO_NAMES as readonly string[]).includes(ref.name))
        )
          return {
            problem: {
              rule: ref.kind === 'getatt' ? 'TP4008' : 'TP4007',
              pointer: ref.pointer,
              message: `this value is decided as the template is expanded (AWS::LanguageExtensions), before any resource exists: it may use parameters, mappings, pseudo parameters and conditions, not ${ref.kind === 'getatt' ? `${ref.logicalId}.${ref.path.join('.')}` : `'${ref.name}'`}`,
            },
          };
      }
      try {
        const value = evaluate(expression, scope, pointer);
        return containsUnknown(value) ? { unknown: unknownSources(value) } : { value };
      } catch (e) {
        const error = asEvaluationError(e, pointer);
        return { problem: { rule: error.rule, pointer: error.pointer, message: error.message } };
      }
    },
  };
}

/** The parameters an unknown value waits for. */
function unknownSources(value: unknown): string[] {
  if (value instanceof Unknown) return [...value.sources];
  const children = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
  return [...new Set(children.flatMap(unknownSources))];
}
