/**
 * @module The handler contract's time limits on one invocation, for the engine and the suite alike.
 */
import type { HandlerAction } from './types.js';

/**
 * The contract's limits on one handler invocation: create, update and delete "MUST always return a
 * ProgressEvent within 60 seconds" (longer work answers IN_PROGRESS and is called again), read and
 * list within 30. Exceeding one is the provider's fault (HandlerInternalFailure).
 */
export interface CallLimits {
  /** create, update, delete. */
  change: number;
  /** read, list. */
  read: number;
}

export const CALL_LIMITS: CallLimits = { change: 60_000, read: 30_000 };

/** What a handler that passed its limit did wrong. */
export function tooSlow(action: HandlerAction, limitMs: number): string {
  return `did not answer ${action} within ${limitMs / 1000} s: a handler must answer within ${limitMs / 1000} s (${action === 'read' || action === 'list' ? 'read and list answer at once' : 'answer IN_PROGRESS and continue when called again'})`;
}

/** The limit of one invocation of `action`. */
export function callLimitOf(limits: CallLimits, action: HandlerAction): number {
  return action === 'read' || action === 'list' ? limits.read : limits.change;
}
