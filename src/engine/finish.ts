/**
 * @module Finishing an operation: its outcome and the resource index change, in one store transaction.
 */
import type { ErrorCode } from '../errors.js';
import type { Model } from '../model/index.js';
import type { OperationRecord, ResourceChange } from '../store/types.js';
import type { EngineContext } from './context.js';
import type { OperationStatus } from './types.js';

export async function finish(
  ctx: EngineContext,
  op: OperationRecord,
  status: OperationStatus,
  fields: { errorCode?: ErrorCode; statusMessage?: string; resourceModel?: Model },
  change?: ResourceChange,
): Promise<void> {
  op.status = status;
  op.eventTime = new Date().toISOString();
  delete op.retryAfter;
  delete op.callbackContext;
  if (fields.errorCode) op.errorCode = fields.errorCode;
  // A message from an earlier IN_PROGRESS step does not describe the outcome.
  if (fields.statusMessage !== undefined) op.statusMessage = fields.statusMessage;
  else delete op.statusMessage;
  if (fields.resourceModel) op.resourceModel = fields.resourceModel;
  else if (op.operation === 'DELETE') delete op.resourceModel;
  // The request (a desired state of up to 1 MB, sealed) serves only the handler calls: an ended
  // operation, kept as long as its client token (7 days), keeps its outcome, not a copy of it.
  op.request = {};
  // Fenced: a worker that lost its lease (another took the operation over) cannot overwrite it.
  await ctx.store.finishOperation(op, change, ctx.worker.owner);
  // Written (committed): a waiter here answers from it without reading it back.
  ctx.worker.notify(op.requestToken, op);
  ctx.observer?.operationEnded(op.typeName, op.operation, status, op.errorCode, op);
}
