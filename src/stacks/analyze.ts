/**
 * @module A template checked against the registered types and the parameter values: every problem at
 * once as located diagnostics, and — when there are none — the analysis planning works from: each
 * resource's type, its dependencies, and an order that respects them.
 */
import { withMembers } from '../members.js';
import type { CompiledType } from '../registry/compile.js';
import type { Diagnostic, ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { PointerResolver } from '../schema/resource-schema/index.js';
import { touchesWriteOnly } from '../model/index.js';
import {
  DEFAULT_PSEUDO,
  EvaluationBudgetExceeded,
  EvaluationError,
  NO_VALUE,
  PSEUDO_NAMES,
  Unknown,
  containsUnknown,
  evaluate,
  evaluateCondition,
  evaluateProperties,
  intrinsicOf,
  type AppliedResource,
  type ParameterValue,
  type PseudoParameters,
  type Scope,
} from './intrinsics.js';
import { resolveParameters } from './parameters.js';
import { checkTemplateRules } from './template-rules.js';
import { fromSecret, maskReason, secretTexts, type SecretSources } from './secrets.js';
import { referencesIn, type Reference } from './references.js';
import { DiagnosticList, closest, stackDiagnostic, type StackRuleId } from './rules.js';
import { locate, type ResourceDeclaration, type Template } from './template.js';
import { closestTypeName, parseTypeReference } from './types.js';
import { dependencyOrder } from './graph.js';
import { conformProperties } from './conform.js';
import { refValue } from './ref-value.js';
import {
  MAX_DYNAMIC_REFERENCES,
  checkDynamicReferences,
  type ResolvedParameter,
} from './parameter-store/index.js';

export interface TypeSource {
  /** The compiled default version of a type, or undefined when it is not registered. */
  get(typeName: string): Promise<CompiledType | undefined>;
  /** What `get` answers, when it can answer from memory now; undefined otherwise (then `get` it). */
  now?(typeName: string): CompiledType | undefined;
  /** Every registered type name, for "did you mean". */
  names(): Promise<string[]>;
}

export interface AnalyzedResource {
  declaration: ResourceDeclaration;
  compiled: CompiledType;
  /** Logical ids this resource depends on (references and DependsOn). */
  dependsOn: Set<string>;
}

export interface Analysis {
  template: Template;
  resources: Map<string, AnalyzedResource>;
  /** Logical ids, each after everything it depends on. */
  order: string[];
  parameters: Map<string, ParameterValue>;
  /** Names of NoEcho parameters: their values, and values built from them, are secrets. */
  secretParameters: Set<string>;
  /** Names of the imported exports that are secret: as secret here as a NoEcho parameter. */
  secretImports: Set<string>;
  /** The secret texts (NoEcho values, secret imported values), masked wherever a reason quotes them. */
  secretValues: string[];
  /** The template's warnings (an analysis is made only when it has no errors). */
  warnings: Diagnostic[];
  /** The parameters of SSM parameter types, and what each read (set when a stack is planned or deployed). */
  resolvedParameters?: ResolvedParameter[];
}

export interface AnalyzeOptions {
  types: TypeSource;
  parameters: Record<string, unknown>;
  /**
   * Deploy and plan need a value for every parameter, as does validate given parameters; validate
   * given none goes on without, warning of each (TP4025).
   */
  requireValues: boolean;
  stackName?: string;
  pseudo?: PseudoParameters;
  /** Values other stacks export (Fn::ImportValue). */
  importValue?: (name: string) => string | undefined;
  /** The names among those whose exports are secret (built from a NoEcho value). */
  secretImports?: ReadonlySet<string>;
  /** The read-only properties (pointers) a type's provider never sets, which `Fn::GetAtt` would find empty. */
  readOnlyNeverSet?: (type: ResourceType) => readonly string[];
  file?: string;
}

export async function analyzeTemplate(
  template: Template,
  options: AnalyzeOptions,
): Promise<{ diagnostics: Diagnostic[]; analysis?: Analysis }> {
  // Bounded: past the cap a problem is counted, its message (a "did you mean" search) never built.
  const diagnostics = new DiagnosticList();
  const problem = (rule: StackRuleId, pointer: string, message: string | (() => string)) =>
    diagnostics.problem(rule, pointer, message);
  // The evaluation's budget is reported where it ran out, once: all evaluated after it is refused alike.
  let overBudget = false;
  const evaluationProblem = (e: EvaluationError) => {
    if (e instanceof EvaluationBudgetExceeded) {
      if (overBudget) return;
      overBudget = true;
    }
    problem(e.rule, e.pointer, e.message);
  };
  const resolved = resolveParameters(template, options.parameters);
  for (const d of resolved.diagnostics) diagnostics.add(d);
  const parameterValues = new Map<string, ParameterValue | Unknown>(resolved.values);
  const secret: SecretSources = {
    parameters: new Set([...template.parameters.values()].filter((p) => p.noEcho).map((p) => p.name)),
    imports: new Set(options.secretImports),
  };
  const secretValues = secretTexts(resolved.values, secret.parameters);
  for (const name of secret.imports) {
    const value = options.importValue?.(name);
    if (value !== undefined && value !== '') secretValues.push(value);
  }
  for (const name of resolved.missing)
    problem(
      options.requireValues ? 'TP4012' : 'TP4025',
      `/Parameters/${escapePointerToken(name)}`,
      options.requireValues
        ? `parameter ${name} has no value and no Default; give one (--parameters ${name}=…)`
        : `parameter ${name} has no value and no Default: plan and deploy need one (--parameters ${name}=…); give parameters to validate to have it checked as they will`,
    );
  // A parameter without a value, or whose value was refused (reported above), is declared but
  // unknown to what refers to it: its references are not errors of their own.
  for (const name of template.parameters.keys())
    if (!resolved.values.has(name)) parameterValues.set(name, new Unknown([name]));
  // The Rules section: assertions on the parameters' values, checked before anything else uses them.
  const root = template.document.value as Record<string, unknown>;
  for (const d of checkTemplateRules(root.Rules, template.parameters, parameterValues)) diagnostics.add(d);

  // Types.
  const compiled = new Map<string, CompiledType>();
  let typeNames: string[] | undefined;
  for (const resource of template.resources.values()) {
    const at = `/Resources/${escapePointerToken(resource.logicalId)}/Type`;
    const { typeName, version } = parseTypeReference(resource.type);
    const type = await options.types.get(typeName);
    if (!type) {
      typeNames ??= await options.types.names();
      const names = typeNames;
      problem('TP4004', at, () => {
        const guess = closestTypeName(typeName, names);
        return `type ${typeName} is not registered${guess ? `; did you mean ${guess}?` : '; register it first (typeplane type register)'}`;
      });
      continue;
    }
    if (version !== undefined && version !== type.type.apiVersion) {
      problem(
        'TP4020',
        at,
        `${typeName}@${version}: the server serves ${typeName}@${type.type.apiVersion ?? '(one version)'}; write that version, or none`,
      );
      continue;
    }
    compiled.set(resource.logicalId, type);
  }

  // References: every target must exist, every attribute must be a readable property.
  const usedParameters = new Set<string>();
  const usedConditions = new Set<string>();
  const checkReferences = (refs: Reference[]) => {
    for (const ref of refs) {
      if (ref.kind === 'condition') {
        usedConditions.add(ref.name);
        if (!template.conditions.has(ref.name))
          problem('TP4015', ref.pointer, () =>
            unknownName('condition', ref.name, template.conditions.keys()),
          );
      } else if (ref.kind === 'ref') {
        if (template.parameters.has(ref.name)) usedParameters.add(ref.name);
        else if (!template.resources.has(ref.name) && !(PSEUDO_NAMES as readonly string[]).includes(ref.name))
          problem('TP4007', ref.pointer, () =>
            unknownName('parameter or resource', ref.name, [
              ...template.parameters.keys(),
              ...template.resources.keys(),
            ]),
          );
      } else {
        const target = template.resources.get(ref.logicalId);
        if (!target) {
          problem('TP4008', ref.pointer, () =>
            unknownName('resource', ref.logicalId, template.resources.keys()),
          );
          continue;
        }
        const type = compiled.get(ref.logicalId)?.type;
        // An attribute a Ref names is known when the template is evaluated, and checked then.
        if (!type || ref.path.length === 0) continue;
        const pointer = `/properties/${ref.path.map(escapePointerToken).join('/')}`;
        if (!resolverOf(type.schema).resolves(pointer)) {
          const top = Object.keys((type.schema.properties ?? {}) as object);
          const guess = closest(ref.path.join('.'), top);
          problem(
            'TP4008',
            ref.pointer,
            `${type.typeName} has no attribute '${ref.path.join('.')}'${guess ? `; did you mean '${guess}'?` : ''}`,
          );
        } else if (touchesWriteOnly(type, `/${ref.path.map(escapePointerToken).join('/')}`)) {
          problem(
            'TP4009',
            ref.pointer,
            `${ref.logicalId}.${ref.path.join('.')} is write-only: it is never read back, so nothing can refer to it; pass the value itself (a NoEcho parameter)`,
          );
        } else {
          const neverSet = options.readOnlyNeverSet?.(type) ?? [];
          if (neverSet.some((p) => pointer === p || pointer.startsWith(`${p}/`)))
            problem(
              'TP4026',
              ref.pointer,
              `${ref.logicalId}.${ref.path.join('.')} is read-only, and ${type.typeName} is kept by Typeplane's state provider, which sets no read-only value but the identifiers it generates: it will have no value, and the deployment fails where it is used; refer to a property the template sets, serve ${type.typeName} with a provider of its own that sets it, or have the state provider synthesize its values (stateProvider.synthesize in the server's configuration; a pattern it cannot write a value for stays unset)`,
            );
        }
      }
    }
  };
  /** A resource's or an output's `Condition`: it must name a condition of the template. */
  const useCondition = (condition: string | undefined, pointer: string) => {
    if (condition === undefined) return;
    usedConditions.add(condition);
    if (!template.conditions.has(condition))
      problem('TP4015', pointer, () => unknownName('condition', condition, template.conditions.keys()));
  };
  const resourceRefs = new Map<string, Reference[]>();
  // A condition is decided before any resource exists (and orders no resource): it may name
  // parameters, pseudo parameters, mappings and other conditions, as in CloudFormation.
  const resourceOf = (ref: Reference) =>
    ref.kind === 'getatt'
      ? ref.logicalId
      : ref.kind === 'ref' && !template.parameters.has(ref.name) && template.resources.has(ref.name)
        ? ref.name
        : undefined;
  for (const [name, expression] of template.conditions)
    for (const ref of referencesIn(expression, `/Conditions/${escapePointerToken(name)}`)) {
      const resource = resourceOf(ref);
      if (resource === undefined) checkReferences([ref]);
      else
        problem(
          'TP4022',
          ref.pointer,
          `condition ${name} refers to resource ${resource}: a condition is decided before any resource is created; use a parameter, a mapping or another condition`,
        );
    }
  for (const resource of template.resources.values()) {
    const at = `/Resources/${escapePointerToken(resource.logicalId)}`;
    const refs = referencesIn(resource.properties, `${at}/Properties`);
    resourceRefs.set(resource.logicalId, refs);
    checkReferences(refs);
    useCondition(resource.condition, `${at}/Condition`);
    for (const [i, dependency] of resource.dependsOn.entries())
      if (!template.resources.has(dependency))
        problem(
          'TP4016',
          `${at}/DependsOn${resource.dependsOn.length > 1 || Array.isArray(template.document.value) ? `/${i}` : ''}`,
          () => unknownName('resource', dependency, template.resources.keys()),
        );
  }
  const exportNames = new Map<string, string>();
  for (const output of template.outputs.values()) {
    const at = `/Outputs/${escapePointerToken(output.name)}`;
    checkReferences(referencesIn(output.value, `${at}/Value`));
    checkReferences(referencesIn(output.exportName, `${at}/Export/Name`));
    useCondition(output.condition, `${at}/Condition`);
    if (typeof output.exportName === 'string') {
      const other = exportNames.get(output.exportName);
      if (other)
        problem(
          'TP4017',
          `${at}/Export/Name`,
          `export name '${output.exportName}' is also exported by output ${other}; export names are unique`,
        );
      exportNames.set(output.exportName, output.name);
    }
  }

  // The graph: references and DependsOn; a cycle is named with its path.
  const dependsOn = new Map<string, Set<string>>();
  for (const resource of template.resources.values()) {
    const edges = new Set<string>();
    for (const ref of resourceRefs.get(resource.logicalId) ?? []) {
      const target = ref.kind === 'getatt' ? ref.logicalId : ref.kind === 'ref' ? ref.name : undefined;
      if (target !== undefined && template.resources.has(target)) edges.add(target);
    }
    for (const d of resource.dependsOn) if (template.resources.has(d)) edges.add(d);
    dependsOn.set(resource.logicalId, edges);
  }
  const { order, cycle } = dependencyOrder(dependsOn);
  if (cycle)
    problem(
      'TP4010',
      `/Resources/${escapePointerToken(cycle[0]!)}`,
      `resources depend on each other in a cycle: ${cycle.join(' → ')}; break it (drop a reference or a DependsOn)`,
    );

  // Values: conditions, then each resource's properties with nothing applied yet.
  const scope = createScope({
    template,
    parameters: parameterValues,
    stackName: options.stackName ?? 'validate',
    stackId: 'validate',
    pseudo: options.pseudo ?? DEFAULT_PSEUDO,
    applied: () => undefined,
    // A template validated on its own imports what a stack it is deployed as will find (CloudFormation's
    // ValidateTemplate does not look): known then, and checked then.
    importValue: options.importValue ?? ((name) => new Unknown([`Fn::ImportValue ${name}`])),
    secret,
  });
  // Evaluating is the costly part: it stops once the answer is settled (see DiagnosticList.settled).
  const settled = () => {
    if (diagnostics.settled) diagnostics.stop();
    return diagnostics.settled;
  };
  for (const name of template.conditions.keys()) {
    if (settled()) break;
    const pointer = `/Conditions/${escapePointerToken(name)}`;
    try {
      scope.condition(name, pointer);
    } catch (e) {
      evaluationProblem(asEvaluationError(e, pointer));
    }
  }
  let references = 0;
  for (const resource of template.resources.values()) {
    if (settled()) break;
    const type = compiled.get(resource.logicalId);
    const at = `/Resources/${escapePointerToken(resource.logicalId)}/Properties`;
    try {
      if (scope.included(resource.logicalId) === false) continue;
    } catch {
      continue; // reported with the conditions
    }
    // Property by property: one that cannot be evaluated is reported and left unknown, the rest
    // checked. A block a function gives whole (`Properties: !If […]`) is evaluated whole; while its
    // condition is unknown, it is checked when it is known.
    const properties: Record<string, unknown> = {};
    if (intrinsicOf(resource.properties)) {
      try {
        const whole = evaluateProperties(resource.properties, scope, at);
        if (whole instanceof Unknown) continue;
        Object.assign(properties, whole);
      } catch (e) {
        evaluationProblem(asEvaluationError(e, at));
        continue;
      }
    } else
      for (const [name, value] of Object.entries(resource.properties)) {
        const pointer = `${at}/${escapePointerToken(name)}`;
        try {
          const v = evaluate(value, scope, pointer);
          if (v !== NO_VALUE) properties[name] = v;
        } catch (e) {
          evaluationProblem(asEvaluationError(e, pointer));
          properties[name] = new Unknown([name]);
        }
      }
    // A dynamic reference's value is known (and checked against the schema) when the resource is made.
    const referring = checkDynamicReferences(type?.type, properties, at);
    for (const p of referring.problems) problem('TP4027', p.pointer, p.message);
    references += referring.references.length;
    if (type) for (const d of checkProperties(type, referring.properties, at)) diagnostics.add(d);
  }
  if (references > MAX_DYNAMIC_REFERENCES)
    problem(
      'TP4027',
      '/Resources',
      `the template holds ${references} dynamic references ({{resolve:…}}); at most ${MAX_DYNAMIC_REFERENCES} are allowed, as in CloudFormation`,
    );
  for (const output of template.outputs.values()) {
    if (settled()) break;
    const at = `/Outputs/${escapePointerToken(output.name)}`;
    try {
      if (output.condition !== undefined && scope.condition(output.condition, `${at}/Condition`) === false)
        continue;
      evaluate(output.value, scope, `${at}/Value`);
      if (output.exportName !== undefined) evaluate(output.exportName, scope, `${at}/Export/Name`);
    } catch (e) {
      // An import or attribute that only exists once the stack runs is checked then.
      const error = asEvaluationError(e, at);
      if (error.rule !== 'TP4021') evaluationProblem(error);
    }
  }

  for (const name of template.usedByTransform ?? []) {
    usedParameters.add(name);
    usedConditions.add(name);
  }
  for (const name of template.parameters.keys())
    if (!usedParameters.has(name))
      problem(
        'TP4013',
        `/Parameters/${escapePointerToken(name)}`,
        `parameter ${name} is never used; remove it, or refer to it with Ref`,
      );
  for (const name of template.conditions.keys())
    if (!usedConditions.has(name))
      problem(
        'TP4019',
        `/Conditions/${escapePointerToken(name)}`,
        `condition ${name} is never used; remove it, or use it in a Condition or Fn::If`,
      );

  // A message may quote a value (an evaluation error's operand, a property failing its schema).
  const located = diagnostics.list((d) =>
    locate({ ...d, message: maskReason(d.message, secretValues) }, template.document, options.file),
  );
  if (diagnostics.hasErrors) return { diagnostics: located };
  const resources = new Map<string, AnalyzedResource>();
  for (const [logicalId, declaration] of template.resources)
    resources.set(logicalId, {
      declaration,
      compiled: compiled.get(logicalId)!,
      dependsOn: dependsOn.get(logicalId)!,
    });
  return {
    diagnostics: located,
    analysis: {
      template,
      resources,
      order,
      parameters: resolved.values,
      secretParameters: new Set(secret.parameters),
      secretImports: new Set(secret.imports),
      secretValues,
      warnings: located,
    },
  };
}

function unknownName(what: string, name: string, candidates: Iterable<string>): string {
  const guess = closest(name, candidates);
  return `no ${what} named '${name}' in the template${guess ? `; did you mean '${guess}'?` : ''}`;
}

const resolvers = new WeakMap<object, PointerResolver>();
function resolverOf(schema: Record<string, unknown>): PointerResolver {
  let resolver = resolvers.get(schema);
  if (!resolver) {
    resolver = new PointerResolver(schema);
    resolvers.set(schema, resolver);
  }
  return resolver;
}

/**
 * Properties against the type's schema, with values still unknown left out (they are checked when
 * they are known, at apply); read-only properties may not be set.
 */
export function checkProperties(
  compiled: CompiledType,
  properties: Record<string, unknown>,
  at: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const type = compiled.type;
  const unknownPaths: string[] = [];
  const known = withoutUnknown(properties, '', unknownPaths) as Record<string, unknown>;
  const model = conformProperties(type, known);
  for (const pointer of type.readOnlyProperties) {
    const name = /^\/properties\/([^/]+)$/.exec(pointer)?.[1];
    if (name !== undefined && Object.hasOwn(properties, name))
      out.push(
        stackDiagnostic(
          'TP4006',
          `${at}/${name}`,
          `${name} is read-only for ${type.typeName}: its provider sets it; remove it (read it with Fn::GetAtt)`,
        ),
      );
  }
  const readOnlyNames = new Set(type.readOnlyProperties.map((p) => /^\/properties\/([^/]+)$/.exec(p)?.[1]));
  for (const name of readOnlyNames) if (name !== undefined) delete model[name];
  for (const detail of compiled.validateInput(model)) {
    const pointer = detail.pointer ?? '';
    // Nor is what holds an unknown value judged as a whole: a list of two values unknown yet is not
    // two equal items, nor is a member of oneOf's branches refused for what it will hold.
    if (unknownPaths.some((u) => pointer === u || pointer.startsWith(`${u}/`) || u.startsWith(`${pointer}/`)))
      continue;
    // The type's own detail already says "did you mean" for an undeclared property.
    out.push(
      stackDiagnostic(
        'TP4005',
        `${at}${pointer}`,
        `${type.typeName}${pointer.replace(/\//g, '.') || ' properties'}: ${detail.message}`,
      ),
    );
  }
  return out;
}

function withoutUnknown(value: unknown, pointer: string, unknownPaths: string[]): unknown {
  if (value instanceof Unknown) {
    unknownPaths.push(pointer);
    return undefined;
  }
  if (!containsUnknown(value)) return value;
  if (Array.isArray(value))
    return value.map((v, i) => withoutUnknown(v, `${pointer}/${i}`, unknownPaths) ?? null);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const kept = withoutUnknown(v, `${pointer}/${escapePointerToken(k)}`, unknownPaths);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

export interface ScopeOptions {
  template: Template;
  parameters: ReadonlyMap<string, ParameterValue | Unknown>;
  stackName: string;
  stackId: string;
  pseudo: PseudoParameters;
  applied: (logicalId: string) => AppliedResource | undefined;
  importValue: (name: string) => string | Unknown | undefined;
  /** Where secrets come from: an error never quotes an operand built from one. */
  secret?: SecretSources;
}

/**
 * Decide `name` and, first, every condition it names, each once (the value or the error kept): a walk
 * with a stack of its own, so a chain of any length is decided without recursion, and a condition
 * naming a failed one fails at once with its error. A cycle fails its conditions with its path.
 */
function decideCondition(
  name: string,
  template: Template,
  scope: Scope,
  decided: Map<string, boolean | Unknown | EvaluationError>,
): void {
  const named = (n: string) =>
    referencesIn(template.conditions.get(n), '').flatMap((r) =>
      r.kind === 'condition' && template.conditions.has(r.name) ? [r.name] : [],
    );
  const path: { name: string; next: string[] }[] = [];
  const onPath = new Set<string>();
  const enter = (n: string) => {
    path.push({ name: n, next: named(n) });
    onPath.add(n);
  };
  if (!decided.has(name)) enter(name);
  while (path.length > 0) {
    const top = path.at(-1)!;
    const next = top.next.pop();
    if (next !== undefined) {
      if (decided.has(next)) continue;
      if (!onPath.has(next)) {
        enter(next);
        continue;
      }
      const from = path.findIndex((f) => f.name === next);
      const cycle = [...path.slice(from).map((f) => f.name), next];
      const error = new EvaluationError(
        'TP4015',
        `/Conditions/${escapePointerToken(next)}`,
        `conditions depend on each other in a cycle: ${cycle.join(' → ')}; break it`,
      );
      for (const f of path.slice(from)) decided.set(f.name, error);
      continue;
    }
    path.pop();
    onPath.delete(top.name);
    if (decided.has(top.name)) continue;
    const pointer = `/Conditions/${escapePointerToken(top.name)}`;
    try {
      decided.set(top.name, evaluateCondition(template.conditions.get(top.name), scope, pointer));
    } catch (e) {
      decided.set(top.name, asEvaluationError(e, pointer));
    }
  }
}

/**
 * What went wrong evaluating the value at `pointer`, as a located error: an EvaluationError as it is,
 * anything else thrown while evaluating (a defect, an exhausted stack) said as such, never a 500 or
 * a deployment resumed to fail again.
 */
export function asEvaluationError(e: unknown, pointer: string): EvaluationError {
  if (e instanceof EvaluationError) return e;
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new EvaluationError('TP4014', pointer, `this value cannot be evaluated (${what})`);
}

/** A scope for {@link evaluate}: conditions decided once each (see {@link decideCondition}). */
export function createScope(options: ScopeOptions): Scope {
  const { template } = options;
  const conditions = new Map<string, boolean | Unknown | EvaluationError>();
  const scope: Scope = {
    stackName: options.stackName,
    stackId: options.stackId,
    pseudo: options.pseudo,
    parameters: options.parameters,
    mappings: template.mappings,
    condition(name, pointer) {
      // The references check names the closest condition; this message stays cheap (one per lookup).
      if (!template.conditions.has(name))
        throw new EvaluationError('TP4015', pointer, `no condition named '${name}' in the template`);
      let value = conditions.get(name);
      if (value === undefined) {
        decideCondition(name, template, scope, conditions);
        value = conditions.get(name)!;
      }
      if (value instanceof EvaluationError) throw value;
      return value;
    },
    declared: (logicalId) => template.resources.has(logicalId),
    applied: options.applied,
    included(logicalId) {
      const condition = template.resources.get(logicalId)?.condition;
      if (condition === undefined) return true;
      return scope.condition(condition, `/Resources/${escapePointerToken(logicalId)}/Condition`);
    },
    importValue: options.importValue,
    hides: (expression) => options.secret !== undefined && fromSecret(expression, options.secret),
  };
  return scope;
}

/**
 * The scope a deployment evaluates `analysis` in, with the resources made so far as `made` gives them
 * (`Ref` reads each as refValue says): a deployment's step (stages/state.ts) and a template evaluated
 * without its stack (direct.ts) alike.
 */
export function deploymentScope(
  analysis: Analysis,
  options: Omit<ScopeOptions, 'template' | 'parameters' | 'applied'> & {
    made: (logicalId: string) => { identifier?: string; model: Record<string, unknown> } | undefined;
  },
): Scope {
  const { made } = options;
  // Copied with withMembers, not spread and added to: once per instance of a recipe (src/members.ts).
  return createScope(
    withMembers(options, {
      template: analysis.template,
      // Read only: every binding of a template is a map of its own (reused-analysis.ts makes one each).
      parameters: analysis.parameters,
      applied: (logicalId: string) => {
        const r = made(logicalId);
        if (r?.identifier === undefined) return undefined;
        const type = analysis.resources.get(logicalId)?.compiled.type;
        const ref = type ? refValue(type, r.identifier, r.model) : r.identifier;
        const applied: AppliedResource = {
          identifier: r.identifier,
          model: r.model,
        };
        if (ref !== r.identifier) applied.ref = ref;
        return applied;
      },
    }),
  );
}

/**
 * A resource's properties as its step hands them to the engine: evaluated in `scope`, every value
 * known (else TP4014), conformed to its type. Throws the evaluation's error.
 */
export function desiredProperties(
  analyzed: AnalyzedResource,
  scope: Scope,
  logicalId: string,
): Record<string, unknown> {
  const pointer = `/Resources/${logicalId}/Properties`;
  const value = evaluateProperties(analyzed.declaration.properties, scope, pointer);
  if (containsUnknown(value))
    throw new EvaluationError(
      'TP4014',
      pointer,
      'a value is still unknown after the resources it depends on ran',
    );
  return conformProperties(analyzed.compiled.type, value as Record<string, unknown>);
}
