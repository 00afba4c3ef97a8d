/**
 * @module Adoption: the stack of an instance made without one (direct.ts), written when something
 * first needs it, from what its create made; and the deletion of an instance's stack as its recipe.
 */
import { TypeplaneError } from '../errors.js';
import type { ResourceType } from '../schema/index.js';
import type { StackView, Stacks } from '../stacks/index.js';
import { bindInstance, callerFor, describedOrNone, DONE, grantsOf, versionOf } from './instance-stack.js';
import type { InstanceRecord, RecipeStore, RecipeVersion } from './records.js';

/** What an adoption reads and writes through: the stacks and the recipes' records. */
export interface AdoptionRuntime {
  stacks: Stacks;
  records: RecipeStore;
}

/**
 * The stack of an instance made without one (direct.ts), written now that something needs it (an
 * update, an upgrade, a drift check): the same bound template deployed with the create's deployment
 * id and stack id, adopting what was made (each recorded as made, with no engine call). Nothing is
 * deleted if it fails (no rollback, and its records are written only once it ended well, all in one
 * transaction). Answers the record as it now is (its stack written); an instance that has its stack
 * already is answered as it is. Several needs at once share one write here; on replicas, the second
 * to flush takes the first's stack. An instance whose deletion began is not adopted (NotFound), and a
 * stack written as its deletion began is deleted again.
 */
export async function adoptStack(
  runtime: AdoptionRuntime,
  type: ResourceType,
  record: InstanceRecord,
): Promise<InstanceRecord> {
  if (!record.direct) return record;
  // Two first needs at once here (a drift check and an upgrade plan) share one write.
  let running = adopting.get(runtime.records);
  if (!running) adopting.set(runtime.records, (running = new Map()));
  const key = `${record.typeName}\0${record.identifier}`;
  const shared = running.get(key);
  if (shared) return shared;
  const adoption = adoptOnce(runtime, type, record).finally(() => running.delete(key));
  running.set(key, adoption);
  return adoption;
}

/** Adoptions in progress in this process, by records store, then instance. */
const adopting = new WeakMap<object, Map<string, Promise<InstanceRecord>>>();

async function adoptOnce(
  runtime: AdoptionRuntime,
  type: ResourceType,
  record: InstanceRecord,
): Promise<InstanceRecord> {
  if (record.phase === 'deleting') throw beingDeleted(type, record);
  const version = await versionOf(runtime.records, record);
  const existing = await describedOrNone(runtime.stacks, record.stack);
  ownStack(type, record, existing);
  if (!existing) {
    try {
      await writeAdopted(runtime, type, record, version);
    } catch (e) {
      // Another replica wrote it first: the same stack (its create's stack id) is as good as ours.
      if (!(e instanceof TypeplaneError && e.code === 'ResourceConflict')) throw e;
      const now = await describedOrNone(runtime.stacks, record.stack);
      if (!now) throw e;
      ownStack(type, record, now);
    }
  }
  // Read again: another call may have written the stack, and the record, meanwhile; or the instance's
  // deletion began, and may have looked for the stack before it was written: it goes again here.
  for (let attempt = 1; ; attempt++) {
    const now = await runtime.records.getInstance(record.typeName, record.identifier);
    if (!now || now.record.phase === 'deleting') {
      await deleteStackOf(runtime.stacks, record, version);
      throw beingDeleted(type, record);
    }
    if (!now.record.direct) return now.record;
    const written: InstanceRecord = { ...now.record };
    delete written.direct;
    if (await runtime.records.swapInstance(type, written, now.writtenBy)) return written;
    if (attempt === 3)
      throw new TypeplaneError(
        'ResourceConflict',
        `${type.typeName} ${record.identifier} kept changing while its stack was written; ask again`,
      );
  }
}

/**
 * Delete an instance's stack as its recipe: the id of that deletion, or of one begun meanwhile (by
 * the instance's deletion, or by an adoption that found it begun), or undefined once it is gone.
 */
export async function deleteStackOf(
  stacks: Stacks,
  record: InstanceRecord,
  version: RecipeVersion,
): Promise<string | undefined> {
  try {
    return (await stacks.delete(record.stack, grantsOf(version), callerFor(version))).deploymentId;
  } catch (e) {
    if (!(e instanceof TypeplaneError && (e.code === 'ResourceConflict' || e.code === 'NotFound'))) throw e;
    return (await describedOrNone(stacks, record.stack))?.deploymentId;
  }
}

function beingDeleted(type: ResourceType, record: InstanceRecord): TypeplaneError {
  return new TypeplaneError('NotFound', `${type.typeName} ${record.identifier} is being deleted`);
}

/** A stack written meanwhile by another call is this instance's (its create's stack id): anything else is refused, never taken for it. */
function ownStack(type: ResourceType, record: InstanceRecord, stack: StackView | undefined): void {
  if (stack && stack.stackId !== record.direct!.stackId)
    throw new TypeplaneError(
      'ResourceConflict',
      `stack ${record.stack} of ${type.typeName} ${record.identifier} is not the one its create made (${stack.stackId}); delete the instance and create it again`,
    );
}

/** The buffered deployment that writes the stack from what was made: nothing is deleted if it fails. */
async function writeAdopted(
  runtime: Pick<AdoptionRuntime, 'stacks'>,
  type: ResourceType,
  record: InstanceRecord,
  version: RecipeVersion,
): Promise<void> {
  const direct = record.direct!;
  const bound = bindInstance(type, record, version, direct.asked);
  const run = await runtime.stacks.deployBuffered(record.stack, bound.text, bound.parameters, {
    deploymentId: direct.deploymentId,
    authorize: grantsOf(version),
    caller: callerFor(version),
    adopt: {
      stackId: direct.stackId,
      resources: Object.fromEntries(
        direct.made.map((m) => [m.logicalId, { identifier: m.identifier, model: m.model }]),
      ),
    },
    noRollback: true,
  });
  await run.done;
  const ended = await run.state();
  if (!ended || ended.deploymentId !== undefined)
    throw new TypeplaneError(
      'ServiceInternalError',
      `the stack of ${type.typeName} ${record.identifier} was not written (this server stops): ask again`,
    );
  if (!DONE.has(ended.status))
    throw new TypeplaneError(
      'InternalFailure',
      `the stack of ${type.typeName} ${record.identifier} could not be written from what its recipe made: ${ended.statusReason ?? ended.status}`,
    );
  await run.flush();
}
