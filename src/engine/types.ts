/**
 * @module Values the engine speaks in: operations, their progress events, resource descriptions.
 */
import type { ErrorCode } from '../errors.js';
import type { Verdict } from '../verdict.js';
import type { Model } from '../model/index.js';
import type { Observation, Operation, OperationStatus } from '../store/types.js';

export type { Model } from '../model/index.js';
export { TERMINAL_STATUSES, ACTIVE_STATUSES, type Operation, type OperationStatus } from '../store/types.js';

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
  /** What admission policies and hooks said of the change and let it proceed with (`Warn`). */
  warnings?: Verdict[];
  /** What denied it, on an operation a policy or hook failed before it began (Cloud Control keeps those). */
  deniedBy?: Verdict[];
  /** The hooks that passed the change (each hook's SUCCESS, an Audit verdict). */
  hooksPassed?: Verdict[];
}

export interface ResourceDescription {
  identifier: string;
  properties: Model;
  /** In a list: what the last read saw when the record does not say it (the provider's NotFound). */
  observed?: Observation;
}

/**
 * A read answered with the recorded model's JSON text as stored, which is its answer as it stands: no
 * write-only property in the type, no null in the model (see `Engine.readAnswer`).
 */
export interface RecordedDescription {
  identifier: string;
  propertiesJson: string;
}
