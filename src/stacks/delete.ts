/**
 * @module Starting a stack's deletion: refused while another stack imports one of its exports or a
 * deployment runs; the deletion's record written under this server's lease, the stack marked
 * DELETE_IN_PROGRESS, then handed to the runner (stages/delete.ts deletes the resources).
 */
import { randomUUID } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import type { StacksCore } from './core.js';
import { tracedFrom } from './deployment.js';
import { purgeDeleted } from './listing.js';
import { recordedTypes, stackNotFound, stacksNamed, unnamed, type Authorize } from './reach.js';
import type { DeploymentRecord, StackCaller } from './records.js';
import type { Launch } from './resume.js';
import { TERMINAL, assertStackName } from './status.js';
import { describe, type Started } from './views.js';

export async function startDelete(
  core: StacksCore,
  launch: Launch,
  name: string,
  authorize: Authorize,
  caller: StackCaller | undefined,
): Promise<Started> {
  const { records } = core;
  assertStackName(name);
  const current = await records.getStack(name);
  if (!current) throw stackNotFound(name);
  await unnamed(`stack ${name}`, async () => authorize(await recordedTypes(records, name)));
  // Each deletion forgets the deleted stacks past the retention, as listing them does.
  purgeDeleted(core).catch((e: unknown) =>
    core.ctx.log.warn({ err: String(e) }, 'forgetting deleted stacks past their retention failed'),
  );
  for (const exportName of current.record.exports) {
    const importers = (await records.importers(exportName)).filter((s) => s !== name);
    if (importers.length > 0)
      throw new TypeplaneError(
        'ResourceConflict',
        `stack ${name} cannot be deleted: its export ${exportName} is imported by ${await stacksNamed(records, importers, authorize)}; remove the import there first`,
      );
  }
  const id = randomUUID();
  const deployment: DeploymentRecord = {
    id,
    stack: name,
    kind: 'delete',
    phase: 'delete',
    noRollback: true,
    update: true,
    ...(caller ? { caller } : {}),
    ...tracedFrom(),
    owner: core.owner,
    leaseUntil: new Date(Date.now() + core.leaseMs).toISOString(),
    startedAt: new Date().toISOString(),
  };
  const stamp = await records.insertDeployment(deployment);
  try {
    await records.updateStack(name, (s) => {
      if (s.deployment !== undefined || !TERMINAL.test(s.status))
        throw new TypeplaneError('ResourceConflict', `stack ${name} is ${s.status}; wait for it to finish`);
      return { ...s, status: 'DELETE_IN_PROGRESS', deployment: id, version: s.version + 1 };
    });
  } catch (e) {
    await records.deleteDeployment(id);
    throw e;
  }
  await records.addEvent(name, {
    logicalId: name,
    type: 'Typeplane::Stack',
    identifier: current.record.stackId,
    status: 'DELETE_IN_PROGRESS',
  });
  launch(deployment, stamp);
  return { stack: await describe(core, name), deploymentId: id, startedAt: deployment.startedAt };
}
