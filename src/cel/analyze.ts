/**
 * @module One walk over a parsed expression that gives its type, the problems a type checker finds
 * (a field the schema does not name, an operator applied to types it has no overload for, a function
 * that does not exist) and its cost: Kubernetes' estimate, where a comprehension costs the most items
 * its range can hold times its body, and a string or list operation costs a tenth of a unit per
 * character or item it may touch. The same walk, given the sizes of the values a request actually
 * holds, bounds what evaluating it costs before it runs.
 *
 * @bufbuild/cel's own checker types constants and identifiers only, hence this one.
 */
import type { parse } from '@bufbuild/cel';
import { patternProblem } from './patterns.js';
import { DYN, typeName, type ValueType } from './types.js';

export type Expr = ReturnType<typeof parse>['expr'];

export interface Problem {
  message: string;
  exprId: bigint;
}

export interface Analysis {
  type: ValueType;
  cost: number;
}

type Scope = ReadonlyMap<string, ValueType>;

const BOOL: ValueType = { kind: 'bool' };
const INT: ValueType = { kind: 'int' };
const STRING: ValueType = { kind: 'string' };
const NUMERIC = new Set(['int', 'uint', 'double']);
/** The accumulator of map() and filter(), a list growing to the range's size. */
const ACCUMULATOR = '@result';
/**
 * What a problem leaves. Compiling, a problem refuses the expression; estimating over a value's
 * sizes, it is an operation that errors on that value (a member it lacks, an operand of the wrong
 * kind), so nothing is evaluated past it.
 */
const ERRED: ValueType = Object.freeze({ kind: 'dyn', maxSize: 0 });

export class Analyzer {
  readonly problems: Problem[] = [];
  /** The names of the variables the expression reads. */
  readonly used = new Set<string>();
  /** The patterns of its `matches()` calls written as string literals. */
  readonly patterns = new Set<string>();

  /** @param sizeLimit the size of a value whose type does not say (a `dyn`, an element of one). */
  constructor(private readonly sizeLimit: number) {}

  run(expr: Expr, variables: Scope): Analysis {
    return this.visit(expr, variables);
  }

  private problem(exprId: bigint, message: string): ValueType {
    this.problems.push({ exprId, message });
    return ERRED;
  }

  private size(t: ValueType): number {
    return t.maxSize ?? this.sizeLimit;
  }

