/**
 * @module What the engine tells an observer (metrics, in src/telemetry): plain calls at the points
 * where an operation ends and a handler answers. The engine imports nothing of whoever listens.
 */
import type { ErrorCode } from '../errors.js';
import type { HandlerAction } from '../handler/index.js';
import type { OperationRecord } from '../store/types.js';
import type { Operation, OperationStatus } from './types.js';

/** What an ended operation is known by beyond its type, kind and outcome (for the audit trail). */
export type EndedOperation = Readonly<
  Pick<OperationRecord, 'requestToken' | 'identifier' | 'requestedBy' | 'startedAt' | 'eventTime'>
>;

export interface EngineObserver {
  /**
   * An operation reached a terminal status (SUCCESS, FAILED or CANCEL_COMPLETE), on the replica that
   * ended it; told once per operation.
   */
  operationEnded(
    typeName: string,
    operation: Operation,
    status: OperationStatus,
    errorCode: ErrorCode | undefined,
    ended: EndedOperation,
  ): void;
  /** A handler answered (or failed, or timed out) after `seconds`; `errorCode` when it failed. */
  handlerInvoked(typeName: string, action: HandlerAction, seconds: number, errorCode?: ErrorCode): void;
  /** This worker claimed an operation whose lease had run out under another owner (a stopped or stalled worker). */
  leaseTakenOver(typeName: string): void;
}

/**
 * `observer` with `onEnd` told of every ended operation too (the audit trail beside the metrics);
 * `observer` itself without `onEnd`.
 */
export function alsoOnEnd(
  observer: EngineObserver | undefined,
  onEnd: EngineObserver['operationEnded'] | undefined,
): EngineObserver | undefined {
  if (!onEnd) return observer;
  return {
    operationEnded(...args) {
      observer?.operationEnded(...args);
      onEnd(...args);
    },
    handlerInvoked: (...args) => observer?.handlerInvoked(...args),
    leaseTakenOver: (...args) => observer?.leaseTakenOver(...args),
  };
}
