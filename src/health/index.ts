/**
 * @module Health: liveness and readiness, as `/livez` and `/readyz` report them.
 */
export { Readiness } from './readiness.js';
export type { ReadinessCheck, ReadinessOptions, ReadinessReport } from './readiness.js';
