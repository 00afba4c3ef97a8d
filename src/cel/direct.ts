/**
 * @module Direct evaluation: an expression's common cases compiled into plain JavaScript closures.
 * @bufbuild/cel's interpreter resolves every variable, field and overload at run time (a rule such
 * as `self.MaxReplicas <= 100` takes about a microsecond); typical schema rules and admission
 * policies — comparisons, field selection, `has`, `size`, `in`, string tests, `matches`, `split`,
 * `all`/`exists` — run here a few times faster, on the same CEL values (see `toCel`).
 *
 * It is a fast path, never a second meaning: an operation on anything but its ordinary operands (two
 * ints, two strings, a map and one of its keys, …) — whatever would be an error, an overflow, a type
 * mismatch, a missing field — stops it, and the interpreter evaluates the expression from the start
 * for its value or its error. An expression using anything not handled here is not compiled at all.
 * Stopping late costs at most the work twice, never more than twice the bound the budget was charged.
 */
import type { Expr } from './analyze.js';
import { re2 } from './patterns.js';

/** The expression's value from its variables' values, or a throw: the interpreter must decide. */
export type DirectEvaluation = (bindings: Readonly<Record<string, unknown>>) => unknown;

type Frame = unknown[];
type Fn = (frame: Frame) => unknown;

/** Thrown to hand an evaluation to the interpreter (made once: throwing it records no stack). */
const INTERPRET = new Error('evaluated by the interpreter');

function interpret(): never {
  throw INTERPRET;
}

const SCALAR_CONSTANTS = new Set(['boolValue', 'int64Value', 'doubleValue', 'stringValue']);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The expression compiled to closures, or undefined when it uses something only the interpreter
 * evaluates. The closures' value is a scalar (a list or map result is left to the interpreter, whose
 * values the callers read).
 */
export function compileDirect(expr: Expr, variables: readonly string[]): DirectEvaluation | undefined {
  const compiler = new Compiler();
  const scope = new Map(variables.map((name, i) => [name, i]));
  compiler.slots = variables.length;
  let root: Fn | undefined;
  try {
    root = compiler.compile(expr, scope);
  } catch (e) {
    // Nested deeper than this walk can go: the interpreter's, whatever it makes of it.
    if (e instanceof RangeError) return undefined;
    throw e;
  }
  if (!root) return undefined;
  const slots = compiler.slots;
  return (bindings) => {
    const frame: Frame = new Array<unknown>(slots);
    for (let i = 0; i < variables.length; i++) frame[i] = bindings[variables[i]!];
    const value = root(frame);
    return typeof value === 'object' && value !== null ? interpret() : value;
  };
}

class Compiler {
  slots = 0;

  compile(expr: Expr, scope: ReadonlyMap<string, number>): Fn | undefined {
    const k = expr.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        if (c.case === 'nullValue') return () => null;
        // Uints, bytes, durations, timestamps are values of their own in CEL: the interpreter's.
        if (!SCALAR_CONSTANTS.has(c.case ?? '')) return undefined;
        const v = c.value;
        return () => v;
      }
      case 'identExpr': {
        const slot = scope.get(k.value.name);
        if (slot === undefined) return undefined;
        return (f) => {
          const v = f[slot];
          return v === undefined ? interpret() : v;
        };
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        const of = operand && this.compile(operand, scope);
        if (!of) return undefined;
        if (testOnly) {
          return (f) => {
            const m = of(f);
            if (!(m instanceof Map)) return interpret();
            const v: unknown = m.get(field);
            // A member set to null: the interpreter's answer.
            return v === null ? interpret() : v !== undefined;
          };
        }
        return (f) => member(of(f), field);
      }
      case 'listExpr': {
        if (k.value.optionalIndices.length > 0) return undefined;
        const items = this.all(k.value.elements, scope);
        return items && ((f) => items.map((item) => item(f)));
      }
      case 'comprehensionExpr':
        return this.comprehension(k.value, scope);
      case 'callExpr':
        return this.call(k.value, scope);
      default:
        return undefined;
    }
  }

  private all(exprs: readonly Expr[], scope: ReadonlyMap<string, number>): Fn[] | undefined {
    const fns: Fn[] = [];
    for (const e of exprs) {
      const fn = this.compile(e, scope);
      if (!fn) return undefined;
      fns.push(fn);
    }
    return fns;
  }

  private comprehension(
    c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'],
    scope: ReadonlyMap<string, number>,
  ): Fn | undefined {
    if (c.iterVar2 || !c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) {
      return undefined;
    }
    const range = this.compile(c.iterRange, scope);
    const init = this.compile(c.accuInit, scope);
    const inner = new Map(scope);
    const iterSlot = this.slots++;
    const accuSlot = this.slots++;
    inner.set(c.iterVar, iterSlot);
    inner.set(c.accuVar, accuSlot);
    const cond = this.compile(c.loopCondition, inner);
    const step = this.compile(c.loopStep, inner);
    const result = this.compile(c.result, new Map(scope).set(c.accuVar, accuSlot));
    if (!range || !init || !cond || !step || !result) return undefined;
    return (f) => {
      f[accuSlot] = init(f);
      const r = range(f);
      const items = Array.isArray(r) ? r : r instanceof Map ? [...r.keys()] : interpret();
      for (const item of items) {
        f[iterSlot] = item;
        if (!bool(cond(f))) break;
        f[accuSlot] = step(f);
      }
      return result(f);
    };
  }

  private call(
    call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'],
    scope: ReadonlyMap<string, number>,
  ): Fn | undefined {
    const target = call.target && this.compile(call.target, scope);
    if (call.target && !target) return undefined;
    const args = this.all(call.args, scope);
    if (!args) return undefined;
    if (target) return method(call.function, target, args);
    const [a, b, c] = args;
    // map() and filter() step `@result + [item]`: their accumulator is a list made for this run of
    // the comprehension and read by no one else until it ends, so it grows in place. Copied each
    // step, a map over n items would do n²/2 copies for the n units it is charged.
    if (call.function === '_+_' && isAccumulator(call.args[0]) && a && b) return (f) => append(a(f), b(f));
    if (args.length === 1 && a) return unary(call.function, a);
    if (args.length === 2 && a && b) return binary(call.function, a, b);
    if (call.function === '_?_:_' && a && b && c) return (f) => (bool(a(f)) ? b(f) : c(f));
    return undefined;
  }
}

