/**
 * @module What one evaluation of an expression is charged, before it runs: an upper bound of its
 * cost on the values it is given. The static estimate bounds every value the variables' types allow
 * — for an admission policy's `dyn` variables, anything up to the largest request body, millions of
 * units for a tag check — so charging it would spend the request's budget on sizes the values do
 * not have. A large static estimate is therefore refined: by the estimate at the size the values
 * have in all (made when the expression is compiled, a few sizes, so typical changes cost no second
 * walk), else by the estimate over the values' own sizes (`sizedType`).
 */
import type { CelInput } from '@bufbuild/cel';
import { Analyzer, type Expr } from './analyze.js';
import type { ValueType } from './types.js';
import { jsonSize, sizedType } from './values.js';

/**
 * A charge this small is taken as it is: estimating again over the values would give back too
 * little of the request's budget (a thousandth) to be worth the time.
 */
export const SMALL_ESTIMATE = 10_000;

/** The sizes, in JSON, of values whose estimates are made when an expression is compiled. */
const SIZES = [256, 1024, 4096];
const LARGEST = SIZES[SIZES.length - 1]!;

type Variables = Readonly<Record<string, ValueType>>;

/** What an evaluation of `expr` is charged with these bindings; `cost` is its static estimate. */
export type Charge = (bindings: Readonly<Record<string, CelInput>>) => number;

export function chargeOf(expr: Expr, variables: Variables, cost: number, sizeLimit: number): Charge {
  if (cost <= SMALL_ESTIMATE) return () => cost;
  const names = Object.keys(variables);
  // Only the variables whose types leave a size open are measured: a typed or sized one (a policy's
  // `request`, its `params`) is the same at any size.
  const open = names.filter((name) => isOpen(variables[name]!, new Set()));
  const bySize = SIZES.map((size) => (size < sizeLimit ? estimate(expr, variables, size) : cost));
  return (bindings) => {
    let size = 0;
    for (const name of open)
      if (Object.hasOwn(bindings, name)) size = Math.max(size, jsonSize(bindings[name]!, LARGEST));
    for (let i = 0; i < SIZES.length; i++)
      if (SIZES[i]! >= size) {
        if (bySize[i]! <= SMALL_ESTIMATE) return bySize[i]!;
        break;
      }
    return Math.min(cost, estimate(expr, sized(variables, names, bindings), sizeLimit));
  };
}

/** The estimate of `expr` were its variables of these types, what they leave open of `sizeLimit`. */
export function estimate(expr: Expr, variables: Variables, sizeLimit: number): number {
  return new Analyzer(sizeLimit).run(expr, new Map(Object.entries(variables))).cost;
}

/** The variables' types with the sizes the bound values have. */
function sized(
  variables: Variables,
  names: readonly string[],
  bindings: Readonly<Record<string, CelInput>>,
): Variables {
  const types: Record<string, ValueType> = {};
  for (const name of names) {
    const declared = variables[name]!;
    types[name] = Object.hasOwn(bindings, name) ? sizedType(declared, bindings[name] ?? null) : declared;
  }
  return types;
}

/** Whether a value of the type may hold a string, list or map whose size the type does not bound. */
function isOpen(t: ValueType, seen: Set<ValueType>): boolean {
  if (seen.has(t)) return false;
  seen.add(t);
  switch (t.kind) {
    case 'dyn':
    case 'string':
    case 'bytes':
      return t.maxSize === undefined;
    case 'list':
      return t.maxSize === undefined || isOpen(t.elem, seen);
    case 'map':
      // Its keys are of any length.
      return true;
    case 'object':
      // A schema's object may have members it does not name, and keys of any length.
      if (!t.exact) return true;
      for (const p of t.properties.values()) if (isOpen(p, seen)) return true;
      return false;
    default:
      return false;
  }
}
