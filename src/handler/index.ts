/**
 * @module The handler contract: what the engine hands a provider and what a provider answers. It lies
 * below both: the engine calls it, providers implement it, and neither reaches into the other.
 */
export * from './types.js';
export { raceAbort } from './abort.js';
export { CALL_LIMITS, callLimitOf, tooSlow, type CallLimits } from './limits.js';
export * from './hook.js';
