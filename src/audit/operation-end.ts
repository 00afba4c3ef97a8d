/**
 * @module The end of an operation as a record. A resource change is answered 202 when its operation
 * begins (recorded then, stage `ResponseComplete`, with the operation's request token); when the
 * operation reaches SUCCESS, FAILED or CANCEL_COMPLETE, the replica that ends it records that too, at
 * stage `OperationComplete`, as the requester's (the token id the operation keeps). Every operation
 * gets one, whatever began it: the API, the Cloud Control front door, a stack, a recipe, or a replica
 * resuming it after a restart.
 */
import { randomUUID } from 'node:crypto';
import type { EndedOperation, EngineObserver } from '../engine/index.js';
import { ERROR_CODES, isErrorCode } from '../errors.js';
import type { Auditor } from './auditor.js';
import type { AuditEvent, AuditLevel } from './event.js';

/** An ended operation, as the engine tells its observer. */
export interface OperationEnd extends EndedOperation {
  typeName: string;
  operation: Parameters<EngineObserver['operationEnded']>[1];
  status: NonNullable<AuditEvent['responseStatus']['operationStatus']>;
  errorCode?: string;
}

/** The engine observer's `operationEnded` that records each end with `auditor`. */
export function recordOperationEnds(auditor: Auditor): EngineObserver['operationEnded'] {
  return (typeName, operation, status, errorCode, ended) => {
    if (status !== 'SUCCESS' && status !== 'FAILED' && status !== 'CANCEL_COMPLETE') return;
    // Picked one by one: the engine hands its whole operation record (its request included).
    void auditor.recordOperationEnd({
      typeName,
      operation,
      status,
      ...(errorCode !== undefined ? { errorCode } : {}),
      requestToken: ended.requestToken,
      ...(ended.identifier !== undefined ? { identifier: ended.identifier } : {}),
      ...(ended.requestedBy !== undefined ? { requestedBy: ended.requestedBy } : {}),
      startedAt: ended.startedAt,
      eventTime: ended.eventTime,
    });
  };
}

/** The verbs of the requests that begin each kind of operation. */
const VERBS: Record<string, string> = { CREATE: 'create', UPDATE: 'update', DELETE: 'delete' };

/**
 * The record of `end` (its user not yet described). `code` is what the API answers for that outcome:
 * 200 for SUCCESS and CANCEL_COMPLETE (what was asked was done), the error code's status for FAILED.
 */
export function operationEndEvent(end: OperationEnd, level: AuditLevel): AuditEvent {
  const code =
    end.status === 'FAILED' ? (isErrorCode(end.errorCode) ? ERROR_CODES[end.errorCode] : 500) : 200;
  return {
    kind: 'Event',
    apiVersion: 'typeplane.dev/audit/v1',
    level,
    auditID: randomUUID(),
    stage: 'OperationComplete',
    // Where the outcome, and its message, can be read (for as long as the operation is kept).
    requestURI: `/v1/requests/${end.requestToken}`,
    verb: VERBS[end.operation] ?? end.operation.toLowerCase(),
    user: end.requestedBy !== undefined ? { tokenId: end.requestedBy } : {},
    sourceIPs: [],
    objectRef: {
      resource: 'resources',
      typeName: end.typeName,
      ...(end.identifier !== undefined ? { identifier: end.identifier } : {}),
      requestToken: end.requestToken,
    },
    responseStatus: {
      code,
      operationStatus: end.status,
      ...(end.errorCode !== undefined ? { errorCode: end.errorCode } : {}),
    },
    requestReceivedTimestamp: end.startedAt,
    stageTimestamp: end.eventTime,
  };
}
