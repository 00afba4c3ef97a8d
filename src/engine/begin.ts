/**
 * @module Beginning an operation: its record written (with its client token, so a retry replays it),
 * then run here at once when there is room, or queued for any worker to claim. A record-backed
 * provider's operation is decided and written in the same transaction instead.
 */
import { TypeplaneError, type ErrorCode } from '../errors.js';
import type { Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import type {
  BeginResult,
  Completion,
  CompletionRequest,
  OperationRecord,
  ResourceKey,
  StoredResource,
} from '../store/types.js';
import type { Caller } from './caller.js';
import { unchangedSince } from './changed-meanwhile.js';
import { ClientTokenReused, requestHash, validateClientToken, type RequestKind } from './client-token.js';
import { ACTION, timeoutMinutes, type EngineContext } from './context.js';
import { eventOf, toEvent } from './progress-event.js';
import { sealedDecision } from './record-backed.js';
import { isoOf } from './iso-time.js';
import { newRequestToken } from './request-token.js';
import { opened, sealRequest } from './sealing.js';
import type { ProgressEvent } from './types.js';
import type { Verdict } from '../verdict.js';
import { currentTraceparent, inSpan, traced } from '../telemetry/spans.js';

export interface BeginArgs {
  compiled: CompiledType;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  identifier: string | undefined;
  request: Record<string, unknown>;
  clientToken: string | undefined;
  hashOf: unknown;
  /** What the request is hashed as, when not its operation (a PUT's create and replace are one request). */
  hashAs?: RequestKind;
  requestToken?: string;
  /** Set for a record-backed provider: the operation is decided and written in one transaction. */
  decide?: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion;
  /** The stored resource an update was computed from: it begins only if that is still the state. */
  basedOn?: StoredResource;
  /** Said of the operation from the start (kept when it completes at once). */
  statusMessage?: string;
  /**
   * The request named no version, so it was checked against the default: it begins only while that
   * is still the default (the store refuses it with DefaultVersionMoved otherwise).
   */
  asDefault?: boolean;
  /** What the review warned of (kept with the operation, shown on its events). */
  warnings?: Verdict[];
  /** Who asks (the caller's id), kept with the operation: its end is recorded as theirs. */
  requestedBy?: string;
}

/** The caller, as an operation keeps it: `BeginArgs.requestedBy`, when there is one. */
export function askedBy(caller: Pick<Caller, 'id'> | undefined): Pick<BeginArgs, 'requestedBy'> {
  return caller ? { requestedBy: caller.id } : {};
}

/** Begins an operation (see the module's description); traced, in a span of its own. */
export function begin(ctx: EngineContext, args: BeginArgs): Promise<ProgressEvent> {
  if (!traced()) return beginHere(ctx, args);
  return inSpan(
    `begin ${args.operation}`,
    {
      'typeplane.type_name': args.compiled.type.typeName,
      'typeplane.operation': args.operation,
      ...(args.identifier !== undefined ? { 'typeplane.identifier': args.identifier } : {}),
    },
    () => beginHere(ctx, args),
  );
}

async function beginHere(ctx: EngineContext, args: BeginArgs): Promise<ProgressEvent> {
  const { compiled, identifier, decide } = args;
  const type = compiled.type;
  const now = Date.now();
  // Started here when there is room: leased to this worker at once and run without a claim.
  const runHere = !decide && ctx.worker.hasRoom(type.typeName, args.requestedBy);
  const { record, hash } = operationOf(ctx, args, runHere, now);
  const result = decide
    ? await ctx.store.completeOperation(record, hash, sealedDecision(ctx, type, decide))
    : await ctx.store.beginOperation(
        record,
        hash,
        runHere ? { owner: ctx.worker.owner, until: new Date(now + ctx.worker.leaseMs) } : undefined,
        args.basedOn &&
          unchangedSince(type, identifier!, args.basedOn, (stored) => opened(ctx.sealer, stored)),
      );
  return begun(ctx, args, result, runHere);
}

/**
 * The operation `args` begins, as the store is handed it (`runHere`: leased to this worker at once),
 * and the hash of its request when it has a client token.
 */
function operationOf(
  ctx: EngineContext,
  args: BeginArgs,
  runHere: boolean,
  now = Date.now(),
): { record: OperationRecord; hash: string | undefined } {
  const { compiled, operation, identifier, request, clientToken, decide } = args;
  const type = compiled.type;
  const token = validateClientToken(clientToken);
  const nowIso = isoOf(now);
  const requestToken = args.requestToken ?? newRequestToken();
  const record: OperationRecord = {
    requestToken,
    typeName: type.typeName,
    operation,
    status: runHere ? 'IN_PROGRESS' : 'PENDING',
    eventTime: nowIso,
    // A completed-inline operation never runs a handler: it keeps no copy of its request.
    // The version the request was checked against is the one its handler runs with.
    request: decide
      ? {}
      : sealRequest(ctx.sealer, type, requestToken, {
          ...(request as { desiredState: Model }),
          ...(compiled.version !== undefined ? { typeVersion: compiled.version } : {}),
        }),
    startedAt: nowIso,
    deadlineAt: isoOf(now + timeoutMinutes(type, ACTION[operation]) * ctx.minuteMs),
    attempts: 0,
  };
  if (identifier !== undefined) record.identifier = identifier;
  if (token !== undefined) record.clientToken = token;
  if (args.statusMessage !== undefined) record.statusMessage = args.statusMessage;
  if (args.warnings !== undefined) record.warnings = args.warnings;
  if (args.requestedBy !== undefined) record.requestedBy = args.requestedBy;
  if (args.asDefault && compiled.version !== undefined) record.checkedAgainstDefault = compiled.version;
  // The worker that runs it, here or elsewhere, later, continues this trace (see step.ts).
  const traceparent = decide ? undefined : currentTraceparent();
  if (traceparent !== undefined) record.request.traceparent = traceparent;
  // The hash only serves to compare requests made with the same client token.
  const hash =
    token === undefined
      ? undefined
      : requestHash(ctx.sealer, type.typeName, args.hashAs ?? operation, args.hashOf);
  return { record, hash };
}

/** An operation decided at once (`args.decide`), as the store completes it with others (completeAll). */
export function completionOf(
  ctx: EngineContext,
  args: BeginArgs & { decide: NonNullable<BeginArgs['decide']> },
): CompletionRequest {
  const { record, hash } = operationOf(ctx, args, false);
  return {
    operation: record,
    requestHash: hash,
    decide: sealedDecision(ctx, args.compiled.type, args.decide),
  };
}

/**
 * What the caller of a begin is answered, once the store has answered (`runHere`: leased to this
 * worker). The operation's type is known: answered without a promise.
 */
export function begun(
  ctx: EngineContext,
  args: Pick<BeginArgs, 'compiled' | 'identifier' | 'decide'>,
  result: BeginResult,
  runHere = false,
): ProgressEvent {
  const type = args.compiled.type;
  switch (result.kind) {
    case 'started':
      if (args.decide) {
        // Already terminal.
        const ended = result.operation;
        ctx.observer?.operationEnded(ended.typeName, ended.operation, ended.status, ended.errorCode, ended);
      } else if (runHere) {
        ctx.worker.launch(result.operation, true);
      } else {
        ctx.worker.queued();
      }
      return eventOf(result.operation, type);
    case 'replayed':
      return eventOf(result.operation, type);
    case 'token-mismatch':
      throw new ClientTokenReused(result.operation.requestToken);
    case 'conflict':
      throw new TypeplaneError(
        'ResourceConflict',
        `${type.typeName} ${args.identifier} has an operation in progress (${result.activeRequestToken}); wait for it to finish`,
        [{ message: 'active operation', requestToken: result.activeRequestToken }],
      );
  }
}

/**
 * An operation that fails before any handler runs but is still an operation (NotFound on update or
 * delete; AlreadyExists on a noReplace PUT's create).
 */
export async function failImmediately(
  ctx: EngineContext,
  compiled: CompiledType,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  identifier: string,
  errorCode: ErrorCode,
  message: string,
  clientToken: string | undefined,
  hashOf: Record<string, unknown>,
  hashAs?: RequestKind,
  requestedBy?: string,
): Promise<ProgressEvent> {
  const token = validateClientToken(clientToken);
  const now = new Date().toISOString();
  const record: OperationRecord = {
    requestToken: newRequestToken(),
    typeName: compiled.type.typeName,
    identifier,
    operation,
    status: 'FAILED',
    eventTime: now,
    errorCode,
    statusMessage: message,
    request: {},
    startedAt: now,
    deadlineAt: now,
    attempts: 0,
  };
  if (token !== undefined) record.clientToken = token;
  if (requestedBy !== undefined) record.requestedBy = requestedBy;
  const result = await ctx.store.beginOperation(
    record,
    token === undefined
      ? undefined
      : requestHash(ctx.sealer, compiled.type.typeName, hashAs ?? operation, { identifier, ...hashOf }),
  );
  if (result.kind === 'token-mismatch') {
    throw new ClientTokenReused();
  }
  if (result.kind === 'started')
    ctx.observer?.operationEnded(record.typeName, operation, 'FAILED', errorCode, record);
  if (result.kind === 'conflict')
    throw new TypeplaneError(
      'ResourceConflict',
      `${compiled.type.typeName} ${identifier} has an operation in progress`,
    );
  return toEvent(ctx, result.operation);
}