function unary(fn: string, a: Fn): Fn | undefined {
  switch (fn) {
    case '!_':
      return (f) => !bool(a(f));
    case '@not_strictly_false':
      return (f) => bool(a(f));
    case '-_':
      return (f) => {
        const x = a(f);
        if (typeof x === 'number') return -x;
        return typeof x === 'bigint' ? int64(-x) : interpret();
      };
    case 'size':
      return (f) => size(a(f));
    case 'string':
      return (f) => {
        const x = a(f);
        if (typeof x === 'string') return x;
        return typeof x === 'bigint' ? x.toString() : interpret();
      };
    case 'int':
      return (f) => {
        const x = a(f);
        return typeof x === 'bigint' ? x : interpret();
      };
    case 'double':
      return (f) => {
        const x = a(f);
        return typeof x === 'number' ? x : interpret();
      };
    default:
      return undefined;
  }
}

function binary(fn: string, a: Fn, b: Fn): Fn | undefined {
  switch (fn) {
    case '_&&_':
      return (f) => bool(a(f)) && bool(b(f));
    case '_||_':
      return (f) => bool(a(f)) || bool(b(f));
    case '_==_':
      return (f) => equal(a(f), b(f));
    case '_!=_':
      return (f) => !equal(a(f), b(f));
    case '_<_':
      return (f) => {
        const x = a(f);
        const y = b(f);
        return ordered(x, y) && x < (y as number);
      };
    case '_<=_':
      return (f) => {
        const x = a(f);
        const y = b(f);
        return ordered(x, y) && x <= (y as number);
      };
    case '_>_':
      return (f) => {
        const x = a(f);
        const y = b(f);
        return ordered(x, y) && x > (y as number);
      };
    case '_>=_':
      return (f) => {
        const x = a(f);
        const y = b(f);
        return ordered(x, y) && x >= (y as number);
      };
    case '_+_':
      return (f) => add(a(f), b(f));
    case '_-_':
      return (f) =>
        arithmetic(
          a(f),
          b(f),
          (x, y) => x - y,
          (x, y) => x - y,
        );
    case '_*_':
      return (f) =>
        arithmetic(
          a(f),
          b(f),
          (x, y) => x * y,
          (x, y) => x * y,
        );
    case '_/_':
      return (f) =>
        arithmetic(
          a(f),
          b(f),
          (x, y) => (y === 0n ? interpret() : x / y),
          (x, y) => (y === 0 ? interpret() : x / y),
        );
    case '_%_':
      return (f) => arithmetic(a(f), b(f), (x, y) => (y === 0n ? interpret() : x % y), interpret);
    case '_[_]':
      return (f) => index(a(f), b(f));
    case '@in':
      return (f) => contained(a(f), b(f));
    case 'matches':
      return (f) => matches(a(f), b(f));
    default:
      return undefined;
  }
}

