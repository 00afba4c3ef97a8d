/**
 * @module A new stack's template evaluated without the stack's records: for a caller (a recipe's
 * instance, src/recipes) that makes the resources itself, one by one in the order given here, and has
 * the stack written only when it is first needed — then by an adoption (start.ts: a deployment of the
 * same template that records what was made, with no engine call). Every value is worked out by the
 * deployment's own code (scope, conditions, conform, physical names, outputs and their secrecy) with
 * the same seed, so what the caller makes is what the stack's deployment would have made.
 *
 * Only a template that needs nothing of a stack's records is taken: no custom resource or nested
 * stack (they read their step), no SSM parameter type or dynamic reference (read per deployment), no
 * import or export (they are the records of other stacks), and no change a policy, a hook or a type's
 * rules judge (a stack's deployment reviews its plan whole before making anything); and only for a
 * stack that does not exist. Any other is undefined, and the caller deploys the stack as usual.
 */
import { asEvaluationError, deploymentScope, desiredProperties, type Analysis } from './analyze.js';
import type { StacksCore } from './core.js';
import { isCustomResourceType } from './custom-resources/index.js';
import { EvaluationError, type Scope } from './intrinsics.js';
import { NESTED_STACK_TYPE } from './nested/names.js';
import { holdsReference, holdsReferenceIn } from './parameter-store/references.js';
import { namedAnew, physicalName } from './physical-names.js';
import { typesOf, type Authorize } from './reach.js';
import { fromSecret, holdsSecret, maskReason } from './secrets.js';
import { importsAnything } from './imports.js';
import { analyzeForStack } from './validate.js';
import { reusedAnalysis } from './reused-analysis.js';
import { firstJudged } from './review-plan.js';
import { outputValue } from './stages/outputs.js';
import type { StackEngine } from './stages/state.js';

/** One resource as the stack's deployment would hand it to the engine. */
export interface DirectResource {
  logicalId: string;
  typeName: string;
  /** The properties, conformed, with the name the stack gives it filled in. */
  properties: Record<string, unknown>;
  physicalName?: string;
  /**
   * Its properties hold a dynamic reference (`{{resolve:…}}`, built as the template is evaluated):
   * `engine` resolves it as the resource is made, as a deployment's step does.
   */
  resolves?: true;
}

/** A resource made: what later resources' `Ref` and `Fn::GetAtt` read. */
export interface MadeResource {
  identifier: string;
  /** Its model as the engine answered it (write-only values are dropped here). */
  model: Record<string, unknown>;
}

export interface DirectTemplate {
  /**
   * The engine the resources are made (and, on a failure, deleted) through: the stacks' own, which
   * resolves a dynamic reference a value builds as it is evaluated, as a deployment's step does.
   */
  readonly engine: Pick<StackEngine, 'create' | 'delete' | 'read' | 'waitFor'>;
  /** Logical ids, each after everything it depends on. */
  readonly order: readonly string[];
  dependsOn(logicalId: string): ReadonlySet<string>;
  /**
   * The resource as the deployment would create it, given the resources made so far; undefined when
   * its Condition is false. Throws a located EvaluationError (its message masked) when it cannot be.
   */
  resource(logicalId: string, made: ReadonlyMap<string, MadeResource>): DirectResource | undefined;
  /** The outputs (those whose Condition holds), each marked secret as a stack's outputs are. */
  outputs(made: ReadonlyMap<string, MadeResource>): { name: string; value: unknown; secret: boolean }[];
  /** `text` with the template's secrets masked: for every reason the caller reports. */
  masked(text: string): string;
}

/** What in a template's text alone needs its stack's records, by template (an analysis reused keeps its template). */
const textNeeds = new WeakMap<object, string | null>();

function needsInText(analysis: Analysis): string | undefined {
  const known = textNeeds.get(analysis.template);
  if (known !== undefined) return known ?? undefined;
  let reason: string | undefined;
  for (const [logicalId, r] of analysis.resources) {
    const typeName = r.compiled.type.typeName;
    if (isCustomResourceType(typeName) || typeName === NESTED_STACK_TYPE) {
      reason = `${logicalId} is a ${typeName}`;
      break;
    }
  }
  if (reason === undefined)
    for (const output of analysis.template.outputs.values())
      if (output.exportName !== undefined) {
        reason = `output ${output.name} is exported`;
        break;
      }
  if (reason === undefined && importsAnything(analysis.template)) reason = 'it imports a value';
  if (reason === undefined && holdsReference(JSON.stringify(analysis.template.document.value)))
    reason = 'it holds a dynamic reference';
  textNeeds.set(analysis.template, reason ?? null);
  return reason;
}

