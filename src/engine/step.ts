/**
 * @module One step of an operation the worker holds: checks it may still run, invokes its handler
 * (`invoke.ts`), and records what the answer means — a callback scheduled (IN_PROGRESS), a failure,
 * or a success with its checked model and the index change (`finish.ts`).
 */
import { TypeplaneError } from '../errors.js';
import {
  additionalIdentifiersOf,
  identifierOf,
  stripNulls,
  stripWriteOnly,
  type Model,
} from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import type { OperationRecord, ResourceChange } from '../store/types.js';
import { callSignal } from './call-signal.js';
import { checkModel, contractViolation } from './check-answer.js';
import { tooSlow } from '../handler/index.js';
import { ACTION, configurationOf, timeoutMinutes, type EngineContext } from './context.js';
import { finish } from './finish.js';
import { invoke } from './invoke.js';
import { noteNotFound } from './observed.js';
import { modelToKeep, outcomeProblem } from './outcome.js';
import { lazyChild, maskedLogger } from './logger.js';
import { continues, continuing } from '../telemetry/spans.js';
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

/**
 * One handler invocation for an operation this worker holds the lease on; traced, in a span that
 * continues the trace of the request that began the operation (its traceparent, kept in the request).
 */
export function step(
  ctx: EngineContext,
  op: OperationRecord,
  signal: AbortSignal,
  fresh: boolean,
): Promise<void> {
  const { traceparent } = op.request;
  if (!continues(traceparent)) return stepHere(ctx, op, signal, fresh);
  return continuing(
    traceparent,
    `step ${op.operation}`,
    {
      'typeplane.type_name': op.typeName,
      'typeplane.operation': op.operation,
      'typeplane.request_token': op.requestToken,
      'typeplane.attempt': op.attempts + 1,
      ...(op.identifier !== undefined ? { 'typeplane.identifier': op.identifier } : {}),
    },
    () => stepHere(ctx, op, signal, fresh),
  );
}

