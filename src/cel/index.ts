/**
 * @module The one CEL evaluator of the project (schema rules, admission policies): compile an
 * expression against typed variables — located problems, a worst-case cost — and evaluate it under a
 * request's cost budget. Pure, no I/O; the lowest layer (schema, registry, engine and policy use it).
 *
 * @example
 * const self = typeFromSchema({ type: 'object', properties: { min: { type: 'integer' }, max: { type: 'integer' } } });
 * const r = compileExpression('self.min <= self.max', { self }, { expect: 'bool' });
 * if (r.ok) r.expression.evaluate({ self: toCel({ min: 1, max: 3 }, self) }, { remaining: REQUEST_COST_BUDGET });
 */
export {
  CALL_COST_LIMIT,
  compileExpression,
  EXPRESSION_COST_LIMIT,
  MAX_EXPRESSION_LENGTH,
  REQUEST_COST_BUDGET,
  type CelVariables,
  type CompiledExpression,
  type CompileOptions,
  type CompileProblem,
  type CompileResult,
  type CostBudget,
  type EvaluationResult,
} from './compile.js';
export { DEFAULT_SIZE_LIMIT, DYN, typeFromSchema, typeName, type ValueType } from './types.js';
export { fromCel, sizedType, toCel } from './values.js';
export { celCounters } from './counters.js';
