/**
 * @module One change reviewed by compiled policies: those whose `match` takes its type and operation
 * and whose `matchConditions` all hold run their validations; each that fails is a verdict of the
 * policy's action. Every expression of the change draws on one cost budget. An expression that
 * errors or would overrun the budget follows the policy's `failurePolicy`: `Fail` (the default) is
 * a verdict of its action saying so, `Ignore` none. Pure: the server's reviewer and `typeplane policy
 * test` both call it.
 */
import { REQUEST_COST_BUDGET, toCel, type CostBudget, type EvaluationResult } from '../cel/index.js';
import type { Model } from '../model/index.js';
import type { Verdict } from '../verdict.js';
import type { CompiledPolicy, CompiledValidation, RequestFacts } from './compile.js';
import { matches, type PolicyOperation } from './document.js';

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

/** The verdicts of `policies` on the change, in the policies' order. */
export function evaluatePolicies(
  policies: readonly CompiledPolicy[],
  input: PolicyInput,
  budget: CostBudget = { remaining: REQUEST_COST_BUDGET },
): Verdict[] {
  const verdicts: Verdict[] = [];
  let bindings: Record<string, ReturnType<typeof toCel>> | undefined;
  for (const compiled of policies) {
    const { policy } = compiled;
    if (!matches(policy, input.typeName, input.operation)) continue;
    // Made once for the change, when a first policy matches.
    bindings ??= {
      object: toCel(input.object ?? null),
      oldObject: toCel(input.oldObject ?? null),
      request: toCel(input.request),
    };
    const scope = { ...bindings, params: compiled.params };
    const failed = (what: string, message: string): void => {
      if (policy.failurePolicy !== 'Ignore')
        verdicts.push({
          source: 'policy',
          name: policy.name,
          action: policy.action,
          message: `the policy could not be evaluated (${what}: ${message}); its failurePolicy is Fail`,
          reason: 'EvaluationError',
        });
    };
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
    let applies = true;
    for (const condition of compiled.conditions) {
      const result = condition.expression.evaluate(scope, budget);
      if (!result.ok) {
        failed(`match condition ${condition.name}`, result.message);
        applies = false;
        break;
      }
      if (result.value !== true) {
        applies = false;
        break;
      }
    }
    if (!applies) continue;
    compiled.validations.forEach((validation, i) => {
      const result = validation.expression.evaluate(scope, budget);
      if (!result.ok) return failed(`validation ${i}`, result.message);
      if (result.value === true) return;
      verdicts.push({
        source: 'policy',
        name: policy.name,
        action: policy.action,
        message: messageOf(validation, validation.messageExpression?.evaluate(scope, budget)),
        ...(validation.reason !== undefined ? { reason: validation.reason } : {}),
      });
    });
  }
  return verdicts;
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
