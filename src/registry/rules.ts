/**
 * @module A type's validation rules (CEL, in its schema: see schema/validations.ts), compiled once
 * with the type and checked on a desired state: a create's, or an update's and a PUT's against the
 * state before (transition rules read it as `oldSelf`).
 *
 * Ratcheting, as Kubernetes has it: on an update, a rule is not checked on a value the update leaves
 * as it was — it may have been written before the rule existed.
 *
 * Write-only values never reach a verdict's message: a `messageExpression` sees the value without
 * them (when it then fails, the static `message` is used), and an evaluation error on a type that has
 * write-only properties is told without CEL's own text (which may quote a value).
 */
import { toCel, type CostBudget } from '../cel/index.js';
import { TypeplaneError } from '../errors.js';
import { jsonEqual, stripWriteOnly, type Model } from '../model/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import type { ResourceType } from '../schema/model.js';
import { compileSchemaRules, type SchemaRule } from '../schema/validations.js';
import type { Verdict } from '../verdict.js';

/** The verdicts of a type's rules on a desired state (`current`: the state an update starts from). */
export type RuleCheck = (desired: Model, current?: Model) => Verdict[];

/** The longest message a rule's messageExpression may give (longer ones are cut). */
export const MAX_RULE_MESSAGE = 1024;

/**
 * The type's rules, compiled; undefined when it has none.
 *
 * @throws TypeplaneError `InvalidTypeConfiguration` when a rule does not compile (a type registered
 *   without `typeplane validate`'s checks).
 */
export function compileRules(type: ResourceType): RuleCheck | undefined {
  if (!JSON.stringify(type.schema).includes('-validations')) return undefined;
  const { rules, problems } = compileSchemaRules(type.schema);
  if (problems.length > 0) {
    throw new TypeplaneError(
      'InvalidTypeConfiguration',
      `the validation rules of ${type.typeName} are invalid: ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}`,
      problems.map((p) => ({ pointer: p.pointer, message: p.message, rule: p.rule })),
    );
  }
  if (rules.length === 0) return undefined;
  const runs = runsByPath(rules);
  return (desired, current) => check(type, runs, desired, current);
}

/**
 * The rules in order, consecutive ones of one path together (a node's rules are consecutive), so a
 * path's values are found, compared with the state before and converted once for all of them.
 */
function runsByPath(rules: readonly SchemaRule[]): SchemaRule[][] {
  const runs: SchemaRule[][] = [];
  for (const rule of rules) {
    const last = runs.at(-1);
    if (last && samePath(last[0]!.path, rule.path)) last.push(rule);
    else runs.push([rule]);
  }
  return runs;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

/**
 * What one request's schema rules may cost in all, in Kubernetes' units: a fifth of Kubernetes'
 * RuntimeCELCostBudget. Rules run on the event loop, in the change's own turn, and a unit costs more
 * here than in Go (0.1–0.3 µs): 10M units held the loop for seconds. As admission policies' change
 * budget; a rule is still registered by Kubernetes' static estimate (10M units at its schema's bounds).
 */
export const RULES_BUDGET = 2_000_000;

function check(
  type: ResourceType,
  runs: readonly SchemaRule[][],
  desired: Model,
  current: Model | undefined,
): Verdict[] {
  const verdicts: Verdict[] = [];
  const budget: CostBudget = { remaining: RULES_BUDGET, of: `the request's rule budget of ${RULES_BUDGET}` };
  // One conversion per value a rule reads, however many rules read it.
  const converted = new Map<unknown, unknown>();
  const cel = (value: unknown, rule: SchemaRule) => {
    if (typeof value !== 'object' || value === null) return toCel(value, rule.self);
    let c = converted.get(value);
    if (c === undefined) converted.set(value, (c = toCel(value, rule.self)));
    return c;
  };
  let redacted: Model | undefined;
  const hasWriteOnly = type.writeOnlyProperties.length > 0;
  for (const run of runs) {
    for (const { tokens, value } of instances(desired, run[0]!.path)) {
      const old = current === undefined ? undefined : at(current, tokens);
      if (old && jsonEqual(old.value, value)) continue;
      const bindings = {
        self: cel(value, run[0]!),
        oldSelf: old ? cel(old.value, run[0]!) : null,
      } as never;
      for (const rule of run) {
        if (rule.transition && !old && !rule.optionalOldSelf) continue;
        const result = rule.rule.evaluate(bindings, budget);
        if (result.ok && result.value === true) continue;
        let message: string;
        if (result.ok) {
          redacted ??= hasWriteOnly ? stripWriteOnly(type, desired) : desired;
          message =
            messageOf(rule, redacted, tokens, old?.value, budget) ??
            rule.message ??
            `failed rule: ${rule.rule.source}`;
        } else if (result.kind === 'cost') {
          message = `the rule was not evaluated: ${result.message}`;
        } else {
          message = hasWriteOnly
            ? 'the rule could not be evaluated on this value'
            : `the rule could not be evaluated: ${result.message}`;
        }
        const pointer = [...tokens, ...rule.fieldPath].map((t) => `/${escapePointerToken(t)}`).join('');
        verdicts.push({
          source: 'rule',
          name: rule.name,
          action: 'Deny',
          message,
          pointer,
          reason: rule.reason,
        });
      }
    }
  }
  return verdicts;
}

function messageOf(
  rule: SchemaRule,
  redacted: Model,
  tokens: readonly string[],
  old: unknown,
  budget: CostBudget,
): string | undefined {
  if (!rule.messageExpression) return undefined;
  const self = at(redacted, tokens);
  if (!self) return undefined;
  const result = rule.messageExpression.evaluate(
    {
      self: toCel(self.value, rule.self),
      oldSelf: old === undefined ? null : toCel(old, rule.self),
    } as never,
    budget,
  );
  if (!result.ok || typeof result.value !== 'string' || result.value.trim() === '') return undefined;
  return result.value.length > MAX_RULE_MESSAGE
    ? `${result.value.slice(0, MAX_RULE_MESSAGE)}…`
    : result.value;
}

/** The values at a rule's path (`*`: every item or member), with where they are. */
function instances(model: Model, path: readonly string[]): { tokens: string[]; value: unknown }[] {
  let found: { tokens: string[]; value: unknown }[] = [{ tokens: [], value: model }];
  for (const token of path) {
    const next: typeof found = [];
    for (const { tokens, value } of found) {
      if (typeof value !== 'object' || value === null) continue;
      if (token === '*') {
        for (const [k, v] of Object.entries(value)) next.push({ tokens: [...tokens, k], value: v });
      } else if (!Array.isArray(value) && Object.hasOwn(value, token)) {
        next.push({ tokens: [...tokens, token], value: (value as Record<string, unknown>)[token] });
      }
    }
    found = next;
  }
  return found.filter((f) => f.value !== null && f.value !== undefined);
}

function at(model: unknown, tokens: readonly string[]): { value: unknown } | undefined {
  let value = model;
  for (const token of tokens) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, token)) return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value === null || value === undefined ? undefined : { value };
}
