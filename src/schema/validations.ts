/**
 * @module Validation rules in a schema (Kubernetes' `x-kubernetes-validations`, here also
 * `x-typeplane-validations`): CEL expressions on any schema node — the root, a property, an item, a
 * definition reached by `$ref` — that must hold of the node's value, `self`. Found and compiled once,
 * with every problem located (a malformed entry, a rule that does not compile or costs too much, a
 * bad `fieldPath`, a transition rule where there is no old value); the registry evaluates them.
 *
 * A rule that reads `oldSelf` is a transition rule: it is checked on updates only, against the value
 * at the same place before (with `optionalOldSelf: true`, on creates too, `oldSelf` then `null`). Items
 * of a list have no "same place before", so no transition rule may sit under `items`.
 */
import {
  compileExpression,
  DEFAULT_SIZE_LIMIT,
  EXPRESSION_COST_LIMIT,
  typeFromSchema,
  type CompiledExpression,
  type CompileProblem,
  type ValueType,
} from '../cel/index.js';
import { escapePointerToken, type RuleId } from './diagnostics.js';
import type { JsonSchema } from './model.js';

export const VALIDATION_KEYWORDS = ['x-typeplane-validations', 'x-kubernetes-validations'] as const;

/** Kubernetes' reasons (`FieldValueInvalid` when none is given). */
export const RULE_REASONS = [
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
];

const ENTRY_KEYS = ['rule', 'message', 'messageExpression', 'fieldPath', 'reason', 'optionalOldSelf'];

/**
 * Why a rule with `optionalOldSelf: true` may not read `oldSelf` unguarded: Kubernetes types it an
 * optional there, and `self >= oldSelf` does not compile; here it is null on a create, and the rule
 * would refuse every create as one it cannot evaluate.
 */
const UNGUARDED_OLD_SELF =
  "oldSelf is read without a null guard, and with optionalOldSelf: true it is null where there is no value before (every create): guard it, as in 'oldSelf == null || self >= oldSelf' or '(oldSelf == null ? 0 : oldSelf) <= self' (Kubernetes' '!oldSelf.hasValue() || self >= oldSelf.value()' and 'oldSelf.orValue(0)')";

/** What all a type's rules may cost together, each times the values it applies to (StaticEstimatedCRDCostLimit). */
export const TYPE_RULES_COST_LIMIT = 100_000_000;

export interface SchemaRule {
  /** Where it is written in the model's schema: `/properties/spec/x-typeplane-validations/0`. */
  name: string;
  /** The model path of the values it checks: property names, `*` for any item or member. */
  path: readonly string[];
  rule: CompiledExpression;
  message?: string;
  messageExpression?: CompiledExpression;
  /** Where a failure is reported, below the checked value: property names. */
  fieldPath: readonly string[];
  reason: string;
  /** Reads `oldSelf`: checked only where there is an old value, unless `optionalOldSelf`. */
  transition: boolean;
  optionalOldSelf: boolean;
  self: ValueType;
}

/**
 * A definition that refers to itself (a tree node whose `children` are nodes): its rules are in the
 * rule list at its first use, and apply again at every depth a value nests it, which no fixed path
 * can say. The value is finite, so the walk ends; what it costs is the request's rule budget's.
 */
export interface RuleLoop {
  /** Where the definition is first used: a model path, relative to the loop that holds this one. */
  entry: readonly string[];
  /** Where, below a use of it, the definition is used again (each of its references to itself). */
  steps: readonly (readonly string[])[];
  /** What applies at each use after the first: its rules and loops, their paths relative to the use. */
  body: RuleSet;
}

export interface RuleSet {
  rules: readonly SchemaRule[];
  loops: readonly RuleLoop[];
}

export interface RuleProblem {
  rule: RuleId;
  /** JSON pointer into the model's schema. */
  pointer: string;
  message: string;
  /** Where in the expression at `pointer` (a rule's text), when the problem is inside it. */
  within?: CompileProblem & { text: string };
}

type Node = { readonly [key: string]: unknown };
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether the schema holds a validation rule anywhere (a quick look before the walk). */
export function mayHoldRules(text: string): boolean {
  return text.includes('-validations');
}

