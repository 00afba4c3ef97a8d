/**
 * @module Values the engine speaks in: operations, their progress events, resource descriptions.
 */
import type { ErrorCode } from '../errors.js';

export type Operation = 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'LIST';

export type OperationStatus =
  'PENDING' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILED' | 'CANCEL_IN_PROGRESS' | 'CANCEL_COMPLETE';

export const TERMINAL_STATUSES: ReadonlySet<OperationStatus> = new Set([
  'SUCCESS',
  'FAILED',
  'CANCEL_COMPLETE',
]);
export const ACTIVE_STATUSES: readonly OperationStatus[] = ['PENDING', 'IN_PROGRESS', 'CANCEL_IN_PROGRESS'];

/** A resource model: the properties of one resource. */
export type Model = { [key: string]: unknown };

/** What the API reports about an operation (the shape of Cloud Control API's ProgressEvent). */
export interface ProgressEvent {
  typeName: string;
  identifier?: string;
  requestToken: string;
  operation: Operation;
  operationStatus: OperationStatus;
  /** ISO-8601 time of this event. */
  eventTime: string;
  resourceModel?: Model;
  statusMessage?: string;
  errorCode?: ErrorCode;
  /** ISO-8601 time after which the engine will invoke the handler again. */
  retryAfter?: string;
}

export interface ResourceDescription {
  identifier: string;
  properties: Model;
}
