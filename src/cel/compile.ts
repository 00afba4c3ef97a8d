/**
 * @module Compile a CEL expression once — parse, type-check against declared variables, estimate its
 * worst-case cost, plan its evaluation — and evaluate it many times under a per-request cost budget.
 * Its common cases run as closures (direct.ts), the rest and every error on @bufbuild/cel's
 * interpreter; its literal `matches()` patterns are compiled once (patterns.ts). Pure: CEL here has
 * no function that reads a clock, a file or the network.
 */
import type { CelEnv, CelInput, CelValue } from '@bufbuild/cel';
import { cel, celExt } from './package.js';
import { Analyzer } from './analyze.js';
import { chargeOf, estimate } from './charge.js';
import { keptPatterns, re2, withPatterns } from './patterns.js';
import { compileDirect } from './direct.js';
import { unguardedReads } from './null-guards.js';
import { celCounters } from './counters.js';
import { DEFAULT_SIZE_LIMIT, typeName, type ValueType } from './types.js';

export type CelVariables = Readonly<Record<string, ValueType>>;

/** A problem in an expression, located in its text (line and column count from 1). */
export interface CompileProblem {
  message: string;
  offset: number;
  line: number;
  column: number;
}

export type CompileResult =
  { ok: true; expression: CompiledExpression } | { ok: false; problems: CompileProblem[] };

/** A request's cost budget, shared by every expression evaluated for it (each takes its share). */
export interface CostBudget {
  remaining: number;
  /** What the budget is, as a refusal names it (default: the request's budget of REQUEST_COST_BUDGET). */
  of?: string;
}

export type EvaluationResult =
  | { ok: true; value: CelValue }
  /** `cost`: refused before evaluating, the values are too large for the budget left; `error`: CEL's own. */
  | { ok: false; kind: 'cost' | 'error'; message: string };

export interface CompiledExpression {
  readonly source: string;
  readonly variables: CelVariables;
  /** The type of its value. */
  readonly type: ValueType;
  /** The most evaluating it can cost, over the largest values its variables' types allow. */
  readonly cost: number;
  /** The variables it reads (a rule that reads `oldSelf` is a transition rule). */
  readonly uses: ReadonlySet<string>;
  /**
   * Its cost estimated were its variables of these types, what they leave unbounded taken to be of
   * `sizeLimit` (`cost` is this over the declared types and the compile's size limit).
   */
  estimate(variables: CelVariables, sizeLimit: number): number;
  /**
   * Its value with these bindings (CEL values, see `toCel`), the cost taken from `budget` before it
   * runs: a bound of it on these values (see charge.ts); refused without evaluating when that is
   * more than the budget left or the `callLimit`.
   */
  evaluate(bindings: Readonly<Record<string, CelInput>>, budget: CostBudget): EvaluationResult;
}

export interface CompileOptions {
  /** The kind of value it must have (`dyn` passes and is checked when evaluated). */
  expect?: 'bool' | 'string';
  /** The size of what the variables' types leave unbounded (the largest request body). */
  sizeLimit?: number;
  /**
   * The most one evaluation may be charged (Kubernetes' PerCallLimit; admission policies', whose
   * values only the request body bounds): a costlier one is refused as an overrun budget is.
   */
  callLimit?: number;
  /**
   * Variables that may be `null`, each with what to do about a read that does not first make sure it
   * is not (refused: a type checker of optionals would refuse it).
   */
  nullable?: Readonly<Record<string, string>>;
}

/** Longer expressions are refused before parsing (Kubernetes' rules are a line or a few). */
export const MAX_EXPRESSION_LENGTH = 8192;

/**
 * Kubernetes' limits, in its units: a rule's static estimate (StaticEstimatedCostLimit) and what all
 * the evaluations for one request may cost (RuntimeCELCostBudget).
 */
export const EXPRESSION_COST_LIMIT = 10_000_000;
export const REQUEST_COST_BUDGET = 10_000_000;
/** Kubernetes' PerCallLimit: what one evaluation of an admission policy's expression may cost. */
export const CALL_COST_LIMIT = 1_000_000;

let env: CelEnv | undefined;

