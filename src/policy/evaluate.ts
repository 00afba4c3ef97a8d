/**
 * @module One change reviewed by compiled policies: those whose `match` takes its type and operation
 * and whose `matchConditions` all hold run their validations; each that fails is a verdict of the
 * policy's action. Every expression a policy evaluates draws on the policy's cost budget, and every
 * policy's on the change's, each evaluation charged a bound over the change's values before it runs.
 * An expression that errors, or whose charge is over a budget left or the per-call limit, follows
 * the policy's `failurePolicy`: `Fail` (the default) is a verdict of its action saying so, `Ignore`
 * none. Pure: the server's reviewer (which lets the event loop run between expressions) and
 * `typeplane policy test` both call it.
 */
import { toCel, type CompiledExpression, type CostBudget, type EvaluationResult } from '../cel/index.js';
import type { Model } from '../model/index.js';
import type { Verdict } from '../verdict.js';
import type { CompiledPolicy, CompiledValidation, RequestFacts } from './compile.js';
import { matches, type PolicyDocument, type PolicyOperation } from './document.js';

export interface PolicyInput {
  operation: PolicyOperation;
  typeName: string;
  /** The desired state (CREATE, UPDATE); absent (CEL `null`) on DELETE. Write-only values already taken out. */
  object?: Model;
  /** The state before (UPDATE, DELETE); absent (`null`) on CREATE. */
  oldObject?: Model;
  request: RequestFacts;
}

/** The longest message a verdict carries (a messageExpression's value is cut to it). */
const MAX_MESSAGE = 1024;

/**
 * What all the expressions one change's policies evaluate may cost in all (match conditions,
 * validations and messageExpressions alike), and what one policy's may: Kubernetes' units, at most
 * about 0.3 µs of CPU each on an idle machine (a list built by the interpreter's map(); most cost a
 * tenth of that), so a change's policies take at most about 0.6 s of CPU, one policy or one
 * expression (CALL_COST_LIMIT) half of that. See docs/policy.md, "Cost at run time".
 */
export const CHANGE_COST_BUDGET = 2_000_000;
export const POLICY_COST_BUDGET = 1_000_000;

/**
 * How long the server's review evaluates before it lets the event loop run other work (another
 * request, `/healthz`): one expression is never cut, so the loop is held at most this plus one.
 */
const PAUSE_AFTER_MS = 10;

/** The verdicts of `policies` on the change, in the policies' order. */
export function evaluatePolicies(
  policies: readonly CompiledPolicy[],
  input: PolicyInput,
  budget: CostBudget = changeBudget(),
): Verdict[] {
  const run = judging(policies, input, budget);
  for (;;) {
    const step = run.next();
    if (step.done) return step.value;
  }
}

/**
 * As evaluatePolicies, for the server: whenever an evaluation has run PAUSE_AFTER_MS since it last
 * did, it lets the event loop run before the next expression.
 */
