/**
 * @module Fairness between tenants: flows by token, priority levels with seats shared by fair
 * queuing, per-token rates, and the refusal over a share (see docs/fairness.md).
 *
 * @example
 * const fairness = new Fairness({ seats: 32 });
 * const flow = fairness.flowOf(principal);
 * const admitted = fairness.enter(flow);
 * if (admitted === true) run(() => fairness.leave(flow));
 * else if (admitted === false) fairness.wait(flow, (refusal) => (refusal ? refuse(refusal) : run(…)));
 * else refuse(admitted); // Throttled: 429 with Retry-After
 */
export {
  ANONYMOUS_FLOW,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_QUEUE_LENGTH,
  DEFAULT_SEATS,
  DEFAULT_SYSTEM_SEATS,
  Fairness,
  type Caller,
  type FairnessOptions,
  type FlowStats,
  type LevelStats,
} from './fairness.js';
export type { Flow, Grant } from './flow.js';
export { holdSeat, releaseSeat } from './seat.js';
export { Throttled, type ThrottleReason } from './throttled.js';
export {
  checkBurst,
  defaultBurst,
  formatRate,
  parseRate,
  MAX_BURST,
  MAX_RATE,
  type RateLimit,
} from './rate.js';
