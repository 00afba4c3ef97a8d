/**
 * @module Deleting resources, dependants first (a stack's deletion, and cleanup's removed
 * resources), and the delete stage of a stack's deletion: every resource, then its exports, imports,
 * records and plans; the stack is kept as deleted, with its events, for the retention.
 */
import { walkGraph } from '../graph.js';
import type { ResourceRecord } from '../records.js';
import { retained } from '../retention.js';
import { stepToken, type DeploymentState } from './state.js';

/** Delete records' resources, dependants first; Retain leaves them. Whether all went. */
export async function deleteInReverse(
  d: DeploymentState,
  records: ResourceRecord[],
  action: string,
): Promise<boolean> {
  const ids = new Set(records.map((r) => r.logicalId));
  const dependants = new Map<string, string[]>();
  for (const r of records)
    for (const dep of r.dependsOn)
      if (ids.has(dep)) dependants.set(dep, [...(dependants.get(dep) ?? []), r.logicalId]);
  const result = await walkGraph(
    records.map((r) => r.logicalId),
    (id) => dependants.get(id) ?? [],
    d.ctx.concurrency,
    (id) => {
      const rec = d.resources.get(id)!;
      return d.resourceStep(id, rec.type, () => deleteStep(d, rec, action));
    },
  );
  return result.failed.length === 0 && result.skipped.length === 0;
}

/** One resource deleted (or left, by its DeletionPolicy); whether it is gone from the stack. */
async function deleteStep(d: DeploymentState, rec: ResourceRecord, action: string): Promise<boolean> {
  const id = rec.logicalId;
  if (rec.identifier === undefined) {
    await d.forget(id);
    return true;
  }
  if (retained(rec.deletionPolicy)) {
    await d.resourceEvent(
      id,
      rec.type,
      rec.identifier,
      'DELETE_SKIPPED',
      `DeletionPolicy: ${rec.deletionPolicy}`,
    );
    await d.forget(id);
    return true;
  }
  await d.resourceEvent(id, rec.type, rec.identifier, 'DELETE_IN_PROGRESS');
  const event = await d.operate(id, () =>
    d.ctx.engine.delete(rec.type, rec.identifier!, stepToken(d.id, action, id), d.caller),
  );
  if (event.operationStatus !== 'SUCCESS' && event.errorCode !== 'NotFound') {
    const why = d.reason(event);
    await d.resourceEvent(id, rec.type, rec.identifier, 'DELETE_FAILED', why);
    await d.fail(`${id}: ${why}`);
    return false;
  }
  await d.resourceEvent(id, rec.type, rec.identifier, 'DELETE_COMPLETE');
  await d.forget(id);
  return true;
}

/** A stack's deletion, to its end: DELETE_COMPLETE, or DELETE_FAILED with what could not go. */
export async function deleteStack(d: DeploymentState): Promise<void> {
  const all = [...d.resources.values()];
  const ok = await deleteInReverse(d, all, 'delete');
  if (d.lost()) return;
  if (!ok) return d.finish('DELETE_FAILED', d.record.failure);
  for (const name of d.stack.exports) await d.ctx.records.deleteExport(name, d.name);
  for (const name of d.stack.imports) await d.ctx.records.setImport(name, d.name, false);
  await d.stackEvent('DELETE_COMPLETE');
  const types = [...new Set([...(d.stack.types ?? []), ...all.map((r) => r.type)])];
  await d.ctx.records.dropResources(d.name);
  await d.ctx.records.dropPlans(d.name);
  // Kept, with its events, as deleted (listed, its events read) until the server's retention passes.
  await d.ctx.records.keepDeleted(d.stack, types);
  await d.ctx.records.deleteDeployment(d.id);
  d.ended('DELETE_COMPLETE');
}
