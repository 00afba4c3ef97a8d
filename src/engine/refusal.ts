/**
 * @module A change its review denied, kept as an operation that failed before it began — for the
 * front doors whose protocol says so: AWS Cloud Control reports a hook's failure as the operation
 * ending FAILED (its events, GetResourceRequestStatus, ListResourceRequests), not as an error of the
 * call. Nothing else is written; `/v1` answers 403 (or 400) instead and keeps nothing.
 */
import type { OperationRecord } from '../store/types.js';
import type { DeniedByVerdicts } from '../verdict.js';
import type { EngineContext } from './context.js';
import { toEvent } from './progress-event.js';
import { newRequestToken } from './request-token.js';
import type { ProgressEvent } from './types.js';

export async function recordRefusal(
  ctx: EngineContext,
  typeName: string,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  identifier: string | undefined,
  refusal: DeniedByVerdicts,
): Promise<ProgressEvent> {
  const now = new Date().toISOString();
  const record: OperationRecord = {
    requestToken: newRequestToken(),
    typeName,
    operation,
    status: 'FAILED',
    eventTime: now,
    errorCode: refusal.code,
    statusMessage: refusal.message,
    request: {},
    startedAt: now,
    deadlineAt: now,
    attempts: 0,
    // Told with it (GetResourceRequestStatus' HooksProgressEvent): Deny and Warn, and hooks' passes.
    warnings: [...refusal.verdicts, ...refusal.hooksPassed],
  };
  // Without its identifier: a failed record holds no resource's place, and no client token, so the
  // same request may be sent again once the policy or hook lets it through.
  const result = await ctx.store.beginOperation(record);
  const event = await toEvent(ctx, result.kind === 'conflict' ? record : result.operation);
  return identifier !== undefined ? { ...event, identifier } : event;
}