function method(fn: string, target: Fn, args: Fn[]): Fn | undefined {
  const [a] = args;
  if (args.length === 0) return fn === 'size' ? (f) => size(target(f)) : undefined;
  if (args.length !== 1 || !a) return undefined;
  const strings = (test: (s: string, t: string) => boolean): Fn => {
    return (f) => {
      const s = target(f);
      const t = a(f);
      return typeof s === 'string' && typeof t === 'string' ? test(s, t) : interpret();
    };
  };
  switch (fn) {
    case 'startsWith':
      return strings((s, t) => s.startsWith(t));
    case 'endsWith':
      return strings((s, t) => s.endsWith(t));
    case 'contains':
      return strings((s, t) => s.includes(t));
    case 'matches':
      return (f) => matches(target(f), a(f));
    case 'split':
      return (f) => split(target(f), a(f));
    default:
      return undefined;
  }
}

function bool(v: unknown): boolean {
  return typeof v === 'boolean' ? v : interpret();
}

function member(m: unknown, field: string): unknown {
  if (!(m instanceof Map)) return interpret();
  const v: unknown = m.get(field);
  return v === undefined ? interpret() : v;
}

/**
 * CEL's equality on scalars, null among them: an int equals the double of its value, values of other
 * kinds are never equal (`null == 'a'` is false). Lists and maps are interpreted.
 */
function equal(x: unknown, y: unknown): boolean {
  const tx = typeof x;
  const ty = typeof y;
  if ((tx === 'bigint' || tx === 'number') && (ty === 'bigint' || ty === 'number')) return x == y;
  return scalar(x) && scalar(y) ? x === y : interpret();
}

function scalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

/** Whether CEL orders the two as JavaScript does: both ints, doubles, strings or bools (else interpreted). */
function ordered(x: unknown, y: unknown): x is number {
  const t = typeof x;
  if (t === typeof y && (t === 'bigint' || t === 'number' || t === 'string' || t === 'boolean')) return true;
  return interpret();
}

function int64(n: bigint): bigint {
  return n < INT64_MIN || n > INT64_MAX ? interpret() : n;
}

function arithmetic(
  x: unknown,
  y: unknown,
  ints: (x: bigint, y: bigint) => bigint,
  doubles: (x: number, y: number) => number,
): bigint | number {
  if (typeof x === 'bigint' && typeof y === 'bigint') return int64(ints(x, y));
  if (typeof x === 'number' && typeof y === 'number') return doubles(x, y);
  return interpret();
}

/** `@result + items`, the accumulator grown in place (see Compiler.call). */
function append(list: unknown, items: unknown): unknown {
  if (!Array.isArray(list) || !Array.isArray(items)) return add(list, items);
  for (const item of items as unknown[]) (list as unknown[]).push(item);
  return list;
}

/** The accumulator of map() and filter() (a name no expression can write). */
function isAccumulator(e: Expr | undefined): boolean {
  return e?.exprKind.case === 'identExpr' && e.exprKind.value.name === '@result';
}

function add(x: unknown, y: unknown): unknown {
  if (typeof x === 'string' && typeof y === 'string') return x + y;
  if (Array.isArray(x) && Array.isArray(y)) return [...(x as unknown[]), ...(y as unknown[])];
  return arithmetic(
    x,
    y,
    (a, b) => a + b,
    (a, b) => a + b,
  );
}

/** The number of code points of a string (as CEL counts), items of a list, members of a map. */
function size(v: unknown): bigint {
  if (typeof v === 'string') {
    let n = v.length;
    for (let i = 0; i < v.length - 1; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = v.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          n--;
          i++;
        }
      }
    }
    return BigInt(n);
  }
  if (Array.isArray(v)) return BigInt(v.length);
  return v instanceof Map ? BigInt(v.size) : interpret();
}

function index(of: unknown, at: unknown): unknown {
  if (Array.isArray(of) && typeof at === 'bigint' && at >= 0n && at < BigInt(of.length)) {
    return of[Number(at)] as unknown;
  }
  return typeof at === 'string' ? member(of, at) : interpret();
}

function contained(x: unknown, of: unknown): boolean {
  if (Array.isArray(of)) {
    for (const item of of) if (equal(x, item)) return true;
    return false;
  }
  if (!(of instanceof Map) || typeof x !== 'string') return interpret();
  const v: unknown = of.get(x);
  // A member set to null: the interpreter's answer.
  return v === null ? interpret() : v !== undefined;
}

function matches(s: unknown, pattern: unknown): boolean {
  return typeof s === 'string' && typeof pattern === 'string' ? re2.compile(pattern).test(s) : interpret();
}

/**
 * `s.split(sep)` (the strings extension's) where JavaScript splits as CEL does: a separator that is
 * not empty and holds no surrogate never matches inside a character, so the pieces are whole code
 * points, as CEL's UTF-8 strings split. An empty separator (split into characters) is interpreted.
 */
function split(s: unknown, sep: unknown): string[] {
  if (typeof s !== 'string' || typeof sep !== 'string' || sep === '' || SURROGATE.test(sep))
    return interpret();
  return s.split(sep);
}

const SURROGATE = /[\ud800-\udfff]/;
