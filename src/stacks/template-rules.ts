/**
 * @module A template's Rules section, checked as CloudFormation checks it before a stack is created
 * or updated: each rule whose RuleCondition holds (or that has none) must have every Assert hold for
 * the parameter values, or the request is refused with the rule's AssertDescription.
 *
 * The rule functions: Fn::And, Fn::Or, Fn::Not, Fn::Equals, Fn::Contains, Fn::EachMemberEquals,
 * Fn::EachMemberIn, Fn::RefAll and Ref of a parameter. Fn::ValueOf and Fn::ValueOfAll read
 * attributes of the AWS resources a parameter names (a subnet's VpcId) from an account: an assertion
 * that needs one is not checked here, and says so (a warning). A value not known yet (a parameter
 * without a value at validate time) leaves its assertion unchecked, silently: plan and deploy check it.
 */
import { escapePointerToken, type Diagnostic } from '../schema/diagnostics.js';
import { Unknown, type ParameterValue } from './intrinsics.js';
import { stackDiagnostic } from './rules.js';
import type { ParameterDeclaration } from './template.js';

/** Most rules, and assertions of one rule, read; a template past them is refused (it is not real). */
const MAX_RULES = 200;
const MAX_ASSERTIONS = 100;
/** Deepest nesting of rule functions evaluated. */
const MAX_DEPTH = 32;

/** What a rule function's value is: known, not known yet, or not knowable here (an account's attribute). */
type RuleValue = string | boolean | string[] | typeof NOT_YET | NeedsAccount;
const NOT_YET: unique symbol = Symbol('not known yet');
class NeedsAccount {
  constructor(readonly fn: string) {}
}

/** A rule written wrong: its structure (TP4001) or a function's use (TP4014). */
class RuleProblem extends Error {
  constructor(
    readonly pointer: string,
    message: string,
    readonly rule: 'TP4001' | 'TP4014' = 'TP4014',
  ) {
    super(message);
  }
}

const RULE_KEYS = new Set(['RuleCondition', 'Assertions']);
const ASSERTION_KEYS = new Set(['Assert', 'AssertDescription']);