  private visit(expr: Expr, scope: Scope): Analysis {
    const k = expr.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        switch (c.case) {
          case 'boolValue':
            return { type: BOOL, cost: 0 };
          case 'int64Value':
            return { type: INT, cost: 0 };
          case 'uint64Value':
            return { type: { kind: 'uint' }, cost: 0 };
          case 'doubleValue':
            return { type: { kind: 'double' }, cost: 0 };
          case 'stringValue':
            return { type: { kind: 'string', maxSize: c.value.length }, cost: 0 };
          case 'bytesValue':
            return { type: { kind: 'bytes', maxSize: c.value.length }, cost: 0 };
          case 'nullValue':
            return { type: { kind: 'null_type' }, cost: 0 };
          default:
            return { type: DYN, cost: 0 };
        }
      }
      case 'identExpr': {
        const t = scope.get(k.value.name);
        if (t) {
          this.used.add(k.value.name);
          return { type: t, cost: 1 };
        }
        const asType = TYPE_NAMES.has(k.value.name);
        return {
          type: asType
            ? { kind: 'type' }
            : this.problem(expr.id, `undeclared reference to '${k.value.name}'`),
          cost: 1,
        };
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        if (!operand) return { type: DYN, cost: 1 };
        const o = this.visit(operand, scope);
        const type = this.field(expr.id, o.type, field);
        return { type: testOnly ? BOOL : type, cost: o.cost + 1 };
      }
      case 'listExpr': {
        let cost = 1;
        let elem: ValueType | undefined;
        for (const e of k.value.elements) {
          const a = this.visit(e, scope);
          cost += a.cost;
          elem = elem ? join(elem, a.type) : a.type;
        }
        return { type: { kind: 'list', elem: elem ?? DYN, maxSize: k.value.elements.length }, cost };
      }
      case 'structExpr': {
        let cost = 1;
        let value: ValueType | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') cost += this.visit(entry.keyKind.value, scope).cost;
          else this.problem(entry.id, 'message construction is not supported: use a map literal');
          if (entry.value) {
            const a = this.visit(entry.value, scope);
            cost += a.cost;
            value = value ? join(value, a.type) : a.type;
          }
        }
        return { type: { kind: 'map', value: value ?? DYN, maxSize: k.value.entries.length }, cost };
      }
      case 'comprehensionExpr':
        return this.comprehension(expr.id, k.value, scope);
      case 'callExpr':
        return this.call(expr, k.value, scope);
      default:
        return { type: this.problem(expr.id, 'unsupported expression'), cost: 1 };
    }
  }

  private field(id: bigint, t: ValueType, field: string): ValueType {
    switch (t.kind) {
      case 'object': {
        const p = t.properties.get(field);
        if (p) return p;
        const known = [...t.properties.keys()].slice(0, 12);
        return this.problem(
          id,
          `undefined field '${field}' (the schema names ${known.map((n) => `'${n}'`).join(', ')}${t.properties.size > known.length ? ', …' : ''})`,
        );
      }
      case 'map':
        return t.value;
      case 'dyn':
        // An empty value (a size of 0) has no member: selecting one errors.
        return t.maxSize === 0 ? ERRED : DYN;
      default:
        return this.problem(id, `type '${typeName(t)}' has no fields (selecting '${field}')`);
    }
  }

  private comprehension(
    id: bigint,
    c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'],
    scope: Scope,
  ): Analysis {
    if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) {
      return { type: this.problem(id, 'incomplete comprehension'), cost: 1 };
    }
    const range = this.visit(c.iterRange, scope);
    const n = this.size(range.type);
    let iter: ValueType;
    switch (range.type.kind) {
      case 'list':
        iter = range.type.elem;
        break;
      case 'map':
      case 'object':
        iter = { kind: 'string', maxSize: keySize(range.type) ?? this.sizeLimit };
        break;
      case 'dyn':
        iter = DYN;
        break;
      default:
        iter = this.problem(c.iterRange.id, `cannot iterate over '${typeName(range.type)}'`);
    }
    const init = this.visit(c.accuInit, scope);
    // map() and filter() grow a list from empty: it holds at most as many items as the range.
    const growing = init.type.kind === 'list' && init.type.maxSize === 0;
    const accuStart: ValueType = growing ? { kind: 'list', elem: DYN, maxSize: n } : init.type;
    const inner = new Map(scope);
    inner.set(c.iterVar, iter);
    inner.set(c.accuVar, accuStart);
    const cond = this.visit(c.loopCondition, inner);
    const step = this.visit(c.loopStep, inner);
    const accu: ValueType =
      growing && step.type.kind === 'list'
        ? { kind: 'list', elem: step.type.elem, maxSize: n }
        : join(accuStart, step.type);
    inner.set(c.accuVar, accu);
    const result = this.visit(c.result, inner);
    return {
      type: result.type,
      cost: sum(range.cost, init.cost, mul(n, sum(cond.cost, step.cost)), result.cost),
    };
  }

  private call(
    expr: Expr,
    call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'],
    scope: Scope,
  ): Analysis {
    const fn = call.function;
    const target = call.target ? this.visit(call.target, scope) : undefined;
    // The accumulator of map()/filter() grows by one item a step: no copy of the whole list.
    if (fn === '_+_' && isIdent(call.args[0], ACCUMULATOR) && call.args[1]) {
      const acc = scope.get(ACCUMULATOR) ?? DYN;
      const item = this.visit(call.args[1], scope);
      const elem = item.type.kind === 'list' ? item.type.elem : DYN;
      return { type: acc.kind === 'list' ? { ...acc, elem } : acc, cost: item.cost + 1 };
    }
    const args = call.args.map((a) => this.visit(a, scope));
    let cost = 1 + (target?.cost ?? 0);
    for (const a of args) cost = sum(cost, a.cost);
    const types = args.map((a) => a.type);
    const r = this.overload(expr.id, fn, target?.type, types, call.args);
    return { type: r.type, cost: sum(cost, r.cost) };
  }

  /** The result type of a function and its cost beyond evaluating its arguments. */
  private overload(
    id: bigint,
    fn: string,
    target: ValueType | undefined,
    args: ValueType[],
    argExprs: Expr[],
  ): { type: ValueType; cost: number } {
    const [a = DYN, b = DYN] = args;
    const noOverload = () =>
      this.problem(
        id,
        `found no matching overload for '${fn}' applied to '(${[...(target ? [target] : []), ...args].map(typeName).join(', ')})'`,
      );
    const tenth = (n: number) => Math.ceil(n / 10);
    switch (fn) {
      case '_&&_':
      case '_||_':
        return { type: isA(a, 'bool') && isA(b, 'bool') ? BOOL : noOverload(), cost: 0 };
      case '!_':
      case '@not_strictly_false':
        return { type: isA(a, 'bool') ? BOOL : noOverload(), cost: 0 };
      case '-_':
        return {
          type: a.kind === 'dyn' || NUMERIC.has(a.kind) || a.kind === 'duration' ? a : noOverload(),
          cost: 0,
        };
      case '_?_:_':
        return { type: isA(a, 'bool') ? join(b, args[2] ?? DYN) : noOverload(), cost: 0 };
      case '_==_':
      case '_!=_':
        return { type: BOOL, cost: tenth(Math.min(this.weight(a), this.weight(b))) };
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_':
        return {
          type: comparable(a, b) ? BOOL : noOverload(),
          cost: tenth(Math.min(this.weight(a), this.weight(b))),
        };
      case '_+_':
        return this.add(a, b, noOverload);
      case '_-_':
        if (bothNumeric(a, b) || both(a, b, 'duration')) return { type: a.kind === 'dyn' ? b : a, cost: 0 };
        if (isA(a, 'timestamp') && isA(b, 'timestamp')) return { type: { kind: 'duration' }, cost: 0 };
        if (isA(a, 'timestamp') && isA(b, 'duration')) return { type: { kind: 'timestamp' }, cost: 0 };
        return { type: noOverload(), cost: 0 };
      case '_*_':
      case '_/_':
        return { type: bothNumeric(a, b) ? (a.kind === 'dyn' ? b : a) : noOverload(), cost: 0 };
      case '_%_':
        return {
          type:
            (isA(a, 'int') && isA(b, 'int')) || both(a, b, 'uint')
              ? a.kind === 'dyn'
                ? b
                : a
              : noOverload(),
          cost: 0,
        };
      case '_[_]':
        return { type: this.index(id, a, b, argExprs[1]), cost: 0 };
      case '@in':
        if (b.kind === 'list') return { type: BOOL, cost: tenth(mul(this.size(b), this.weight(a))) + 1 };
        return {
          type: b.kind === 'map' || b.kind === 'object' || b.kind === 'dyn' ? BOOL : noOverload(),
          cost: 0,
        };
      case 'size': {
        const of = target ?? a;
        const ok = ['string', 'bytes', 'list', 'map', 'object', 'dyn'].includes(of.kind);
        return { type: ok ? INT : noOverload(), cost: 0 };
      }
      case 'contains':
      case 'startsWith':
      case 'endsWith':
        return {
          type:
            target && isA(target, 'string') && isA(a, 'string') && args.length === 1 ? BOOL : noOverload(),
          cost: tenth(this.size(target ?? DYN)),
        };
      case 'matches': {
        const [str, pattern] = target ? [target, a] : [a, b];
        if (!isA(str, 'string') || !isA(pattern, 'string')) return { type: noOverload(), cost: 0 };
        const literalExpr = argExprs[target ? 0 : 1];
        const literal = literalExpr?.exprKind;
        if (literal?.case === 'constExpr' && literal.value.constantKind.case === 'stringValue') {
          const pattern = literal.value.constantKind.value;
          // Refused now, where it is written, rather than on every value it is given.
          const wrong = patternProblem(pattern);
          if (wrong !== undefined)
            return {
              type: this.problem(literalExpr!.id, `matches() pattern is not valid RE2: ${wrong}`),
              cost: 0,
            };
          this.patterns.add(pattern);
        }
        // RE2 is linear in the text, with a factor growing with the pattern.
        return { type: BOOL, cost: mul(1 + tenth(this.size(str)), 1 + Math.ceil(this.size(pattern) / 4)) };
      }
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim':
        return this.stringMethod(target, args.length === 0, target, noOverload);
      case 'charAt':
        return this.stringMethod(
          target,
          args.length === 1 && isA(a, 'int'),
          { kind: 'string', maxSize: 1 },
          noOverload,
        );
      case 'indexOf':
      case 'lastIndexOf':
        return this.stringMethod(
          target,
          isA(a, 'string') && (args.length === 1 || isA(b, 'int')),
          INT,
          noOverload,
        );
      case 'substring':
        return this.stringMethod(
          target,
          isA(a, 'int') && (args.length === 1 || isA(b, 'int')),
          target,
          noOverload,
        );
      case 'replace': {
        const grown = target ? mul(this.size(target), Math.max(1, this.size(b))) : 0;
        return this.stringMethod(
          target,
          isA(a, 'string') && isA(b, 'string'),
          { kind: 'string', maxSize: grown },
          noOverload,
        );
      }
      case 'split': {
        const n = target ? this.size(target) + 1 : 0;
        return this.stringMethod(
          target,
          isA(a, 'string'),
          { kind: 'list', elem: target ?? STRING, maxSize: n },
          noOverload,
        );
      }
      case 'join': {
        if (!target || !(target.kind === 'dyn' || (target.kind === 'list' && isA(target.elem, 'string')))) {
          return { type: noOverload(), cost: 0 };
        }
        const total =
          target.kind === 'list'
            ? mul(this.size(target), this.size(target.elem) + this.size(a))
            : this.sizeLimit;
        return { type: { kind: 'string', maxSize: total }, cost: tenth(total) };
      }
      case 'format':
        return this.stringMethod(
          target,
          a.kind === 'list' || a.kind === 'dyn',
          { kind: 'string', maxSize: this.sizeLimit },
          noOverload,
        );
      case 'strings.quote':
        return {
          type: isA(a, 'string') ? { kind: 'string', maxSize: mul(this.size(a), 2) + 2 } : noOverload(),
          cost: tenth(this.size(a)),
        };
      case 'int':
      case 'uint':
      case 'double':
      case 'bool':
      case 'bytes':
      case 'duration':
      case 'timestamp':
        return {
          type: args.length === 1 && !target ? { kind: fn } : noOverload(),
          cost: tenth(this.weight(a)),
        };
      case 'string':
        return {
          type:
            args.length === 1 && !target
              ? { kind: 'string', maxSize: Math.max(this.weight(a), 32) }
              : noOverload(),
          cost: tenth(this.weight(a)),
        };
      case 'dyn':
        return { type: args.length === 1 ? { kind: 'dyn', maxSize: a.maxSize } : noOverload(), cost: 0 };
      case 'type':
        return { type: { kind: 'type' }, cost: 0 };
      case 'getFullYear':
      case 'getMonth':
      case 'getDate':
      case 'getDayOfMonth':
      case 'getDayOfWeek':
      case 'getDayOfYear':
      case 'getHours':
      case 'getMinutes':
      case 'getSeconds':
      case 'getMilliseconds':
        return {
          type: target && (isA(target, 'timestamp') || isA(target, 'duration')) ? INT : noOverload(),
          cost: 0,
        };
      default:
        return { type: this.problem(id, `undeclared reference to function '${fn}'`), cost: 0 };
    }
  }

  private stringMethod(
    target: ValueType | undefined,
    argsOk: boolean,
    result: ValueType | undefined,
    noOverload: () => ValueType,
  ): { type: ValueType; cost: number } {
    if (!target || !isA(target, 'string') || !argsOk || !result) return { type: noOverload(), cost: 0 };
    return { type: result, cost: Math.ceil(this.size(target) / 10) };
  }

  private add(a: ValueType, b: ValueType, noOverload: () => ValueType): { type: ValueType; cost: number } {
    if (bothNumeric(a, b) || both(a, b, 'duration')) return { type: a.kind === 'dyn' ? b : a, cost: 0 };
    if ((isA(a, 'timestamp') && isA(b, 'duration')) || (isA(a, 'duration') && isA(b, 'timestamp'))) {
      return { type: { kind: 'timestamp' }, cost: 0 };
    }
    const total = sum(this.size(a), this.size(b));
    for (const kind of ['string', 'bytes'] as const) {
      if (both(a, b, kind)) return { type: { kind, maxSize: total }, cost: Math.ceil(total / 10) };
    }
    if ((a.kind === 'list' || a.kind === 'dyn') && (b.kind === 'list' || b.kind === 'dyn')) {
      const elem =
        a.kind === 'list'
          ? b.kind === 'list'
            ? join(a.elem, b.elem)
            : a.elem
          : b.kind === 'list'
            ? b.elem
            : DYN;
      return { type: { kind: 'list', elem, maxSize: total }, cost: Math.ceil(total / 10) };
    }
    return { type: noOverload(), cost: 0 };
  }

  private index(id: bigint, on: ValueType, key: ValueType, keyExpr: Expr | undefined): ValueType {
    switch (on.kind) {
      case 'list':
        return isA(key, 'int') || isA(key, 'uint')
          ? on.elem
          : this.problem(id, `a list is indexed by an int, not '${typeName(key)}'`);
      case 'map':
        return isA(key, 'string')
          ? on.value
          : this.problem(id, `a map of this schema has string keys, not '${typeName(key)}'`);
      case 'object': {
        if (!isA(key, 'string'))
          return this.problem(id, `an object is indexed by a field name, not '${typeName(key)}'`);
        const k = keyExpr?.exprKind;
        if (k?.case === 'constExpr' && k.value.constantKind.case === 'stringValue')
          return this.field(id, on, k.value.constantKind.value);
        return on.exact ? anyMember(on) : DYN;
      }
      case 'dyn':
        return on.maxSize === 0 ? ERRED : DYN;
      default:
        return this.problem(id, `type '${typeName(on)}' cannot be indexed`);
    }
  }

  /** How many units comparing or copying a value of the type touches (its size, nested sizes multiplied). */
  private weight(t: ValueType, depth = 0): number {
    if (depth > 4) return this.size(t);
    switch (t.kind) {
      case 'string':
      case 'bytes':
        return this.size(t);
      case 'list':
        return mul(this.size(t), this.weight(t.elem, depth + 1));
      case 'map':
        return mul(this.size(t), this.weight(t.value, depth + 1) + 1);
      case 'object': {
        let w = 0;
        for (const p of t.properties.values()) w = sum(w, this.weight(p, depth + 1));
        return Math.max(w, 1);
      }
      case 'dyn':
        return t.maxSize ?? 1;
      default:
        return 1;
    }
  }
}