/**
 * The rules of a model schema, compiled, and the problems found. Rules inside definitions apply
 * wherever the definition is referred to; a definition that refers to itself gives a loop, whose
 * rules apply again at every depth (`rules` holds them at its first use only).
 */
export function compileSchemaRules(
  schema: JsonSchema,
  sizeLimit = DEFAULT_SIZE_LIMIT,
): { rules: SchemaRule[]; loops: RuleLoop[]; problems: RuleProblem[] } {
  const walk = new RuleWalk(schema, sizeLimit);
  walk.visit(schema, '', [], { underItems: false, cardinality: 1, refs: new Map(), branch: false });
  // Definitions nothing refers to are checked too: their problems are the author's all the same.
  if (isNode(schema.definitions)) {
    for (const [name, def] of Object.entries(schema.definitions)) {
      if (isNode(def))
        walk.visit(def, `/definitions/${escapePointerToken(name)}`, undefined, {
          underItems: false,
          cardinality: 1,
          refs: new Map(),
          branch: false,
        });
    }
  }
  return { rules: walk.rules, loops: walk.loops, problems: walk.problems };
}

/** A definition being walked: where it was entered, and where it was met again below that. */
interface Entered {
  path: readonly string[] | undefined;
  steps: string[][];
}

interface Context {
  underItems: boolean;
  cardinality: number;
  /** The definitions being walked, by their `$ref`. */
  refs: ReadonlyMap<string, Entered>;
  /** Inside anyOf/oneOf: the node applies to some values only. */
  branch: boolean;
}

type Compiled = Omit<SchemaRule, 'path' | 'name'> | undefined;

class RuleWalk {
  readonly rules: SchemaRule[] = [];
  readonly loops: RuleLoop[] = [];
  readonly problems: RuleProblem[] = [];
  private readonly compiled = new Map<string, Compiled>();
  private total = 0;
  private costReported = false;

  constructor(
    private readonly root: JsonSchema,
    private readonly sizeLimit: number,
  ) {}

