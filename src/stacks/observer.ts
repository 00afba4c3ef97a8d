/**
 * @module What stacks tell an observer (metrics, in src/telemetry): where a deployment ends and where
 * a drift check is answered. Recipes deploy their instances as stacks, so theirs are told here too.
 */
import type { ResourceDrift } from './drift.js';
import type { StackStatus } from './records.js';

export interface StacksObserver {
  /**
   * A deployment (or a stack's deletion) ended with `status`, `seconds` after it began (a resumed
   * one's time includes the time it waited to be resumed).
   */
  deploymentEnded(status: StackStatus | 'DELETE_COMPLETE', seconds: number): void;
  /** A drift check answered `status`, with each of its resources' drift status. */
  driftChecked(status: 'IN_SYNC' | 'DRIFTED', resources: readonly ResourceDrift['status'][]): void;
}
