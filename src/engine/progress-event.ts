/**
 * @module What the API reports about an operation: its ProgressEvent, never with write-only values.
 */
import { stripNulls, stripWriteOnly } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { OperationRecord } from '../store/types.js';
import { isHookPass } from '../verdict.js';
import type { EngineContext } from './context.js';
import { TERMINAL_STATUSES, type ProgressEvent } from './types.js';

/** The event of an operation; `known` when the caller has its type (the operation's type, as registered now). */
export async function toEvent(
  ctx: EngineContext,
  op: OperationRecord,
  known?: ResourceType,
): Promise<ProgressEvent> {
  let type = known;
  if (!type && op.resourceModel && op.operation !== 'DELETE') {
    try {
      type = (await ctx.registry.get(op.typeName)).type;
    } catch {
      type = undefined;
    }
  }
  return eventOf(op, type);
}

/**
 * The event of an operation of `type` (the operation's type, as registered now), without a promise;
 * undefined `type`: unknown, so its model is not shown.
 */
export function eventOf(op: OperationRecord, type: ResourceType | undefined): ProgressEvent {
  const event: ProgressEvent = {
    typeName: op.typeName,
    requestToken: op.requestToken,
    operation: op.operation,
    operationStatus: op.status,
    eventTime: op.eventTime,
  };
  if (op.identifier !== undefined) event.identifier = op.identifier;
  // Without the type we cannot tell what is write-only, so we show nothing rather than too much.
  if (op.resourceModel && op.operation !== 'DELETE' && type)
    event.resourceModel = stripNulls(
      type.writeOnlyProperties.length === 0 ? op.resourceModel : stripWriteOnly(type, op.resourceModel),
    );
  if (op.statusMessage !== undefined) event.statusMessage = op.statusMessage;
  if (op.errorCode !== undefined) event.errorCode = op.errorCode;
  if (op.retryAfter !== undefined && !TERMINAL_STATUSES.has(op.status)) event.retryAfter = op.retryAfter;
  if (op.warnings !== undefined) {
    const warnings = op.warnings.filter((v) => v.action === 'Warn');
    const deniedBy = op.warnings.filter((v) => v.action === 'Deny');
    const hooksPassed = op.warnings.filter(isHookPass);
    if (warnings.length > 0) event.warnings = warnings;
    if (deniedBy.length > 0) event.deniedBy = deniedBy;
    if (hooksPassed.length > 0) event.hooksPassed = hooksPassed;
  }
  return event;
}