  /** `path` undefined: checked for problems only (a definition visited on its own). */
  visit(node: Node, at: string, path: readonly string[] | undefined, ctx: Context): void {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      const entered = ctx.refs.get(ref);
      if (entered) {
        if (entered.path && path) entered.steps.push(path.slice(entered.path.length));
      } else {
        const target = resolve(this.root, ref);
        if (target) this.enter(target, ref, path, ctx);
      }
    }
    for (const keyword of VALIDATION_KEYWORDS) {
      if (node[keyword] !== undefined) this.site(node, at, keyword, path, ctx);
    }
    if (isNode(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        if (isNode(sub))
          this.visit(sub, `${at}/properties/${escapePointerToken(name)}`, path && [...path, name], ctx);
      }
    }
    const many = (bound: unknown) => ({
      ...ctx,
      cardinality: Math.min(
        ctx.cardinality * (typeof bound === 'number' ? bound : Math.floor(this.sizeLimit / 2)),
        Number.MAX_SAFE_INTEGER,
      ),
    });
    if (isNode(node.items))
      this.visit(node.items, `${at}/items`, path && [...path, '*'], {
        ...many(node.maxItems),
        underItems: true,
      });
    if (isNode(node.additionalProperties))
      this.visit(
        node.additionalProperties,
        `${at}/additionalProperties`,
        path && [...path, '*'],
        many(node.maxProperties),
      );
    if (isNode(node.patternProperties)) {
      for (const [pattern, sub] of Object.entries(node.patternProperties)) {
        if (isNode(sub))
          this.visit(
            sub,
            `${at}/patternProperties/${escapePointerToken(pattern)}`,
            path && [...path, '*'],
            many(node.maxProperties),
          );
      }
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      list.forEach((sub, i) => {
        if (isNode(sub))
          this.visit(sub, `${at}/${key}/${i}`, path, key === 'allOf' ? ctx : { ...ctx, branch: true });
      });
    }
  }

  /** Walks a definition; when it meets itself below, what it holds becomes a loop. */
  private enter(target: Node, ref: string, path: readonly string[] | undefined, ctx: Context): void {
    const entered: Entered = { path, steps: [] };
    const rules = this.rules.length;
    const loops = this.loops.length;
    this.visit(target, ref.slice(1), path, { ...ctx, refs: new Map([...ctx.refs, [ref, entered]]) });
    if (!path || entered.steps.length === 0) return;
    const depth = path.length;
    this.loops.push({
      entry: path,
      steps: entered.steps,
      body: {
        rules: this.rules.slice(rules).map((r) => ({ ...r, path: r.path.slice(depth) })),
        loops: this.loops.slice(loops).map((l) => ({ ...l, entry: l.entry.slice(depth) })),
      },
    });
  }

  private site(
    node: Node,
    at: string,
    keyword: string,
    path: readonly string[] | undefined,
    ctx: Context,
  ): void {
    const entries = node[keyword];
    const where = `${at}/${keyword}`;
    if (!Array.isArray(entries)) {
      if (!this.compiled.has(where)) {
        this.compiled.set(where, undefined);
        this.problem(
          'TP9001',
          where,
          `'${keyword}' must be a list of rules like { rule: 'self.min <= self.max', message: '…' }`,
        );
      }
      return;
    }
    if (ctx.branch) {
      if (!this.compiled.has(where)) {
        this.compiled.set(where, undefined);
        this.problem(
          'TP9001',
          where,
          `rules inside anyOf/oneOf would apply to some values only and are not supported; move them to the schema that holds the anyOf/oneOf`,
        );
      }
      return;
    }
    entries.forEach((entry, i) => {
      const name = `${where}/${i}`;
      let compiled = this.compiled.get(name);
      if (!this.compiled.has(name)) {
        compiled = this.compile(node, name, entry, ctx);
        this.compiled.set(name, compiled);
      }
      if (!compiled || !path) return;
      this.total = Math.min(this.total + compiled.rule.cost * ctx.cardinality, Number.MAX_SAFE_INTEGER);
      if (this.total > TYPE_RULES_COST_LIMIT && !this.costReported) {
        this.costReported = true;
        this.problem(
          'TP9003',
          `${name}/rule`,
          `the type's rules together could cost ${this.total} units (each rule's estimate times the values it applies to: ${ctx.cardinality} here), more than ${TYPE_RULES_COST_LIMIT}; bound the lists and maps above it with maxItems/maxProperties`,
        );
      }
      this.rules.push({ ...compiled, name, path });
    });
  }

  private compile(node: Node, at: string, entry: unknown, ctx: Context): Compiled {
    if (!isNode(entry)) {
      this.problem(
        'TP9001',
        at,
        `a rule must be a mapping like { rule: 'self.min <= self.max', message: '…' }`,
      );
      return undefined;
    }
    let ok = true;
    const bad = (key: string, message: string, rule: RuleId = 'TP9001') => {
      ok = false;
      this.problem(rule, `${at}/${key}`, message);
    };
    for (const key of Object.keys(entry)) {
      if (!ENTRY_KEYS.includes(key))
        bad(key, `unknown key '${key}' in a rule (it takes ${ENTRY_KEYS.join(', ')})`);
    }
    if (typeof entry.rule !== 'string') {
      this.problem(
        'TP9001',
        at,
        `a rule needs 'rule', a CEL expression that holds of valid values, like 'self.min <= self.max'`,
      );
      return undefined;
    }
    const { message, reason, fieldPath, optionalOldSelf } = entry;
    if (
      message !== undefined &&
      (typeof message !== 'string' || message.trim() === '' || /[\r\n]/.test(message))
    ) {
      bad('message', "'message' must be a non-empty string on one line");
    }
    if (reason !== undefined && (typeof reason !== 'string' || !RULE_REASONS.includes(reason))) {
      bad('reason', `'reason' must be one of ${RULE_REASONS.join(', ')}`);
    }
    if (optionalOldSelf !== undefined && typeof optionalOldSelf !== 'boolean')
      bad('optionalOldSelf', "'optionalOldSelf' must be true or false");
    const self = typeFromSchema(node, this.root, this.sizeLimit);
    let fieldTokens: string[] = [];
    if (fieldPath !== undefined) {
      const parsed = typeof fieldPath === 'string' ? parseFieldPath(fieldPath) : undefined;
      const problem =
        parsed === undefined
          ? "is not a path like .spec.replicas or .labels['app']"
          : unresolved(self, parsed);
      if (problem) bad('fieldPath', `'fieldPath' ${problem}`, 'TP9004');
      else fieldTokens = parsed ?? [];
    }
    const variables = { self, oldSelf: self };
    const rule = this.expression(
      `${at}/rule`,
      entry.rule,
      variables,
      'bool',
      'TP9002',
      optionalOldSelf === true ? { oldSelf: UNGUARDED_OLD_SELF } : undefined,
    );
    if (!rule) return undefined;
    const transition = rule.uses.has('oldSelf');
    if (transition && ctx.underItems) {
      bad(
        'rule',
        `a transition rule (one that reads oldSelf) cannot sit under 'items': an item has no old value to compare with; move the rule to the list (compare self with oldSelf there)`,
        'TP9006',
      );
    }
    if (optionalOldSelf === true && !transition)
      bad('optionalOldSelf', "'optionalOldSelf' applies to transition rules only (rules that read oldSelf)");
    let messageExpression: CompiledExpression | undefined;
    if (entry.messageExpression !== undefined) {
      if (typeof entry.messageExpression !== 'string')
        bad('messageExpression', "'messageExpression' must be a CEL expression (a string)");
      else
        messageExpression = this.expression(
          `${at}/messageExpression`,
          entry.messageExpression,
          variables,
          'string',
          'TP9005',
        );
      if (!messageExpression) ok = false;
    }
    if (!ok) return undefined;
    return {
      rule,
      ...(typeof message === 'string' ? { message } : {}),
      ...(messageExpression ? { messageExpression } : {}),
      fieldPath: fieldTokens,
      reason: typeof reason === 'string' ? reason : 'FieldValueInvalid',
      transition,
      optionalOldSelf: optionalOldSelf === true,
      self,
    };
  }

  private expression(
    at: string,
    text: string,
    variables: Record<string, ValueType>,
    expect: 'bool' | 'string',
    rule: RuleId = 'TP9002',
    nullable?: Record<string, string>,
  ): CompiledExpression | undefined {
    const result = compileExpression(text, variables, {
      expect,
      sizeLimit: this.sizeLimit,
      ...(nullable ? { nullable } : {}),
    });
    if (!result.ok) {
      for (const p of result.problems) {
        this.problems.push({
          rule,
          pointer: at,
          message: `${p.message} (line ${p.line}, column ${p.column} of the expression)`,
          within: { ...p, text },
        });
      }
      return undefined;
    }
    if (result.expression.cost > EXPRESSION_COST_LIMIT) {
      this.problem(
        'TP9003',
        at,
        `the expression could cost ${result.expression.cost} units on the largest values the schema allows, more than ${EXPRESSION_COST_LIMIT}; bound the strings, lists and maps it reads with maxLength/maxItems/maxProperties`,
      );
      return undefined;
    }
    return result.expression;
  }

  private problem(rule: RuleId, pointer: string, message: string): void {
    this.problems.push({ rule, pointer, message });
  }
}

