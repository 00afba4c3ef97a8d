/**
 * @module The engine's values in Cloud Control's shapes: members in PascalCase, times as epoch
 * seconds, resource models as JSON text.
 */
import type { ProgressEvent, ResourceDescription } from '../engine/index.js';
import type { Verdict } from '../verdict.js';
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

/** One verdict of an admission policy or a hook as Cloud Control tells a hook's invocation. */
export interface CcHookProgressEvent {
  HookTypeName: string;
  InvocationPoint: 'PRE_PROVISION';
  HookStatus: 'HOOK_COMPLETE_SUCCEEDED' | 'HOOK_COMPLETE_FAILED' | 'HOOK_FAILED';
  HookEventTime: number;
  HookStatusMessage: string;
  /** A failed invocation's (a verdict does not say a passing hook's mode). */
  FailureMode?: 'FAIL' | 'WARN';
}

/** Hook reasons of a hook that did not answer (the invocation failed, not the check). */
const NOT_COMPLETED = new Set(['HookTimeout', 'HookFailed', 'HookNotServed']);

/**
 * GetResourceRequestStatus' `HooksProgressEvent`: the verdicts the operation was told with, each as
 * a failed invocation — a Deny in mode FAIL, a Warn in mode WARN, as AWS lists a hook that failed in
 * each mode — and each hook that passed the change, HOOK_COMPLETE_SUCCEEDED. A policy is named
 * `policy/<name>`, a hook by its type name. Policies that passed and Audit verdicts are not kept
 * with an operation, so they are not listed; neither are schema rules (not hooks).
 */
export function hooksProgressEvents(event: ProgressEvent): CcHookProgressEvent[] {
  const told: readonly Verdict[] = [...(event.deniedBy ?? []), ...(event.warnings ?? [])];
  const passed = (event.hooksPassed ?? []).map((v): CcHookProgressEvent => ({
    HookTypeName: v.name,
    InvocationPoint: 'PRE_PROVISION',
    HookStatus: 'HOOK_COMPLETE_SUCCEEDED',
    HookEventTime: epochSeconds(event.eventTime),
    HookStatusMessage: v.message,
  }));
  return told
    .filter((v) => v.source !== 'rule')
    .map((v): CcHookProgressEvent => ({
      HookTypeName: v.source === 'policy' ? `policy/${v.name}` : v.name,
      InvocationPoint: 'PRE_PROVISION',
      HookStatus:
        v.reason !== undefined && NOT_COMPLETED.has(v.reason) ? 'HOOK_FAILED' : 'HOOK_COMPLETE_FAILED',
      HookEventTime: epochSeconds(event.eventTime),
      HookStatusMessage: v.message,
      FailureMode: v.action === 'Deny' ? 'FAIL' : 'WARN',
    }))
    .concat(passed);
}

export function resourceDescription(description: ResourceDescription): {
  Identifier: string;
  Properties: string;
} {
  return { Identifier: description.identifier, Properties: JSON.stringify(description.properties) };
}