async function stepHere(
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
    const version = op.request.typeVersion;
    compiled = await ctx.registry.get(op.typeName, typeof version === 'string' ? version : undefined);
  } catch {
    return finish(ctx, op, 'FAILED', {
      errorCode: 'InvalidTypeConfiguration',
      statusMessage: `type ${op.typeName} (the version this request was checked against) is no longer registered`,
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
  // Write-only values and the callback context are opened here only, for the provider.
  let opened: ReturnType<typeof openRequest>;
  let callbackContext: Record<string, unknown> | undefined;
  try {
    opened = openRequest(ctx.sealer, op.requestToken, op.request);
    callbackContext = op.callbackContext && openContext(ctx.sealer, op.requestToken, op.callbackContext);
  } catch (e) {
    return finish(ctx, op, 'FAILED', { errorCode: 'InternalFailure', statusMessage: (e as Error).message });
  }
  const call = callSignal(signal, Math.max(1, remaining), ctx.callLimits.change);
  const request = {
    typeName: type.typeName,
    desiredState: opened.desiredState ?? {},
    clientRequestToken: op.requestToken,
    logger: log,
    signal: call.signal,
    ...(opened.previousState ? { previousState: opened.previousState } : {}),
    ...(callbackContext ? { callbackContext } : {}),
    ...(await configurationOf(ctx, type)),
  };
  // Operations begun before a record-backed provider completed them inline are finished the same way.
  const started = provider.recordBacked ? 0 : performance.now();
  let event;
  try {
    event = provider.recordBacked
      ? recordEvent(provider, type, op, request.desiredState)
      : await invoke(ctx.log, provider, action, type, request);
  } finally {
    call.done();
  }
  if (!provider.recordBacked)
    ctx.observer?.handlerInvoked(
      type.typeName,
      action,
      (performance.now() - started) / 1000,
      event.status === 'FAILED' ? (event.errorCode ?? 'GeneralServiceException') : undefined,
    );

  // Someone may have asked to cancel while the handler ran (a SUCCESS stands regardless).
  const latest = event.status === 'SUCCESS' ? undefined : await ctx.store.getOperation(op.requestToken);
  // A SUCCESS still stands: the resource exists and must be recorded, or it would leak.
  if (latest?.status === 'CANCEL_IN_PROGRESS' && event.status !== 'SUCCESS') {
    return finish(ctx, latest, 'CANCEL_COMPLETE', { statusMessage: 'cancelled' });
  }
  // Stopped by a shutdown, not by its deadline: left as it is (lease released) for the next start to resume.
  if (ctx.worker.stopped && signal.aborted && call.expired !== 'deadline' && event.status !== 'SUCCESS') {
    await ctx.store.renewLease(op.requestToken, ctx.worker.owner, new Date(), 0);
    return;
  }
  if (call.expired === 'callLimit' && event.status !== 'SUCCESS') {
    return finish(ctx, op, 'FAILED', {
      errorCode: 'HandlerInternalFailure',
      statusMessage: contractViolation(ctx.log, provider, tooSlow(action, ctx.callLimits.change)).message,
    });
  }
  if (call.expired === 'deadline' && event.status !== 'SUCCESS') {
    return finish(ctx, op, 'FAILED', {
      errorCode: 'NotStabilized',
      statusMessage: `did not finish within ${timeoutMinutes(type, action)} minutes`,
    });
  }

  op.attempts += 1;
  // The engine's words on a broken answer quote the answer, which may hold what it was handed.
  const mask = (text: string) => maskWriteOnly(type, text, [request.desiredState, request.previousState]);
  // Values the update leaves as they were may keep violating a later version of the type.
  const checkAnswer = (raw: unknown) =>
    checkModel(maskedLogger(ctx.log, mask), provider, compiled, raw, op.identifier, request.previousState);
  switch (event.status) {
    case 'IN_PROGRESS': {
      // A model reported on the way is served as the operation's; it must be the resource's, in shape.
      let progressModel: Model | undefined;
      if (event.resourceModel !== undefined && event.resourceModel !== null) {
        // Checked as a final answer is: masked, and ratcheted against what the update started from.
        try {
          progressModel = checkAnswer(event.resourceModel);
        } catch (e) {
          const message = mask(e instanceof TypeplaneError ? e.message : String(e));
          return finish(ctx, op, 'FAILED', {
            errorCode: 'HandlerInternalFailure',
            statusMessage: `${message} (in an IN_PROGRESS answer)`,
          });
        }
      }
      const delay = Math.min(
        Math.max(Number(event.callbackDelaySeconds ?? 0), 0),
        MAX_CALLBACK_DELAY_SECONDS,
      );
      if (event.callbackContext)
        op.callbackContext = sealContext(ctx.sealer, op.requestToken, event.callbackContext);
      op.retryAfter = new Date(Date.now() + delay * 1000).toISOString();
      op.eventTime = new Date().toISOString();
      if (event.message) op.statusMessage = event.message;
      if (progressModel) op.resourceModel = stripWriteOnly(type, progressModel);
      await ctx.store.saveOperation(op, ctx.worker.owner);
      await ctx.store.renewLease(op.requestToken, ctx.worker.owner, new Date(), 0);
      ctx.worker.later(delay * 1000);
      return;
    }
    case 'FAILED': {
      const code = event.errorCode ?? 'GeneralServiceException';
      // What a delete asks for is already so (deleted outside Typeplane, or by its own earlier attempt):
      // it is gone, and the record goes with it.
      if (op.operation === 'DELETE' && code === 'NotFound') {
        return finish(
          ctx,
          op,
          'SUCCESS',
          resumed
            ? {}
            : {
                statusMessage: `the provider no longer had it${event.message ? ` (${event.message})` : ''}: gone`,
              },
          { kind: 'delete', typeName: type.typeName, identifier: op.identifier! },
        );
      }
      await finish(ctx, op, 'FAILED', {
        errorCode: code,
        statusMessage: event.message ?? `${action} failed with ${code}`,
      });
      // An update the provider answers NotFound keeps the record, as a read does: the NotFound may be
      // transient, and only a writer's delete or forget drops a record. It is noted for lists.
      if (code === 'NotFound' && op.operation === 'UPDATE' && op.identifier !== undefined)
        await noteNotFound(ctx, type.typeName, op.identifier);
      return;
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
      const operation = op.operation as 'CREATE' | 'UPDATE';
      let model: Model;
      try {
        model = checkAnswer(event.resourceModel);
        const problem = outcomeProblem(compiled, operation, request.desiredState, model);
        if (problem) throw contractViolation(maskedLogger(ctx.log, mask), provider, problem);
      } catch (e) {
        const message = mask(e instanceof TypeplaneError ? e.message : String(e));
        return refuseSuccess(ctx, op, compiled, event.resourceModel, request.desiredState, message);
      }
      const identifier = identifierOf(type, model)!;
      op.identifier = identifier;
      const { change, properties } = await resourceChange(
        ctx,
        compiled,
        identifier,
        model,
        request.desiredState,
      );
      try {
        return await finish(ctx, op, 'SUCCESS', { resourceModel: properties }, change);
      } catch (e) {
        if (e instanceof TypeplaneError && e.code === 'ResourceConflict') {
          // The primary identifier taken (a create), or an additional identifier another resource holds.
          const taken = e.details?.[0]?.additionalIdentifier !== undefined;
          return finish(ctx, op, 'FAILED', {
            errorCode: operation === 'CREATE' ? 'AlreadyExists' : 'ResourceConflict',
            statusMessage: taken ? e.message : `${type.typeName} ${identifier} already exists`,
          });
        }
        throw e;
      }
    }
  }
}

/** The index change recording `model` as the resource `identifier`, and the properties kept at rest. */
async function resourceChange(
  ctx: EngineContext,
  compiled: CompiledType,
  identifier: string,
  model: Model,
  desired: Model,
): Promise<{ change: ResourceChange; properties: Model }> {
  const type = compiled.type;
  const now = new Date().toISOString();
  // Providers need not echo write-only values; the index keeps what was asked for, so a later
  // patch applies to the whole desired state (they are stripped from every answer regardless).
  keepWriteOnly(type, desired, model);
  // A null is no value: the record never holds one (a write-only value asked as null included).
  model = stripNulls(model);
  // What it refers to now, recorded with it (so a referenced resource cannot be deleted under it).
  const references = await resolvedReferences(ctx, type, model);
  // Kept at rest without its write-only values; those are sealed beside it.
  const record = sealResource(ctx.sealer, type, identifier, model);
  const change: ResourceChange = {
    kind: 'put',
    resource: {
      typeName: type.typeName,
      identifier,
      properties: record.properties,
      sealed: record.sealed,
      typeVersion: compiled.version,
      createdAt: now,
      updatedAt: now,
    },
    // A type without references (or additional identifiers) never has any to replace (undefined).
    references: type.traits.references.length > 0 ? references : undefined,
    identifiers: type.additionalIdentifiers.length > 0 ? additionalIdentifiersOf(type, model) : undefined,
  };
  return { change, properties: record.properties };
}

/**
 * A SUCCESS the engine refuses: the operation fails with HandlerInternalFailure, and what the provider
 * made is recorded when its answer allows (see `outcome.ts`), so it is never left unseen.
 */
async function refuseSuccess(
  ctx: EngineContext,
  op: OperationRecord,
  compiled: CompiledType,
  raw: unknown,
  desired: Model,
  message: string,
): Promise<void> {
  const type = compiled.type;
  const fail = (statusMessage: string, change?: ResourceChange) =>
    finish(ctx, op, 'FAILED', { errorCode: 'HandlerInternalFailure', statusMessage }, change);
  const keep = modelToKeep(compiled, op.operation as 'CREATE' | 'UPDATE', raw, desired, op.identifier);
  if (!keep) return fail(message);
  if (op.operation === 'CREATE' && (await ctx.store.getResource(type.typeName, keep.identifier)))
    return fail(message);
  op.identifier = keep.identifier;
  const { change } = await resourceChange(ctx, compiled, keep.identifier, keep.model, desired);
  const kept = `${message}; ${type.typeName} ${keep.identifier} is recorded as the provider made it: read it to see it, delete it to remove it`;
  try {
    return await fail(kept, change);
  } catch (e) {
    if (e instanceof TypeplaneError && e.code === 'ResourceConflict') return fail(message);
    throw e;
  }
}
