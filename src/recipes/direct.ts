/**
 * @module A new instance made without a stack: when its bound recipe needs nothing of a stack's
 * records (the stacks' `direct`), its resources are made here, each through the engine as the recipe,
 * in the template's order, with the values the stack's deployment would have given them; the instance
 * record lists what was made. Its stack is written only when first needed — the instance's first
 * update, upgrade or drift check — by a deployment that adopts what was made (adopt.ts). An instance's
 * create thus costs its resources' operations and one record, not a stack's records and events.
 *
 * Every lower operation's client token is derived from the create's (the stack's step tokens, with the
 * create's deployment id), so a create run again after a crash replays what it had begun, and a failed
 * one deletes what it made, in reverse order, with tokens of its own.
 */
import {
  refusedEvent,
  TERMINAL_STATUSES,
  type Caller,
  type Engine,
  type ProgressEvent,
} from '../engine/index.js';
import { isErrorCode, TypeplaneError, type ErrorCode } from '../errors.js';
import { stripWriteOnly } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import { stepToken, walkGraph, type DirectTemplate, type MadeResource } from '../stacks/index.js';
import { inSpan, traced } from '../telemetry/spans.js';

/** One resource an instance's recipe made, as its record lists it. */
export interface Made {
  logicalId: string;
  typeName: string;
  identifier: string;
  /** Its model as made (write-only values dropped): what the stack adopting it records. */
  model: Record<string, unknown>;
}

/** What the engine runs a direct instance's resources with. */
export type DirectEngine = Pick<Engine, 'create' | 'delete' | 'read' | 'waitFor'>;

export type DirectOutcome =
  | { ok: true; made: Made[]; outputs: { name: string; value: unknown; secret: boolean }[] }
  | { ok: false; code: ErrorCode; message: string };

/** Most lower operations one instance runs at once (independent resources in parallel, as a stack's). */
const CONCURRENCY = 8;
const WAIT_SLICE_MS = 60_000;

/** Run one engine operation to its end; refused before it began, a failed event. */
async function operate(engine: DirectEngine, start: () => Promise<ProgressEvent>): Promise<ProgressEvent> {
  let event: ProgressEvent;
  try {
    event = await start();
  } catch (e) {
    if (!(e instanceof TypeplaneError)) throw e;
    return refusedEvent(e);
  }
  while (!TERMINAL_STATUSES.has(event.operationStatus))
    event = await engine.waitFor(event.requestToken, WAIT_SLICE_MS);
  return event;
}

/**
 * One resource's step, traced as a stack's are (`recipe resource create|delete`, its engine
 * operation under it), when a trace is active.
 */
function resourceStep<T>(
  action: string,
  stack: string,
  logicalId: string,
  typeName: string,
  step: () => Promise<T>,
): Promise<T> {
  if (!traced()) return step();
  return inSpan(
    `recipe resource ${action}`,
    { 'typeplane.stack': stack, 'typeplane.logical_id': logicalId, 'typeplane.type_name': typeName },
    step,
  );
}

/** A failed event's code and words, masked, under the resource's logical id. */
function failureOf(
  template: DirectTemplate,
  logicalId: string,
  event: ProgressEvent,
): { code: ErrorCode; message: string } {
  const code = event.errorCode !== undefined && isErrorCode(event.errorCode) ? event.errorCode : undefined;
  return {
    code: code ?? 'GeneralServiceException',
    message: `${logicalId}: ${template.masked(event.statusMessage ?? event.operationStatus)}`,
  };
}

/**
 * Make the resources of `template` (a new instance's), as `caller`, through the stacks' engine; on a
 * failure, delete what was made, in reverse order, and answer the first failure.
 */