/** Why a template needs its stack's records (undefined: it does not); at once unless a reviewer must read. */
function needsStack(core: StacksCore, analysis: Analysis): string | undefined | Promise<string | undefined> {
  const inText = needsInText(analysis);
  if (inText !== undefined) return inText;
  if ((analysis.resolvedParameters?.length ?? 0) > 0) return 'a parameter reads the parameter store';
  const judged = firstJudged(core, typesOf(analysis));
  return judged instanceof Promise ? judged.then(judgedReason) : judgedReason(judged);
}

const judgedReason = (judged: string | undefined) =>
  judged === undefined ? undefined : `a rule, policy or hook judges ${judged}`;

/**
 * `text` analysed for a stack named `name` that does not exist yet, as a deployment with id `seed`
 * would analyse and evaluate it; undefined when the template needs the stack's records (see above).
 * Refused as a deployment would be (an invalid template, a type the caller may not use).
 */
export async function directTemplate(
  core: StacksCore,
  name: string,
  text: string,
  parameters: Record<string, unknown>,
  options: {
    seed: string;
    stackId: string;
    authorize?: Authorize;
    /**
     * The analysis of `text` may be one made for it before, bound to these values (reused-analysis.ts):
     * for a caller that checks every resource's values as it makes it.
     */
    reuse?: boolean;
    /** Whether the stack exists, as the caller knows it (false: it expects none as it writes, Stacks.absent): not read. */
    exists?: boolean;
  },
): Promise<DirectTemplate | undefined> {
  const authorize = options.authorize ?? (() => {});
  // A stack of that name is the caller's to deploy to (an update of it), never to make anew.
  if (options.exists ?? (await core.records.getStack(name)) !== undefined) return undefined;
  const analysis = options.reuse
    ? await reusedAnalysis(core, name, text, parameters, authorize)
    : await analyzeForStack(core, name, text, parameters, authorize);
  authorize(typesOf(analysis));
  const needs = needsStack(core, analysis);
  if ((needs instanceof Promise ? await needs : needs) !== undefined) return undefined;
  const { stackId } = options;
  const secrets = analysis.secretValues;
  const sources = { parameters: analysis.secretParameters, imports: analysis.secretImports };
  const masked = (text: string) => maskReason(text, secrets);
  // One scope per map of what was made (it reads the map as it is at each lookup, and a condition
  // names no resource): a caller passing one map as it grows evaluates conditions once.
  const scopes = new WeakMap<ReadonlyMap<string, MadeResource>, Scope>();
  const scopeOf = (made: ReadonlyMap<string, MadeResource>) => {
    let scope = scopes.get(made);
    if (!scope)
      scopes.set(
        made,
        (scope = deploymentScope(analysis, {
          stackName: name,
          stackId,
          pseudo: core.ctx.pseudo,
          made: (logicalId) => made.get(logicalId),
          importValue: () => undefined,
          secret: sources,
        })),
      );
    return scope;
  };

  const located = (e: unknown, pointer: string) => {
    const error = asEvaluationError(e, pointer);
    return new EvaluationError(error.rule, error.pointer, masked(error.message));
  };
  return {
    engine: core.ctx.engine,
    order: analysis.order,
    dependsOn: (logicalId) => analysis.resources.get(logicalId)?.dependsOn ?? new Set(),
    resource(logicalId, made) {
      const analyzed = analysis.resources.get(logicalId)!;
      const type = analyzed.compiled.type;
      try {
        const scope = scopeOf(made);
        if (scope.included(logicalId) === false) return undefined;
        const named = namedAnew(type, desiredProperties(analyzed, scope, logicalId), () =>
          physicalName(type, name, logicalId, options.seed),
        );
        const resource: DirectResource = { logicalId, typeName: type.typeName, properties: named.desired };
        if (named.physicalName !== undefined) resource.physicalName = named.physicalName;
        if (holdsReferenceIn(named.desired)) resource.resolves = true;
        return resource;
      } catch (e) {
        throw located(e, `/Resources/${logicalId}/Properties`);
      }
    },
    outputs(made) {
      const scope = scopeOf(made);
      const out: { name: string; value: unknown; secret: boolean }[] = [];
      for (const output of analysis.template.outputs.values()) {
        let evaluated;
        try {
          evaluated = outputValue(output, scope);
        } catch (e) {
          throw located(e, `/Outputs/${output.name}/Value`);
        }
        if (evaluated === undefined) continue;
        const { value } = evaluated;
        out.push({
          name: output.name,
          value,
          secret: holdsSecret(value, secrets) || fromSecret(output.value, sources),
        });
      }
      return out;
    },
    masked,
  };
}
