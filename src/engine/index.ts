/**
 * @module The resource engine.
 */
export {
  Engine,
  DEFAULT_MAX_RESULTS,
  MAX_RESULTS_LIMIT,
  type EngineOptions,
  type EngineLogger,
} from './engine.js';
export { engineLogger } from './logger.js';
export { checkConsistency, type ConsistencyProblem } from './consistency.js';
export * from './types.js';
