/**
 * @module The rollback stage: what this deployment changed, put back in reverse order — a created
 * resource deleted (left, out of the stack, under `DeletionPolicy: Retain`), an updated one updated
 * back, a replaced one's old resource kept (or made again when it was deleted first).
 */
import { decide } from '../changes.js';
import { walkGraph } from '../graph.js';
import type { ResourceRecord } from '../records.js';
import { retained } from '../retention.js';
import { stepToken, type DeploymentState } from './state.js';

/** Whether every resource was put back. */
export async function rollback(d: DeploymentState): Promise<boolean> {
  const touched = [...d.resources.values()].filter((r) => r.deployment === d.id);
  const ids = new Set(touched.map((r) => r.logicalId));
  const dependants = new Map<string, string[]>();
  for (const r of touched)
    for (const dep of r.dependsOn)
      if (ids.has(dep)) dependants.set(dep, [...(dependants.get(dep) ?? []), r.logicalId]);
  let ok = true;
  await walkGraph(
    touched.map((r) => r.logicalId),
    (id) => dependants.get(id) ?? [],
    d.ctx.concurrency,
    async (id) => {
      const rec = d.resources.get(id)!;
      // A resource that cannot be put back is reported; the others are still put back.
      if (!(await d.resourceStep(id, rec.type, () => rollbackStep(d, rec)))) ok = false;
      return true;
    },
  );
  return ok;
}

async function rollbackStep(d: DeploymentState, rec: ResourceRecord): Promise<boolean> {
  const { logicalId } = rec;
  const previous = rec.previous;
  const deleteCurrent = async (): Promise<boolean> => {
    if (rec.identifier === undefined) return true;
    await d.resourceEvent(logicalId, rec.type, rec.identifier, 'DELETE_IN_PROGRESS', 'rollback');
    const event = await d.operate(logicalId, () =>
      d.ctx.engine.delete(rec.type, rec.identifier!, stepToken(d.id, 'rollback-delete', logicalId), d.caller),
    );
    const done = event.operationStatus === 'SUCCESS' || event.errorCode === 'NotFound';
    await d.resourceEvent(
      logicalId,
      rec.type,
      rec.identifier,
      done ? 'DELETE_COMPLETE' : 'DELETE_FAILED',
      done ? 'rollback' : d.reason(event),
    );
    return done;
  };
  if (!previous) {
    // Made (or imported) by this deployment: its DeletionPolicy decides, as on a stack's deletion.
    if (rec.identifier !== undefined && retained(rec.deletionPolicy, true)) {
      await d.resourceEvent(
        logicalId,
        rec.type,
        rec.identifier,
        'DELETE_SKIPPED',
        `rollback: DeletionPolicy: ${rec.deletionPolicy}`,
      );
      await d.forget(logicalId);
      return true;
    }
    if (!(await deleteCurrent())) return false;
    await d.forget(logicalId);
    return true;
  }
  const restored: ResourceRecord = {
    ...rec,
    type: previous.type,
    properties: previous.properties,
    model: previous.model,
    status: 'UPDATE_COMPLETE',
    deployment: `${d.id}:rolled-back`,
  };
  delete restored.previous;
  delete restored.replaced;
  if (rec.replaced || previous.identifier !== rec.identifier) {
    if (!(await deleteCurrent())) return false;
    if (rec.replaced) {
      await d.save({ ...restored, identifier: rec.replaced.identifier });
      return true;
    }
    // The old resource was deleted first: create it again as it was.
    await d.resourceEvent(logicalId, previous.type, undefined, 'CREATE_IN_PROGRESS', 'rollback');
    const event = await d.operate(logicalId, () =>
      d.ctx.engine.create(
        previous.type,
        previous.properties,
        stepToken(d.id, 'rollback-create', logicalId),
        d.caller,
      ),
    );
    if (event.operationStatus !== 'SUCCESS' || event.identifier === undefined) {
      await d.resourceEvent(logicalId, previous.type, undefined, 'CREATE_FAILED', d.reason(event));
      return false;
    }
    const type = (await d.ctx.types.get(previous.type))?.type;
    await d.save({
      ...restored,
      identifier: event.identifier,
      model: type ? await d.modelOf(type, event, event.identifier) : previous.model,
    });
    await d.resourceEvent(logicalId, previous.type, event.identifier, 'CREATE_COMPLETE', 'rollback');
    return true;
  }
  const type = (await d.ctx.types.get(rec.type))?.type;
  const decision = type ? decide(type, rec, previous.properties) : { action: 'NoChange' as const };
  if (decision.action === 'Modify') {
    await d.resourceEvent(logicalId, rec.type, rec.identifier, 'UPDATE_IN_PROGRESS', 'rollback');
    const event = await d.operate(logicalId, () =>
      d.ctx.engine.update(
        rec.type,
        rec.identifier!,
        decision.patch,
        stepToken(d.id, 'rollback-update', logicalId),
        d.caller,
      ),
    );
    if (event.operationStatus !== 'SUCCESS') {
      await d.resourceEvent(logicalId, rec.type, rec.identifier, 'UPDATE_FAILED', d.reason(event));
      return false;
    }
    await d.resourceEvent(logicalId, rec.type, rec.identifier, 'UPDATE_COMPLETE', 'rollback');
  }
  await d.save({ ...restored, identifier: rec.identifier! });
  return true;
}
