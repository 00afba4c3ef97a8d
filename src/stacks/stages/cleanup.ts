/**
 * @module The cleanup stage of a successful deployment: the resources it replaced, then those the
 * template no longer has (or whose condition is now false), deleted last, in reverse order.
 */
import { deleteInReverse } from './delete.js';
import type { ResourceRecord } from '../records.js';
import { stepToken, type DeploymentState } from './state.js';

export async function cleanup(d: DeploymentState): Promise<void> {
  for (const rec of [...d.resources.values()]) {
    const old = rec.replaced;
    if (!old || rec.deployment !== d.id) continue;
    await d.resourceStep(rec.logicalId, old.type, () => deleteReplaced(d, rec, old));
  }
  await deleteInReverse(d, (d.removed ??= removedBy(d)), 'remove');
}

/** Whether cleanup has anything to delete: a resource this deployment replaced, or one it removed. */
export function cleansUp(d: DeploymentState): boolean {
  // Worked out once: the cleanup that follows deletes these (a step's save changes none of them).
  d.removed = removedBy(d);
  for (const rec of d.resources.values()) if (rec.replaced && rec.deployment === d.id) return true;
  return d.removed.length > 0;
}

/** The stack's resources the template no longer has, or whose condition is now false. */
function removedBy(d: DeploymentState) {
  const analysis = d.analysis!;
  const scope = d.scope(analysis);
  return [...d.resources.values()].filter(
    (r) => !analysis.resources.has(r.logicalId) || scope.included(r.logicalId) === false,
  );
}

/** The resource `rec` replaced, deleted (or kept, by its UpdateReplacePolicy), and `rec` saved without it. */
async function deleteReplaced(
  d: DeploymentState,
  rec: ResourceRecord,
  old: NonNullable<ResourceRecord['replaced']>,
): Promise<void> {
  if (rec.updateReplacePolicy === 'Retain') {
    await d.resourceEvent(
      rec.logicalId,
      old.type,
      old.identifier,
      'DELETE_SKIPPED',
      'UpdateReplacePolicy: Retain',
    );
  } else {
    await d.resourceEvent(rec.logicalId, old.type, old.identifier, 'DELETE_IN_PROGRESS', 'replaced');
    const event = await d.operate(rec.logicalId, () =>
      d.ctx.engine.delete(
        old.type,
        old.identifier,
        stepToken(d.id, 'cleanup-replaced', rec.logicalId),
        d.caller,
      ),
    );
    const ok = event.operationStatus === 'SUCCESS' || event.errorCode === 'NotFound';
    await d.resourceEvent(
      rec.logicalId,
      old.type,
      old.identifier,
      ok ? 'DELETE_COMPLETE' : 'DELETE_FAILED',
      ok ? undefined : d.reason(event),
    );
    if (!ok) return;
  }
  const { replaced: _done, ...rest } = rec;
  await d.save(rest);
}
