/**
 * @module Where an expression reads a variable that may be `null` without first making sure it is
 * not: the reads a type checker of optionals would refuse. Kubernetes types `oldSelf` of an
 * `optionalOldSelf` rule as an optional, so `self >= oldSelf` does not compile there; this library
 * has no optionals (`oldSelf` is `null` instead), hence this check, which gives the same verdict.
 *
 * A read is guarded where the expression can only get to it when the variable is not null:
 * `x == null || …x…`, `x != null && …x…`, `x == null ? … : …x…`, `x != null ? …x… : …` (either side
 * of `||` and `&&`, as CEL's are commutative: an error on one side is absorbed when the other decides),
 * negations of those, and comparing it with null (`x == null`, `x != null`) is no read.
 */
import type { Expr } from './analyze.js';

/** The ids of the sub-expressions that read `name` where it may be null. */
export function unguardedReads(expr: Expr, name: string): bigint[] {
  const found: bigint[] = [];
  walk(expr, name, false, found);
  return found;
}

function walk(expr: Expr, name: string, safe: boolean, found: bigint[]): void {
  const k = expr.exprKind;
  switch (k.case) {
    case 'identExpr':
      if (k.value.name === name && !safe) found.push(expr.id);
      return;
    case 'selectExpr':
      if (k.value.operand) walk(k.value.operand, name, safe, found);
      return;
    case 'listExpr':
      for (const e of k.value.elements) walk(e, name, safe, found);
      return;
    case 'structExpr':
      for (const entry of k.value.entries) {
        if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, name, safe, found);
        if (entry.value) walk(entry.value, name, safe, found);
      }
      return;
    case 'comprehensionExpr': {
      const c = k.value;
      if (c.iterRange) walk(c.iterRange, name, safe, found);
      if (c.accuInit) walk(c.accuInit, name, safe, found);
      // A loop variable of the same name hides the one checked here.
      if (c.iterVar === name || c.accuVar === name) return;
      for (const e of [c.loopCondition, c.loopStep, c.result]) if (e) walk(e, name, safe, found);
      return;
    }
    case 'callExpr': {
      const { function: fn, args, target } = k.value;
      if ((fn === '_==_' || fn === '_!=_') && args.length === 2 && comparedWithNull(args, name)) return;
      if ((fn === '_||_' || fn === '_&&_') && args.length === 2) {
        // Each side runs knowing the other did not decide: false for ||, true for &&.
        const decides = fn === '_&&_';
        walk(args[0]!, name, safe || notNullWhen(args[1]!, name, decides), found);
        walk(args[1]!, name, safe || notNullWhen(args[0]!, name, decides), found);
        return;
      }
      if (fn === '_?_:_' && args.length === 3) {
        walk(args[0]!, name, safe, found);
        walk(args[1]!, name, safe || notNullWhen(args[0]!, name, true), found);
        walk(args[2]!, name, safe || notNullWhen(args[0]!, name, false), found);
        return;
      }
      if (target) walk(target, name, safe, found);
      for (const a of args) walk(a, name, safe, found);
      return;
    }
    default:
      return;
  }
}

/** Whether `expr` having the value `when` means `name` is not null. */
function notNullWhen(expr: Expr, name: string, when: boolean): boolean {
  const k = expr.exprKind;
  if (k.case !== 'callExpr') return false;
  const { function: fn, args } = k.value;
  if (fn === '!_' && args.length === 1) return notNullWhen(args[0]!, name, !when);
  if ((fn === '_==_' || fn === '_!=_') && args.length === 2 && comparedWithNull(args, name))
    return (fn === '_!=_') === when;
  if ((fn === '_&&_' || fn === '_||_') && args.length === 2) {
    const [a, b] = [notNullWhen(args[0]!, name, when), notNullWhen(args[1]!, name, when)];
    // a && b true: both are; false: either may be. Dually for ||.
    return (fn === '_&&_') === when ? a || b : a && b;
  }
  return false;
}

function comparedWithNull(args: readonly Expr[], name: string): boolean {
  const [a, b] = args as [Expr, Expr];
  return (isIdent(a, name) && isNull(b)) || (isNull(a) && isIdent(b, name));
}

function isIdent(e: Expr, name: string): boolean {
  return e.exprKind.case === 'identExpr' && e.exprKind.value.name === name;
}

function isNull(e: Expr): boolean {
  return e.exprKind.case === 'constExpr' && e.exprKind.value.constantKind.case === 'nullValue';
}
