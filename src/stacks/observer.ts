/**
 * @module What stacks tell an observer (metrics, in src/telemetry): where a deployment ends and where
 * a drift check is answered. Recipes deploy their instances as stacks, so theirs are told here too.
 */
import type { ReviewedChange } from '../engine/index.js';
import type { ResourceDrift } from './drift.js';
import type { DeploymentRecord, StackCaller, StackStatus } from './records.js';

export interface StacksObserver {
  /**
   * A deployment (or a stack's deletion) ended with `status`, `seconds` after it began (a resumed
   * one's time includes the time it waited to be resumed).
   */
  deploymentEnded(status: StackStatus | 'DELETE_COMPLETE', seconds: number): void;
  /** A drift check answered `status`, with each of its resources' drift status. */
  driftChecked(status: 'IN_SYNC' | 'DRIFTED', resources: readonly ResourceDrift['status'][]): void;
}

/**
 * A change a deployment put to the reviewer (admission policies, hooks) and what it said, Audit
 * verdicts included: no request's audit record holds these (a deployment runs on after its request,
 * and resumes on any replica), so the audit trail records each one (src/audit/stack-reviews.ts).
 */
export interface ReviewedStackChange extends ReviewedChange {
  stack: string;
  deployment: string;
  /** The deployment's phase: forward, rollback, cleanup, delete. */
  phase: DeploymentRecord['phase'];
  logicalId: string;
  /** Who deployed (the changes are theirs); absent when the engine's own users did. */
  caller?: Pick<StackCaller, 'id' | 'role' | 'description'>;
  /** The operation it began, when it was not denied. */
  requestToken?: string;
  /** Denied: the step failed with this error code (AccessDenied, or InvalidRequest for rules only). */
  deniedWith?: string;
  /** The denial's message, as the step's FAILED event gives it (masked of the deployment's secrets). */
  message?: string;
}
