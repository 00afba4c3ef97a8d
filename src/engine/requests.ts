/**
 * @module Requests: an operation's progress by its request token, lists of them, cancelling, waiting.
 */
import { TypeplaneError } from '../errors.js';
import { OperationMovedOn } from '../store/types.js';
import type { EngineContext } from './context.js';
import { parseMaxResults, parseNextToken } from './input.js';
import { toEvent } from './progress-event.js';
import { TERMINAL_STATUSES, type Operation, type OperationStatus, type ProgressEvent } from './types.js';

export async function getRequest(ctx: EngineContext, requestToken: string): Promise<ProgressEvent> {
  const op = await ctx.store.getOperation(requestToken);
  if (!op) throw new TypeplaneError('NotFound', `no request ${requestToken}`);
  return toEvent(ctx, op);
}

export async function listRequests(
  ctx: EngineContext,
  filter: { operation?: Operation[]; status?: OperationStatus[]; typeName?: string; identifier?: string },
  options: { maxResults?: unknown; nextToken?: unknown },
): Promise<{ progressEvents: ProgressEvent[]; nextToken: string | null; resourceVersion: string }> {
  const limit = parseMaxResults(options.maxResults);
  const nextToken = parseNextToken(options.nextToken);
  // Read before the page, as a list of resources reads it (see read.ts).
  const resourceVersion = String(await ctx.store.latestVersion());
  const page = await ctx.store.listOperations(filter, { limit, ...(nextToken ? { nextToken } : {}) });
  const events: ProgressEvent[] = [];
  for (const op of page.items) events.push(await toEvent(ctx, op));
  return { progressEvents: events, nextToken: page.nextToken ?? null, resourceVersion };
}

/** Cancel a pending or in-progress operation. */
export async function cancel(ctx: EngineContext, requestToken: string): Promise<ProgressEvent> {
  const op = await ctx.store.getOperation(requestToken);
  if (!op) throw new TypeplaneError('NotFound', `no request ${requestToken}`);
  if (TERMINAL_STATUSES.has(op.status)) {
    throw new TypeplaneError(
      'ResourceConflict',
      `request ${requestToken} is already ${op.status} and cannot be cancelled`,
    );
  }
  if (op.status !== 'CANCEL_IN_PROGRESS') {
    op.status = 'CANCEL_IN_PROGRESS';
    op.eventTime = new Date().toISOString();
    op.statusMessage = 'cancellation requested';
    delete op.retryAfter; // due at once: the worker completes the cancellation
    try {
      await ctx.store.saveOperation(op);
    } catch (e) {
      // It ended between the read and the write: say how.
      if (!(e instanceof OperationMovedOn)) throw e;
      const ended = await ctx.store.getOperation(requestToken);
      throw new TypeplaneError(
        'ResourceConflict',
        `request ${requestToken} is already ${ended?.status ?? 'gone'} and cannot be cancelled`,
      );
    }
  }
  ctx.worker.abort(requestToken, new Error('operation cancelled'));
  ctx.worker.kick();
  return toEvent(ctx, op);
}

/** The operation's event once terminal, or the latest one when `waitMs` runs out. */
export async function waitFor(
  ctx: EngineContext,
  requestToken: string,
  waitMs: number,
): Promise<ProgressEvent> {
  const deadline = Date.now() + Math.max(0, waitMs);
  // A step of it running here tells its end here, with the record it wrote (or, ending otherwise,
  // wakes the wait to read it): it need not be read first.
  let running = waitMs > 0 && ctx.worker.runningHere(requestToken);
  for (;;) {
    if (!running) {
      const op = await ctx.store.getOperation(requestToken);
      if (!op) throw new TypeplaneError('NotFound', `no request ${requestToken}`);
      const left = deadline - Date.now();
      if (TERMINAL_STATUSES.has(op.status) || left <= 0) return toEvent(ctx, op);
    }
    running = false;
    // Woken by our own workers at once (an end with the record it wrote); by other replicas' work
    // within the poll interval.
    const ended = await ctx.worker.changed(requestToken, Math.max(1, Math.min(deadline - Date.now(), 250)));
    if (ended && TERMINAL_STATUSES.has(ended.status)) return toEvent(ctx, ended);
  }
}