/** `.a.b['c']` (a leading dot optional) → ['a', 'b', 'c']; undefined when malformed. */
export function parseFieldPath(text: string): string[] | undefined {
  const tokens: string[] = [];
  const re = /\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\['((?:[^'\\]|\\.)*)'\]/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    tokens.push(m[1] ?? m[2]!.replace(/\\(.)/g, '$1'));
    at = re.lastIndex;
  }
  return tokens.length > 0 ? tokens : undefined;
}

/** Why the field path does not name a field of `self`'s type (undefined when it does). */
function unresolved(self: ValueType, tokens: readonly string[]): string | undefined {
  let t: ValueType = self;
  for (const token of tokens) {
    if (t.kind === 'object') {
      const next = t.properties.get(token);
      if (!next)
        return `names '${token}', which the schema does not declare there (it has ${[...t.properties.keys()].slice(0, 12).join(', ')})`;
      t = next;
    } else if (t.kind === 'map') t = t.value;
    else if (t.kind !== 'dyn') return `goes into '${token}' of a value that has no fields`;
  }
  return undefined;
}

function resolve(root: JsonSchema, ref: string): Node | undefined {
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isNode(at) || !Object.hasOwn(at, token)) return undefined;
    at = at[token];
  }
  return isNode(at) ? at : undefined;
}
