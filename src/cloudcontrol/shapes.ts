/**
 * @module The engine's values in Cloud Control's shapes: members in PascalCase, times as epoch
 * seconds, resource models as JSON text.
 */
import type { ProgressEvent, ResourceDescription } from '../engine/index.js';
import { handlerErrorCode } from './errors.js';

export interface CcProgressEvent {
  TypeName: string;
  Identifier?: string;
  RequestToken: string;
  Operation: string;
  OperationStatus: string;
  EventTime: number;
  ResourceModel?: string;
  StatusMessage?: string;
  ErrorCode?: string;
  RetryAfter?: number;
}

/** An ISO-8601 time as epoch seconds (the AWS JSON protocols' timestamp form). */
function epochSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}

export function progressEvent(event: ProgressEvent): CcProgressEvent {
  const out: CcProgressEvent = {
    TypeName: event.typeName,
    RequestToken: event.requestToken,
    Operation: event.operation,
    OperationStatus: event.operationStatus,
    EventTime: epochSeconds(event.eventTime),
  };
  if (event.identifier !== undefined) out.Identifier = event.identifier;
  if (event.resourceModel !== undefined) out.ResourceModel = JSON.stringify(event.resourceModel);
  if (event.statusMessage !== undefined) out.StatusMessage = event.statusMessage;
  if (event.errorCode !== undefined) out.ErrorCode = handlerErrorCode(event.errorCode);
  if (event.retryAfter !== undefined) out.RetryAfter = epochSeconds(event.retryAfter);
  return out;
}

export function resourceDescription(description: ResourceDescription): {
  Identifier: string;
  Properties: string;
} {
  return { Identifier: description.identifier, Properties: JSON.stringify(description.properties) };
}