const TYPE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'string',
  'bool',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
]);

function isIdent(e: Expr | undefined, name: string): boolean {
  return e?.exprKind.case === 'identExpr' && e.exprKind.value.name === name;
}

function isA(t: ValueType, kind: ValueType['kind']): boolean {
  return t.kind === kind || t.kind === 'dyn';
}

function both(a: ValueType, b: ValueType, kind: ValueType['kind']): boolean {
  return isA(a, kind) && isA(b, kind) && (a.kind === kind || b.kind === kind || kind === 'dyn');
}

/** Arithmetic takes two numbers of one kind (CEL has no implicit conversion), or dyn. */
function bothNumeric(a: ValueType, b: ValueType): boolean {
  if (a.kind === 'dyn') return b.kind === 'dyn' || NUMERIC.has(b.kind);
  if (b.kind === 'dyn') return NUMERIC.has(a.kind);
  return NUMERIC.has(a.kind) && a.kind === b.kind;
}

/** Ordering: numbers of any kinds together (CEL compares them across kinds), or two of one kind. */
function comparable(a: ValueType, b: ValueType): boolean {
  if (a.kind === 'dyn' || b.kind === 'dyn') return true;
  if (NUMERIC.has(a.kind) && NUMERIC.has(b.kind)) return true;
  return a.kind === b.kind && ['string', 'bytes', 'bool', 'timestamp', 'duration'].includes(a.kind);
}

