/**
 * @module An import's step of a deployment's forward stage: the resource read through its provider
 * and recorded in the stack, with the template's properties as what the stack applied (drift then
 * shows where the resource differs from them) and the model read as what `Fn::GetAtt` reads. Nothing
 * is created; a rollback leaves the resource where it was (its DeletionPolicy is Retain). Before it is
 * recorded, taking charge of it is reviewed as a create of it as read (admission policies, hooks): a
 * denial fails the step, a warning is told on its events.
 */
import { TypeplaneError } from '../../errors.js';
import type { Verdict } from '../../verdict.js';
import type { ResourceRecord } from '../records.js';
import type { DeploymentState } from '../stages/state.js';

/** Whether the resource `identifier` is now `base.logicalId` of the stack. */
export async function importInto(
  d: DeploymentState,
  base: ResourceRecord,
  desired: Record<string, unknown>,
  identifier: string,
): Promise<boolean> {
  const { logicalId, type } = base;
  await d.resourceEvent(logicalId, type, identifier, 'IMPORT_IN_PROGRESS');
  let model: Record<string, unknown>;
  let verdicts: readonly Verdict[];
  try {
    model = (await d.ctx.engine.read(type, identifier)).properties;
    verdicts = await d.review(logicalId, identifier, () =>
      d.ctx.engine.review(type, {
        operation: 'CREATE',
        identifier,
        object: model,
        ...(d.caller ? { caller: d.caller } : {}),
      }),
    );
  } catch (e) {
    if (!(e instanceof TypeplaneError)) throw e;
    const why = d.masked(`${e.code}: ${e.message}`);
    await d.resourceEvent(logicalId, type, identifier, 'IMPORT_FAILED', why);
    await d.fail(`${logicalId}: ${why}`);
    return false;
  }
  const warnings = verdicts.filter((v) => v.action === 'Warn');
  if (warnings.length > 0)
    await d.resourceEvent(
      logicalId,
      type,
      identifier,
      'IMPORT_IN_PROGRESS',
      d.masked(`warned: ${warnings.map((w) => `${w.source} ${w.name}: ${w.message}`).join('; ')}`),
      warnings,
    );
  await d.saveDone({ ...base, identifier, properties: desired, model }, 'IMPORT_COMPLETE');
  return true;
}