export async function makeDirect(
  typeOf: (typeName: string) => Promise<ResourceType>,
  template: DirectTemplate,
  deploymentId: string,
  caller: Caller,
  /** Counted as it goes: what a handler answering IN_PROGRESS meanwhile says. */
  progress: { done: number; total: number } = { done: 0, total: 0 },
): Promise<DirectOutcome> {
  const { engine } = template;
  progress.total = template.order.length;
  const models = new Map<string, MadeResource>();
  const made: Made[] = [];
  let failure: { code: ErrorCode; message: string } | undefined;
  const step = async (logicalId: string): Promise<boolean> => {
    let resource;
    try {
      resource = template.resource(logicalId, models);
    } catch (e) {
      failure ??= {
        code: 'GeneralServiceException',
        message: `${logicalId}: ${e instanceof Error ? e.message : String(e)}`,
      };
      return false;
    }
    if (resource === undefined) return true; // its Condition is false
    const event = await resourceStep('create', caller.stack ?? '', logicalId, resource.typeName, () =>
      operate(engine, () =>
        engine.create(
          resource.typeName,
          resource.properties,
          stepToken(deploymentId, 'create', logicalId),
          caller,
        ),
      ),
    );
    if (event.operationStatus !== 'SUCCESS' || event.identifier === undefined) {
      failure ??= failureOf(template, logicalId, event);
      return false;
    }
    const identifier = event.identifier;
    // Listed at once: made, it is deleted again if anything fails from here on.
    const entry: Made = { logicalId, typeName: resource.typeName, identifier, model: {} };
    made.push(entry);
    try {
      const type = await typeOf(resource.typeName);
      entry.model = event.resourceModel
        ? stripWriteOnly(type, event.resourceModel)
        : (await engine.read(resource.typeName, identifier)).properties;
      models.set(logicalId, { identifier, model: entry.model });
      progress.done++;
    } catch (e) {
      if (!(e instanceof TypeplaneError)) throw e;
      failure ??= { code: e.code, message: `${logicalId}: ${template.masked(e.message)}` };
      return false;
    }
    return true;
  };
  const walked = await walkGraph(template.order, (id) => template.dependsOn(id), CONCURRENCY, step);
  if (walked.failed.length === 0 && failure === undefined) {
    try {
      return { ok: true, made, outputs: template.outputs(models) };
    } catch (e) {
      failure = {
        code: 'GeneralServiceException',
        message: `output: ${e instanceof Error ? e.message : String(e)}`,
      };
    }
  }
  const left = await removeMade(engine, made, deploymentId, caller);
  const why = failure ?? { code: 'GeneralServiceException' as ErrorCode, message: 'the recipe failed' };
  return left.length === 0
    ? { ok: false, ...why }
    : {
        ok: false,
        code: why.code,
        message: `${why.message} (and its resources could not all be removed: ${left.map((l) => template.masked(l.why)).join('; ')})`,
      };
}

/**
 * Delete `made` in reverse order (the last made first: nothing made later depends on it once it
 * goes), each with a token derived from `seed` (run again, a deletion replays); answers what could
 * not be deleted, and why.
 */
export async function removeMade(
  engine: DirectEngine,
  made: readonly Made[],
  /** What the tokens are derived from: the failed create's deployment id, or the deletion's token. */
  seed: string,
  caller: Caller,
): Promise<{ made: Made; why: string }[]> {
  const left: { made: Made; why: string }[] = [];
  for (const m of [...made].reverse()) {
    const event = await resourceStep('delete', caller.stack ?? '', m.logicalId, m.typeName, () =>
      operate(engine, () =>
        engine.delete(m.typeName, m.identifier, stepToken(seed, 'delete', m.logicalId), caller),
      ),
    );
    // Gone already (deleted by hand, or by an earlier run of this deletion) is as good as deleted.
    if (event.operationStatus === 'SUCCESS' || event.errorCode === 'NotFound') continue;
    left.push({
      made: m,
      why: `${m.logicalId}: ${event.errorCode ?? event.operationStatus}: ${event.statusMessage ?? 'no message'}`,
    });
  }
  return left;
}