/** The longest key of an exact object (see `ValueType`); undefined when its keys are not known. */
function keySize(t: ValueType): number | undefined {
  if (t.kind !== 'object' || !t.exact) return undefined;
  let longest = 0;
  for (const k of t.properties.keys()) longest = Math.max(longest, k.length);
  return longest;
}

/** The type of any member of an exact object: a key it lacks errors, so nothing follows. */
function anyMember(t: Extract<ValueType, { kind: 'object' }>): ValueType {
  let member: ValueType | undefined;
  for (const p of t.properties.values()) member = member ? join(member, p) : p;
  return member ?? ERRED;
}

/**
 * The type of a value that is one of two: the same kind keeps its structure, else dyn. `a` itself
 * when `b` adds nothing to it, so sizing a long list of alike items makes no type per item.
 */
export function join(a: ValueType, b: ValueType): ValueType {
  if (a === b) return a;
  // A scalar has no size; a dyn without one may be of any size.
  const unknown = (t: ValueType) => t.maxSize === undefined && t.kind === 'dyn';
  const maxSize =
    unknown(a) || unknown(b) || (a.maxSize === undefined && b.maxSize === undefined)
      ? undefined
      : Math.max(a.maxSize ?? 0, b.maxSize ?? 0);
  if (a.kind !== b.kind)
    return a.kind === 'null_type' ? b : b.kind === 'null_type' ? a : { kind: 'dyn', maxSize };
  if (a.kind === 'list' && b.kind === 'list') {
    const elem = join(a.elem, b.elem);
    return elem === a.elem && maxSize === a.maxSize ? a : { kind: 'list', elem, maxSize };
  }
  if (a.kind === 'map' && b.kind === 'map') {
    const value = join(a.value, b.value);
    return value === a.value && maxSize === a.maxSize ? a : { kind: 'map', value, maxSize };
  }
  if (a.kind === 'object' && b.kind === 'object') {
    let properties: Map<string, ValueType> | undefined;
    for (const [k, v] of b.properties) {
      const mine = a.properties.get(k);
      const joined = mine ? join(mine, v) : v;
      if (joined !== mine) (properties ??= new Map(a.properties)).set(k, joined);
    }
    // Either one's members, and no other: still exact.
    const exact = a.exact === true && b.exact === true;
    if (!properties && maxSize === a.maxSize && exact === (a.exact === true)) return a;
    return { kind: 'object', properties: properties ?? a.properties, maxSize, ...(exact ? { exact } : {}) };
  }
  return maxSize === a.maxSize ? a : ({ ...a, maxSize } as ValueType);
}

const SATURATED = Number.MAX_SAFE_INTEGER;

export function sum(...xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return Math.min(s, SATURATED);
}

export function mul(a: number, b: number): number {
  return Math.min(a * b, SATURATED);
}