export function compileExpression(
  source: string,
  variables: CelVariables,
  options: CompileOptions = {},
): CompileResult {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    return fail(
      source,
      0,
      `the expression is ${source.length} characters long, more than ${MAX_EXPRESSION_LENGTH}; split it into several`,
    );
  }
  if (source.trim() === '') return fail(source, 0, 'the expression is empty');
  const { parse, plan, isCelError, celEnv } = cel();
  env ??= celEnv({ funcs: celExt().strings, re2 });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (e) {
    const at = (e as { location?: { start?: { offset?: number } } }).location?.start?.offset;
    const raw = (e as { rawMessage?: string }).rawMessage;
    if (e instanceof RangeError) return fail(source, 0, 'the expression is nested too deeply to parse');
    return fail(source, at ?? 0, `syntax error: ${raw ?? (e as Error).message}`);
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const where = (id: bigint): number => positions[String(id)] ?? 0;
  const analyzer = new Analyzer(options.sizeLimit ?? DEFAULT_SIZE_LIMIT);
  let analysis: ReturnType<Analyzer['run']>;
  try {
    analysis = analyzer.run(parsed.expr, new Map(Object.entries(variables)));
  } catch (e) {
    if (e instanceof RangeError) return fail(source, 0, 'the expression is nested too deeply to check');
    throw e;
  }
  const problems = analyzer.problems.map((p) => locate(source, where(p.exprId), p.message));
  const want = options.expect;
  if (want && analysis.type.kind !== want && analysis.type.kind !== 'dyn' && problems.length === 0) {
    problems.push(
      locate(
        source,
        where(parsed.expr.id),
        `the expression's value must be a ${want}, not ${typeName(analysis.type)}`,
      ),
    );
  }
  for (const [name, fix] of Object.entries(options.nullable ?? {})) {
    if (problems.length > 0) break;
    for (const id of unguardedReads(parsed.expr, name)) problems.push(locate(source, where(id), fix));
  }
  if (problems.length > 0) return { ok: false, problems };
  const names = Object.keys(variables);
  const run = plan(env, parsed.expr);
  celCounters.plans++;
  const direct = compileDirect(parsed.expr, names);
  const patterns = keptPatterns(analyzer.patterns);
  const cost = analysis.cost;
  const callLimit = options.callLimit ?? Infinity;
  const charge = chargeOf(parsed.expr, variables, cost, options.sizeLimit ?? DEFAULT_SIZE_LIMIT);
  const expression: CompiledExpression = {
    source,
    variables,
    type: analysis.type,
    cost,
    uses: analyzer.used,
    estimate: (types, sizeLimit) => estimate(parsed.expr, types, sizeLimit),
    evaluate(bindings, budget) {
      const bound = charge(bindings);
      if (bound > budget.remaining || bound > callLimit) {
        return {
          ok: false,
          kind: 'cost',
          message:
            bound > callLimit
              ? `evaluating it on these values could cost ${bound} units, more than the ${callLimit} one expression may cost; make the values smaller`
              : `evaluating it on these values could cost ${bound} units, more than the ${budget.remaining} left of ${budget.of ?? `the request's budget of ${REQUEST_COST_BUDGET}`}; make the values smaller`,
        };
      }
      budget.remaining -= bound;
      let value: unknown;
      try {
        value = withPatterns(patterns, () => {
          if (direct) {
            try {
              return direct(bindings);
            } catch {
              // Not an ordinary case: the interpreter gives the value or the error.
            }
          }
          celCounters.interpreted++;
          return withoutStacks(() => run(bindings as Record<string, CelInput>));
        });
      } catch (e) {
        return {
          ok: false,
          kind: 'error',
          message:
            e instanceof RangeError ? 'the values are nested too deeply' : String((e as Error).message),
        };
      }
      if (isCelError(value)) return { ok: false, kind: 'error', message: value.message };
      if (want && typeof value !== (want === 'bool' ? 'boolean' : 'string')) {
        return { ok: false, kind: 'error', message: `its value must be a ${want}` };
      }
      return { ok: true, value: value as CelValue };
    },
  };
  return { ok: true, expression };
}

/**
 * `run` without stack traces. The interpreter makes a CEL error, an Error, for each item of a list
 * an expression fails on; their stacks are never read, and recording them was most of the time:
 * 100,000 items that each fail took 3.6 s with them, about 0.5 s without.
 */
function withoutStacks<T>(run: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return run();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function fail(source: string, offset: number, message: string): CompileResult {
  return { ok: false, problems: [locate(source, offset, message)] };
}

function locate(source: string, offset: number, message: string): CompileProblem {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { message, offset, line, column: offset - lineStart + 1 };
}
