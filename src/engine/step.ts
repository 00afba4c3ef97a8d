/**
 * @module One step of an operation the worker holds: checks it may still run, invokes its handler
 * (`invoke.ts`), and records what the answer means — a callback scheduled (IN_PROGRESS), a failure,
 * or a success with its checked model and the index change (`finish.ts`).
 */
import { TypeplaneError } from '../errors.js';
import { identifierOf, stripWriteOnly, type Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import type { OperationRecord, ResourceChange } from '../store/types.js';
import { checkModel } from './check-answer.js';
import { ACTION, timeoutMinutes, type EngineContext } from './context.js';
import { finish } from './finish.js';
import { invoke } from './invoke.js';
import { lazyChild, maskedLogger } from './logger.js';
import { recordEvent } from './record-backed.js';
import { resolvedReferences } from './references.js';
import {
  keepWriteOnly,
  maskWriteOnly,
  openContext,
  openRequest,
  sealContext,
  sealResource,
} from './sealing.js';

const MAX_CALLBACK_DELAY_SECONDS = 3600;

/** One handler invocation for an operation this worker holds the lease on. */
export async function step(
  ctx: EngineContext,
  op: OperationRecord,
  signal: AbortSignal,
  fresh: boolean,
): Promise<void> {
  const log = lazyChild(ctx.log, {
    requestToken: op.requestToken,
    typeName: op.typeName,
    operation: op.operation,
  });
  if (op.status === 'CANCEL_IN_PROGRESS') {
    return finish(ctx, op, 'CANCEL_COMPLETE', { statusMessage: 'cancelled' });
  }
  let compiled: CompiledType;
  try {
    compiled = await ctx.registry.get(op.typeName);
  } catch {
    return finish(ctx, op, 'FAILED', {
      errorCode: 'InvalidTypeConfiguration',
      statusMessage: `type ${op.typeName} is no longer registered`,
    });
  }
  const type = compiled.type;
  const now = Date.now();
  if (now >= Date.parse(op.deadlineAt)) {
    return finish(ctx, op, 'FAILED', {
      errorCode: 'NotStabilized',
      statusMessage: `did not finish within ${timeoutMinutes(type, ACTION[op.operation as 'CREATE'])} minutes`,
    });
  }
  // Invoked before (a callback, or a worker that died mid-call) unless it was just begun here.
  const resumed = !fresh && op.status === 'IN_PROGRESS';
  if (op.operation === 'CREATE' && op.identifier !== undefined && !resumed) {
    if (await ctx.store.getResource(type.typeName, op.identifier)) {
      return finish(ctx, op, 'FAILED', {
        errorCode: 'AlreadyExists',
        statusMessage: `${type.typeName} ${op.identifier} already exists`,
      });
    }
  }
  if (op.status === 'PENDING') {
    op.status = 'IN_PROGRESS';
    op.eventTime = new Date().toISOString();
    await ctx.store.saveOperation(op, ctx.worker.owner);
  }

  const provider = ctx.providerFor(type.typeName);
  const action = ACTION[op.operation as 'CREATE' | 'UPDATE' | 'DELETE'];
  const remaining = Date.parse(op.deadlineAt) - now;
  const timeout = AbortSignal.timeout(Math.max(1, remaining));
  // Write-only values and the callback context are opened here only, for the provider.
  let opened: ReturnType<typeof openRequest>;
  let callbackContext: Record<string, unknown> | undefined;
  try {
    opened = openRequest(ctx.sealer, op.requestToken, op.request);
    callbackContext = op.callbackContext && openContext(ctx.sealer, op.requestToken, op.callbackContext);
  } catch (e) {
    return finish(ctx, op, 'FAILED', { errorCode: 'InternalFailure', statusMessage: (e as Error).message });
  }
  const request = {
    typeName: type.typeName,
    desiredState: opened.desiredState ?? {},
    clientRequestToken: op.requestToken,
    logger: log,
    signal: AbortSignal.any([signal, timeout]),
    ...(opened.previousState ? { previousState: opened.previousState } : {}),
    ...(callbackContext ? { callbackContext } : {}),
  };
  // Operations begun before a record-backed provider completed them inline are finished the same way.
  const event = provider.recordBacked
    ? recordEvent(provider, type, op, request.desiredState)
    : await invoke(ctx.log, provider, action, type, request);

  // Someone may have asked to cancel while the handler ran (a SUCCESS stands regardless).
  const latest = event.status === 'SUCCESS' ? undefined : await ctx.store.getOperation(op.requestToken);
  // A SUCCESS still stands: the resource exists and must be recorded, or it would leak.
  if (latest?.status === 'CANCEL_IN_PROGRESS' && event.status !== 'SUCCESS') {
    return finish(ctx, latest, 'CANCEL_COMPLETE', { statusMessage: 'cancelled' });
  }
  // Stopped by a shutdown, not by its deadline: left as it is (lease released) for the next start to resume.
  if (ctx.worker.stopped && signal.aborted && !timeout.aborted && event.status !== 'SUCCESS') {
    await ctx.store.renewLease(op.requestToken, ctx.worker.owner, new Date(), 0);
    return;
  }
  if (timeout.aborted && event.status !== 'SUCCESS') {
    return finish(ctx, op, 'FAILED', {
      errorCode: 'NotStabilized',
      statusMessage: `did not finish within ${timeoutMinutes(type, action)} minutes`,
    });
  }

  op.attempts += 1;
  switch (event.status) {
    case 'IN_PROGRESS': {
      const delay = Math.min(
        Math.max(Number(event.callbackDelaySeconds ?? 0), 0),
        MAX_CALLBACK_DELAY_SECONDS,
      );
      if (event.callbackContext)
        op.callbackContext = sealContext(ctx.sealer, op.requestToken, event.callbackContext);
      op.retryAfter = new Date(Date.now() + delay * 1000).toISOString();
      op.eventTime = new Date().toISOString();
      if (event.message) op.statusMessage = event.message;
      if (event.resourceModel && typeof event.resourceModel === 'object')
        op.resourceModel = stripWriteOnly(type, event.resourceModel);
      await ctx.store.saveOperation(op, ctx.worker.owner);
      await ctx.store.renewLease(op.requestToken, ctx.worker.owner, new Date(), 0);
      ctx.worker.later(delay * 1000);
      return;
    }
    case 'FAILED': {
      const code = event.errorCode ?? 'GeneralServiceException';
      // A delete re-invoked after its first attempt may find its own work done.
      if (op.operation === 'DELETE' && code === 'NotFound' && resumed) {
        return finish(
          ctx,
          op,
          'SUCCESS',
          {},
          { kind: 'delete', typeName: type.typeName, identifier: op.identifier! },
        );
      }
      // The provider says the resource is gone: the index follows the truth.
      const vanished: ResourceChange | undefined =
        code === 'NotFound' && op.identifier !== undefined && op.operation !== 'CREATE'
          ? { kind: 'delete', typeName: type.typeName, identifier: op.identifier }
          : undefined;
      return finish(
        ctx,
        op,
        'FAILED',
        { errorCode: code, statusMessage: event.message ?? `${action} failed with ${code}` },
        vanished,
      );
    }
    case 'SUCCESS': {
      if (op.operation === 'DELETE') {
        return finish(
          ctx,
          op,
          'SUCCESS',
          {},
          { kind: 'delete', typeName: type.typeName, identifier: op.identifier! },
        );
      }
      let model: Model;
      let identifier: string;
      // The engine's words on a broken answer quote the answer, which may hold what it was handed.
      const mask = (text: string) => maskWriteOnly(type, text, [request.desiredState, request.previousState]);
      try {
        model = checkModel(
          maskedLogger(ctx.log, mask),
          provider,
          compiled,
          event.resourceModel,
          op.identifier,
        );
        identifier = identifierOf(type, model)!;
      } catch (e) {
        const message = mask(e instanceof TypeplaneError ? e.message : String(e));
        return finish(ctx, op, 'FAILED', { errorCode: 'HandlerInternalFailure', statusMessage: message });
      }
      const now = new Date().toISOString();
      op.identifier = identifier;
      // Providers need not echo write-only values; the index keeps what was asked for, so a later
      // patch applies to the whole desired state (they are stripped from every answer regardless).
      keepWriteOnly(type, request.desiredState, model);
      // What it refers to now, recorded with it (so a referenced resource cannot be deleted under it).
      const references = await resolvedReferences(ctx, type, model);
      // Kept at rest without its write-only values; those are sealed beside it.
      const record = sealResource(ctx.sealer, type, identifier, model);
      const change: ResourceChange = {
        kind: 'put',
        resource: {
          typeName: type.typeName,
          identifier,
          ...record,
          createdAt: now,
          updatedAt: now,
        },
        // A type without references never has any to replace.
        ...(type.traits.references.length > 0 ? { references } : {}),
      };
      try {
        return await finish(ctx, op, 'SUCCESS', { resourceModel: record.properties }, change);
      } catch (e) {
        if (e instanceof TypeplaneError && e.code === 'ResourceConflict') {
          return finish(ctx, op, 'FAILED', {
            errorCode: 'AlreadyExists',
            statusMessage: `${type.typeName} ${identifier} already exists`,
          });
        }
        throw e;
      }
    }
  }
}
