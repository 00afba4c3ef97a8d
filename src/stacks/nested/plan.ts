/**
 * @module A plan's nested stacks planned too: for each nested stack the plan adds or modifies, the
 * changes its own deployment would make (its template and parameters as the parent's plan has them,
 * against the nested stack as it is), through every level — so the parent's plan shows what the
 * nested stacks will change. One whose template or parameters are known only after apply, or hold a
 * value the plan masks, is planned when it is deployed, and says so.
 */
import { TypeplaneError } from '../../errors.js';
import { applyPatch } from '../../model/index.js';
import type { StacksCore } from '../core.js';
import { KNOWN_AFTER_APPLY } from '../intrinsics.js';
import { MASK } from '../parameters.js';
import type { PlannedChange } from '../plan.js';
import { changesOf } from '../plans.js';
import type { Authorize } from '../reach.js';
import type { ResourceRecord } from '../records.js';
import { NEVER_CREATED } from '../status.js';
import { analyzeForStack } from '../validate.js';
import { NESTED_STACK_TYPE } from './names.js';
import { NESTED_STACK } from './type.js';

/** Most nested stacks one plan plans (every level together): each costs an analysis of its template. */
export const MAX_NESTED_PLANS = 50;

/** What a plan says of a nested stack's own changes. */
export type NestedPlan = { stackName?: string; changes: PlannedChange[] } | { notPlanned: string };

/** Sets `nested` on each change of `changes` that adds or modifies a nested stack. */
export async function planNestedStacks(
  core: StacksCore,
  parent: string,
  changes: PlannedChange[],
  records: ReadonlyMap<string, ResourceRecord>,
  authorize: Authorize,
  budget = { left: MAX_NESTED_PLANS },
): Promise<void> {
  for (const change of changes) {
    if (change.type !== NESTED_STACK_TYPE) continue;
    if (change.action !== 'Add' && change.action !== 'Modify' && change.action !== 'Replace') continue;
    const rec = records.get(change.logicalId);
    const desired =
      change.action === 'Modify'
        ? applyPatch(NESTED_STACK.type, rec?.properties ?? {}, change.patch ?? [])
        : (change.properties ?? {});
    change.nested =
      budget.left-- > 0
        ? await planOne(core, parent, change, desired, authorize, budget)
        : {
            notPlanned: `a plan plans at most ${MAX_NESTED_PLANS} nested stacks: this one's changes are planned when it is deployed`,
          };
  }
}

async function planOne(
  core: StacksCore,
  parent: string,
  change: PlannedChange,
  desired: Record<string, unknown>,
  authorize: Authorize,
  budget: { left: number },
): Promise<NestedPlan> {
  const text = desired.TemplateBody;
  const seen = JSON.stringify([text, desired.Parameters ?? {}]);
  if (typeof text !== 'string' || seen.includes(KNOWN_AFTER_APPLY) || seen.includes(MASK))
    return {
      notPlanned:
        'its template or parameters are known only after apply, or hold a NoEcho value: its changes are planned when it is deployed',
    };
  // A nested stack the plan adds has no name yet (its deployment chooses it): planned as a new stack.
  const existing =
    change.action === 'Modify' && change.identifier ? change.identifier.split('/')[1] : undefined;
  const name = existing ?? `${parent}-${change.logicalId}`.slice(0, 128);
  const parameters = Object.fromEntries(
    Object.entries((desired.Parameters ?? {}) as Record<string, unknown>).map(([k, v]) => [
      k,
      Array.isArray(v) ? v.map(String).join(',') : String(v),
    ]),
  );
  try {
    const analysis = await analyzeForStack(core, name, text, parameters, authorize);
    const stack = existing ? (await core.records.getStack(existing))?.record : undefined;
    const records =
      stack && !NEVER_CREATED.has(stack.status)
        ? await core.records.getResources(existing!)
        : new Map<string, ResourceRecord>();
    const changes = await changesOf(core, name, analysis, stack, records);
    await planNestedStacks(core, name, changes, records, authorize, budget);
    return { ...(existing ? { stackName: existing } : {}), changes };
  } catch (e) {
    if (!(e instanceof TypeplaneError)) throw e;
    const details = e.details.slice(0, 3).map((d) => `${d.pointer ?? ''} ${d.message}`.trim());
    return { notPlanned: `${e.message}${details.length > 0 ? `: ${details.join('; ')}` : ''}` };
  }
}