/** The Rules section checked against the parameters' values: every failed assertion, located. */
export function checkTemplateRules(
  rules: unknown,
  declarations: ReadonlyMap<string, ParameterDeclaration>,
  values: ReadonlyMap<string, ParameterValue | Unknown>,
): Diagnostic[] {
  if (rules === undefined || rules === null) return [];
  const out: Diagnostic[] = [];
  if (!isMapping(rules))
    return [stackDiagnostic('TP4001', '/Rules', 'Rules must be a mapping of rule names to rules')];
  const names = Object.keys(rules);
  if (names.length > MAX_RULES)
    return [
      stackDiagnostic('TP4001', '/Rules', `a template has at most ${MAX_RULES} rules, not ${names.length}`),
    ];
  const evaluate = evaluator(declarations, values);
  for (const name of names) {
    const at = `/Rules/${escapePointerToken(name)}`;
    const rule = rules[name];
    try {
      if (!isMapping(rule))
        throw new RuleProblem(
          at,
          `rule ${name} must be a mapping with Assertions (and a RuleCondition)`,
          'TP4001',
        );
      for (const key of Object.keys(rule))
        if (!RULE_KEYS.has(key))
          throw new RuleProblem(
            `${at}/${escapePointerToken(key)}`,
            `rule ${name} has no field ${key}; its fields are RuleCondition and Assertions`,
            'TP4001',
          );
      const assertions = rule.Assertions;
      if (!Array.isArray(assertions) || assertions.length === 0 || assertions.length > MAX_ASSERTIONS)
        throw new RuleProblem(
          `${at}/Assertions`,
          `rule ${name} needs Assertions: a list of 1 to ${MAX_ASSERTIONS} {Assert, AssertDescription}`,
          'TP4001',
        );
      if (rule.RuleCondition !== undefined) {
        const holds = evaluate(rule.RuleCondition, `${at}/RuleCondition`, 0);
        if (typeof holds === 'string' || Array.isArray(holds))
          throw new RuleProblem(
            `${at}/RuleCondition`,
            `rule ${name}'s RuleCondition must be a condition (Fn::Equals, Fn::And, …), not a value`,
          );
        if (holds !== true) continue;
      }
      assertions.forEach((assertion, i) => {
        const where = `${at}/Assertions/${i}`;
        if (!isMapping(assertion) || assertion.Assert === undefined)
          throw new RuleProblem(
            where,
            `each assertion of rule ${name} is a mapping with Assert (and AssertDescription)`,
            'TP4001',
          );
        for (const key of Object.keys(assertion))
          if (!ASSERTION_KEYS.has(key))
            throw new RuleProblem(
              `${where}/${escapePointerToken(key)}`,
              `an assertion has no field ${key}; its fields are Assert and AssertDescription`,
              'TP4001',
            );
        const described = assertion.AssertDescription;
        if (described !== undefined && typeof described !== 'string')
          throw new RuleProblem(`${where}/AssertDescription`, 'AssertDescription must be a string', 'TP4001');
        const holds = evaluate(assertion.Assert, `${where}/Assert`, 0);
        if (typeof holds === 'string' || Array.isArray(holds))
          throw new RuleProblem(
            `${where}/Assert`,
            `an Assert must be a condition (Fn::Equals, Fn::Contains, …), not a value`,
          );
        if (holds === false)
          out.push(
            stackDiagnostic(
              'TP4028',
              `${where}/Assert`,
              `rule ${name} does not hold for the parameters given: ${described ?? 'its assertion is false'}`,
            ),
          );
        else if (holds instanceof NeedsAccount)
          out.push(
            stackDiagnostic(
              'TP4029',
              `${where}/Assert`,
              `rule ${name} is not checked here: ${holds.fn} reads attributes of AWS resources in an account, which Typeplane does not have`,
            ),
          );
      });
    } catch (e) {
      if (!(e instanceof RuleProblem)) throw e;
      out.push(stackDiagnostic(e.rule, e.pointer, e.message));
    }
  }
  return out;
}

