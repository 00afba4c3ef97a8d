/**
 * @module The resource engine: its public API. Everything else in this folder is its inside.
 */
export { Engine, type EngineOptions } from './engine.js';
export { scopedClientToken, type Caller } from './caller.js';
export { DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT } from './input.js';
export { engineLogger, type EngineLogger } from './logger.js';
export { alsoOnEnd, type EndedOperation, type EngineObserver } from './observer.js';
export {
  collectReviews,
  collectingVerdicts,
  reviewsWhileStarting,
  type ReviewedBy,
  type ReviewedChange,
  type Reviewer,
  type ReviewRequest,
} from './review.js';
export { ClientTokenReused, canonicalJson } from './client-token.js';
export { maskQuoted, maskedForms, resourceWithSecrets } from './sealing.js';
export { UnsupportedAction } from './admission.js';
export { refusedEvent } from './refused.js';
export { newRequestToken } from './request-token.js';
export { checkConsistency, type ConsistencyProblem } from './consistency.js';
export type { ResourceList } from './read.js';
export { matches, parseFilters, type ListFilter } from './list-filter.js';
export * from './types.js';