export async function reviewPolicies(
  policies: readonly CompiledPolicy[],
  input: PolicyInput,
): Promise<Verdict[]> {
  const run = judging(policies, input, changeBudget());
  let since = performance.now();
  for (;;) {
    const step = run.next();
    if (step.done) return step.value;
    if (performance.now() - since >= PAUSE_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

function changeBudget(): CostBudget {
  return { remaining: CHANGE_COST_BUDGET, of: `the change's policy budget of ${CHANGE_COST_BUDGET}` };
}

/** The evaluation, paused (a `yield`) after each expression it evaluates. */
function* judging(
  policies: readonly CompiledPolicy[],
  input: PolicyInput,
  change: CostBudget,
): Generator<void, Verdict[]> {
  const verdicts: Verdict[] = [];
  const scope = new ChangeScope(input);
  for (const compiled of policies) {
    const { policy } = compiled;
    if (!takes(compiled, input.typeName, input.operation)) continue;
    scope.params = compiled.params;
    if (compiled.notCompiled !== undefined) {
      if (policy.failurePolicy !== 'Ignore')
        verdicts.push({
          source: 'policy',
          name: policy.name,
          action: policy.action,
          message: bound(
            `the policy does not compile on this Typeplane, so every change it matches gets this verdict (its failurePolicy is Fail) until it is replaced or deleted: ${compiled.notCompiled}`,
          ),
          reason: 'NotCompiled',
        });
      continue;
    }
    // The policy's own budget, within what the change has left: what it spends, the change spends.
    const own: CostBudget =
      change.remaining > POLICY_COST_BUDGET
        ? { remaining: POLICY_COST_BUDGET, of: `policy ${policy.name}'s budget of ${POLICY_COST_BUDGET}` }
        : change;
    const before = own.remaining;
    let applies = true;
    for (const condition of compiled.conditions) {
      const result = scope.evaluate(condition.expression, own);
      yield;
      if (!result.ok) failed(verdicts, policy, `match condition ${condition.name}`, result.message);
      if (!result.ok || result.value !== true) {
        applies = false;
        break;
      }
    }
    // A loop, not forEach: no closure made per policy and change.
    for (let i = 0; applies && i < compiled.validations.length; i++) {
      const validation = compiled.validations[i]!;
      const result = scope.evaluate(validation.expression, own);
      yield;
      if (!result.ok) failed(verdicts, policy, `validation ${i}`, result.message);
      else if (result.value !== true) {
        const message = validation.messageExpression && scope.evaluate(validation.messageExpression, own);
        if (message) yield;
        verdicts.push({
          source: 'policy',
          name: policy.name,
          action: policy.action,
          message: messageOf(validation, message),
          ...(validation.reason !== undefined ? { reason: validation.reason } : {}),
        });
      }
    }
    if (own !== change) change.remaining -= before - own.remaining;
  }
  return verdicts;
}

/** An expression that could not be evaluated: a verdict of the policy's action unless its failurePolicy is Ignore. */
function failed(verdicts: Verdict[], policy: PolicyDocument, what: string, message: string): void {
  if (policy.failurePolicy !== 'Ignore')
    verdicts.push({
      source: 'policy',
      name: policy.name,
      action: policy.action,
      message: `the policy could not be evaluated (${what}: ${message}); its failurePolicy is Fail`,
      reason: 'EvaluationError',
    });
}

/** Whether any of `policies` matches a change of the type and operation (its matchConditions aside). */
export function anyTakes(
  policies: readonly CompiledPolicy[],
  typeName: string,
  operation: PolicyOperation,
): boolean {
  return policies.some((compiled) => takes(compiled, typeName, operation));
}

/** Whether the policy's `match` takes the type, by type name, each policy's globs tried once per type. */
const taken = new WeakMap<CompiledPolicy, Map<string, boolean>>();
/** More type names than a registry holds: past it a policy's answers are forgotten and found again. */
const MAX_TAKEN = 4096;

function takes(compiled: CompiledPolicy, typeName: string, operation: PolicyOperation): boolean {
  if (!compiled.policy.match.operations.includes(operation)) return false;
  let byType = taken.get(compiled);
  if (!byType) taken.set(compiled, (byType = new Map()));
  let answer = byType.get(typeName);
  if (answer === undefined) {
    if (byType.size >= MAX_TAKEN) byType.clear();
    answer = matches(compiled.policy, typeName, operation);
    byType.set(typeName, answer);
  }
  return answer;
}

type CelInput = ReturnType<typeof toCel>;

/**
 * The change's variables as CEL reads them, each converted when an expression first reads it and
 * then kept for the change's other expressions: most policies read `object` or `request`, few both,
 * and converting a model is most of what evaluating a typical expression costs. `params` is the
 * policy's own, converted when it was compiled.
 */
class ChangeScope {
  private readonly bindings: Record<string, CelInput> = {};
  params: CelInput = null;

  constructor(private readonly input: PolicyInput) {}

  evaluate(expression: CompiledExpression, budget: CostBudget): EvaluationResult {
    const { bindings, input } = this;
    const uses = expression.uses;
    if (bindings.object === undefined && uses.has('object')) bindings.object = toCel(input.object ?? null);
    if (bindings.oldObject === undefined && uses.has('oldObject'))
      bindings.oldObject = toCel(input.oldObject ?? null);
    if (bindings.request === undefined && uses.has('request')) bindings.request = toCel(input.request);
    bindings.params = this.params;
    return expression.evaluate(bindings, budget);
  }
}

/** A messageExpression's value when it gives a non-empty one, else the message, else the expression (as Kubernetes says it). */
function messageOf(validation: CompiledValidation, evaluated: EvaluationResult | undefined): string {
  if (evaluated?.ok && typeof evaluated.value === 'string' && evaluated.value.trim() !== '')
    return bound(evaluated.value);
  return validation.message ?? `failed expression: ${validation.expression.source}`;
}

function bound(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}