function evaluator(
  declarations: ReadonlyMap<string, ParameterDeclaration>,
  values: ReadonlyMap<string, ParameterValue | Unknown>,
) {
  const text = (v: string | number | boolean) => String(v);
  const parameterValue = (name: string, at: string): RuleValue => {
    if (!declarations.has(name))
      throw new RuleProblem(at, `a rule may Ref only the template's parameters; ${name} is none`);
    const value = values.get(name);
    if (value === undefined || value instanceof Unknown) return NOT_YET;
    return Array.isArray(value) ? value.map(text) : text(value);
  };
  const evaluate = (node: unknown, at: string, depth: number): RuleValue => {
    if (depth > MAX_DEPTH) throw new RuleProblem(at, `rule functions are nested more than ${MAX_DEPTH} deep`);
    if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return text(node);
    if (Array.isArray(node)) {
      const items: string[] = [];
      for (let i = 0; i < node.length; i++) {
        const item = evaluate(node[i], `${at}/${i}`, depth + 1);
        if (item === NOT_YET || item instanceof NeedsAccount) return item;
        if (typeof item !== 'string')
          throw new RuleProblem(`${at}/${i}`, 'a list here holds strings, not conditions or lists');
        items.push(item);
      }
      return items;
    }
    if (!isMapping(node)) throw new RuleProblem(at, 'a rule function or a value is expected here');
    const keys = Object.keys(node);
    if (keys.length !== 1)
      throw new RuleProblem(at, 'a rule function is a mapping of one key (Fn::Equals, Ref, …)');
    const fn = keys[0]!;
    const arg = node[fn];
    const argAt = `${at}/${escapePointerToken(fn)}`;
    const list = (n: number): unknown[] => {
      if (!Array.isArray(arg) || arg.length !== n) throw new RuleProblem(argAt, `${fn} takes a list of ${n}`);
      return arg;
    };
    const strings = (v: RuleValue, where: string): string[] | RuleValue => {
      if (v === NOT_YET || v instanceof NeedsAccount) return v;
      if (typeof v === 'string') return [v];
      if (Array.isArray(v)) return v;
      throw new RuleProblem(where, `${fn} needs a list of strings here`);
    };
    const condition = (v: unknown, where: string): boolean | typeof NOT_YET | NeedsAccount => {
      const b = evaluate(v, where, depth + 1);
      if (typeof b === 'boolean' || b === NOT_YET || b instanceof NeedsAccount) return b;
      throw new RuleProblem(where, `${fn} takes conditions, not values`);
    };
    switch (fn) {
      case 'Ref':
        if (typeof arg !== 'string') throw new RuleProblem(argAt, 'Ref takes a parameter name');
        return parameterValue(arg, argAt);
      case 'Fn::RefAll': {
        if (typeof arg !== 'string') throw new RuleProblem(argAt, 'Fn::RefAll takes a parameter type');
        const all: string[] = [];
        for (const d of declarations.values())
          if (d.type === arg) {
            const v = parameterValue(d.name, argAt);
            if (v === NOT_YET) return NOT_YET;
            all.push(...(Array.isArray(v) ? v : [v as string]));
          }
        return all;
      }
      case 'Fn::ValueOf':
      case 'Fn::ValueOfAll':
        return new NeedsAccount(fn);
      case 'Fn::Not': {
        const [c] = list(1);
        const v = condition(c, `${argAt}/0`);
        return typeof v === 'boolean' ? !v : v;
      }
      case 'Fn::And':
      case 'Fn::Or': {
        if (!Array.isArray(arg) || arg.length < 2 || arg.length > 10)
          throw new RuleProblem(argAt, `${fn} takes a list of 2 to 10 conditions`);
        const said = arg.map((c, i) => condition(c, `${argAt}/${i}`));
        const decisive = fn === 'Fn::And' ? false : true;
        if (said.includes(decisive)) return decisive;
        return said.find((v) => typeof v !== 'boolean') ?? !decisive;
      }
      case 'Fn::Equals': {
        const [a, b] = list(2).map((v, i) => evaluate(v, `${argAt}/${i}`, depth + 1));
        if (a === NOT_YET || a instanceof NeedsAccount) return a;
        if (b === NOT_YET || b instanceof NeedsAccount) return b;
        return JSON.stringify(a) === JSON.stringify(b);
      }
      case 'Fn::Contains':
      case 'Fn::EachMemberEquals':
      case 'Fn::EachMemberIn': {
        const [first, second] = list(2);
        const members = strings(evaluate(first, `${argAt}/0`, depth + 1), `${argAt}/0`);
        const other = evaluate(second, `${argAt}/1`, depth + 1);
        if (!Array.isArray(members)) return members as RuleValue;
        if (other === NOT_YET || other instanceof NeedsAccount) return other;
        if (fn === 'Fn::Contains') return typeof other === 'string' && members.includes(other);
        if (fn === 'Fn::EachMemberEquals')
          return typeof other === 'string' && members.every((m) => m === other);
        const allowed = strings(other, `${argAt}/1`) as string[];
        return members.every((m) => allowed.includes(m));
      }
      default:
        throw new RuleProblem(
          argAt,
          `${fn} is not a rule function; rules use Fn::And, Fn::Or, Fn::Not, Fn::Equals, Fn::Contains, Fn::EachMemberEquals, Fn::EachMemberIn, Fn::RefAll, Fn::ValueOf, Fn::ValueOfAll and Ref`,
        );
    }
  };
  return evaluate;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
