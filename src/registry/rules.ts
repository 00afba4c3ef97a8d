/**
 * @module A type's validation rules (CEL, in its schema: see schema/validations.ts), compiled once
 * with the type and checked on a desired state: a create's, or an update's and a PUT's against the
 * state before (transition rules read it as `oldSelf`).
 *
 * A definition that refers to itself (a tree node) has its rules checked at every depth of the value,
 * within the request's rule budget.
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
import { compileSchemaRules, type RuleSet, type SchemaRule } from '../schema/validations.js';
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
  const { rules, loops, problems } = compileSchemaRules(type.schema);
  if (problems.length > 0) {
    throw new TypeplaneError(
      'InvalidTypeConfiguration',
      `the validation rules of ${type.typeName} are invalid: ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}`,
      problems.map((p) => ({ pointer: p.pointer, message: p.message, rule: p.rule })),
    );
  }
  if (rules.length === 0) return undefined;
  const set = runSet({ rules, loops });
  return (desired, current) => check(type, set, desired, current);
}

/** A rule set with its rules in runs: what `check` walks. */
interface RunSet {
  runs: SchemaRule[][];
  loops: { entry: readonly string[]; steps: readonly (readonly string[])[]; body: RunSet }[];
}

function runSet(set: RuleSet): RunSet {
  return {
    runs: runsByPath(set.rules),
    loops: set.loops.map((loop) => ({ ...loop, body: runSet(loop.body) })),
  };
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

function check(type: ResourceType, set: RunSet, desired: Model, current: Model | undefined): Verdict[] {
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
  // Set when a nested value could not be paid for: the change is refused, and judging the rest of
  // the tree would only say so again for each level (as Kubernetes stops once its budget is spent).
  let spent = false;
  const judge: Judge = (runs, base, baseTokens, nested) => {
    for (const run of runs) {
      if (spent) return false;
      for (const { tokens, value } of valuesAtPath(base, run[0]!.path, baseTokens)) {
        const old = current === undefined ? undefined : at(current, tokens);
        if (old && jsonEqual(old.value, value)) continue;
        if (nested) seedFromUse(converted, base, value, tokens.slice(baseTokens.length));
        const refused = nested ? chargeConversion(budget, converted, value, old?.value) : undefined;
        if (refused) {
          spent = true;
          verdicts.push(
            verdictOf(run[0]!, tokens, `the rule was not evaluated, nor any after it: ${refused}`),
          );
          return false;
        }
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
          verdicts.push(verdictOf(rule, tokens, message));
        }
      }
    }
    return true;
  };
  if (judge(set.runs, desired, [], false) && set.loops.length > 0)
    judgeLoops(set.loops, desired, [], judge, converted);
  return verdicts;
}

/** Judges the runs' values below `base`; false once the budget is spent (nothing more is judged). */
type Judge = (runs: readonly SchemaRule[][], base: unknown, baseTokens: string[], nested: boolean) => boolean;

function verdictOf(rule: SchemaRule, tokens: readonly string[], message: string): Verdict {
  const pointer = [...tokens, ...rule.fieldPath].map((t) => `/${escapePointerToken(t)}`).join('');
  return { source: 'rule', name: rule.name, action: 'Deny', message, pointer, reason: rule.reason };
}

/**
 * A value nested in a loop holds the deeper levels, each converted again for its own rules: a
 * unit of the rule budget per JSON value converted bounds that work (50 levels of one 1 MiB body
 * would otherwise be converted 50 times). Why it cannot be paid, or undefined when it was.
 */
function chargeConversion(
  budget: CostBudget,
  converted: ReadonlyMap<unknown, unknown>,
  value: unknown,
  old: unknown,
): string | undefined {
  let cost = 0;
  for (const v of [value, old]) {
    if (typeof v === 'object' && v !== null && !converted.has(v))
      cost += countValues(v, budget.remaining - cost + 1);
  }
  if (cost > budget.remaining)
    return `converting the value nested here costs more than the ${budget.remaining} units left of ${budget.of}; make the value smaller or less deep`;
  budget.remaining -= cost;
  return undefined;
}

/** The JSON values `value` holds, itself included, counted up to `cap`. */
function countValues(value: unknown, cap: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count < cap) {
    const v = pending.pop();
    count++;
    if (typeof v === 'object' && v !== null) {
      for (const member of Array.isArray(v) ? v : Object.values(v)) pending.push(member);
    }
  }
  return count;
}

/**
 * Each loop's rules at every use of its definition after the first, level by level: the value is
 * finite (and bounded in depth), so this ends. A use's value converted for its rules holds its
 * children's, of the same definition and so the same type: they are taken from it, not converted again.
 */
function judgeLoops(
  loops: RunSet['loops'],
  base: unknown,
  baseTokens: string[],
  judge: Judge,
  converted: Map<unknown, unknown>,
): boolean {
  for (const loop of loops) {
    let level = valuesAtPath(base, loop.entry, baseTokens);
    while (level.length > 0) {
      const next: typeof level = [];
      for (const use of level) {
        const cel = converted.get(use.value);
        for (const step of loop.steps) {
          for (const found of valuesAtPath(use.value, step, use.tokens)) {
            next.push(found);
            if (cel === undefined || converted.has(found.value)) continue;
            const within = celAt(cel, found.tokens.slice(use.tokens.length));
            if (within !== undefined) converted.set(found.value, within);
          }
        }
      }
      for (const use of next) {
        if (!judge(loop.body.runs, use.value, use.tokens, true)) return false;
        if (
          loop.body.loops.length > 0 &&
          !judgeLoops(loop.body.loops, use.value, use.tokens, judge, converted)
        )
          return false;
      }
      level = next;
    }
  }
  return true;
}

/** A value below a nested use whose own value was converted: the conversion holds it already. */
function seedFromUse(converted: Map<unknown, unknown>, use: unknown, value: unknown, tokens: string[]): void {
  if (tokens.length === 0 || typeof value !== 'object' || value === null || converted.has(value)) return;
  const cel = converted.get(use);
  const within = cel === undefined ? undefined : celAt(cel, tokens);
  if (within !== undefined) converted.set(value, within);
}

/** The CEL value at `tokens` inside a converted value (Maps and lists), if there is one. */
function celAt(cel: unknown, tokens: readonly string[]): unknown {
  let at = cel;
  for (const token of tokens) {
    if (at instanceof Map) at = at.get(token);
    else if (Array.isArray(at)) at = at[Number(token)];
    else return undefined;
  }
  return typeof at === 'object' && at !== null ? at : undefined;
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

/** The values at a rule's path (`*`: every item or member) below `model` at `base`, with where they are. */
export function valuesAtPath(
  model: unknown,
  path: readonly string[],
  base: string[],
): { tokens: string[]; value: unknown }[] {
  let found: { tokens: string[]; value: unknown }[] = [{ tokens: base, value: model }];
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
