/**
 * @module What the engine tells an observer (metrics, in src/telemetry): plain calls at the points
 * where an operation ends and a handler answers. The engine imports nothing of whoever listens.
 */
import type { ErrorCode } from '../errors.js';
import type { HandlerAction } from '../handler/index.js';
import type { Operation, OperationStatus } from './types.js';

export interface EngineObserver {
  /** An operation reached a terminal status (SUCCESS, FAILED or CANCEL_COMPLETE). */
  operationEnded(
    typeName: string,
    operation: Operation,
    status: OperationStatus,
    errorCode?: ErrorCode,
  ): void;
  /** A handler answered (or failed, or timed out) after `seconds`; `errorCode` when it failed. */
  handlerInvoked(typeName: string, action: HandlerAction, seconds: number, errorCode?: ErrorCode): void;
  /** This worker claimed an operation whose lease had run out under another owner (a stopped or stalled worker). */
  leaseTakenOver(typeName: string): void;
}
