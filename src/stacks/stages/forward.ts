/**
 * @module The forward stage: the template's resources created or updated (or replaced) in
 * dependency order, independent ones in parallel, then its outputs evaluated. Each step keeps in its
 * record what a rollback needs: the resource as it was before this deployment.
 */
import type { ProgressEvent } from '../../engine/index.js';
import type { ResourceType } from '../../schema/index.js';
import { asEvaluationError, desiredProperties } from '../analyze.js';
import { walkGraph } from '../graph.js';
import type { Scope } from '../intrinsics.js';
import { decideNamed, physicalName } from '../physical-names.js';
import type { ResourceRecord } from '../records.js';
import { evaluateOutputs } from './outputs.js';
import { importInto } from '../import/step.js';
import { stepToken, type DeploymentState } from './state.js';

/** Whether every resource is in place and the outputs evaluate. */
export async function forward(d: DeploymentState): Promise<boolean> {
  const analysis = d.analysis!;
  const scope = d.scope(analysis);
  const result = await walkGraph(
    analysis.order,
    (id) => analysis.resources.get(id)!.dependsOn,
    d.ctx.concurrency,
    (id) =>
      d.resourceStep(id, analysis.resources.get(id)?.compiled.type.typeName, () => forwardStep(d, id, scope)),
  );
  if (result.failed.length > 0) return false;
  // Outputs are part of the deployment: one that cannot be evaluated fails it.
  try {
    d.outputs = await evaluateOutputs(d, scope);
  } catch (e) {
    await d.fail(`output: ${asEvaluationError(e, '/Outputs').message}`);
    return false;
  }
  return true;
}

async function forwardStep(d: DeploymentState, logicalId: string, scope: Scope): Promise<boolean> {
  if (d.lost()) return false;
  const analyzed = d.analysis!.resources.get(logicalId)!;
  const type = analyzed.compiled.type;
  const rec = d.resources.get(logicalId);
  if (rec?.deployment === d.id && (rec.status === 'CREATE_COMPLETE' || rec.status === 'UPDATE_COMPLETE'))
    return true; // done before a restart
  let desired: Record<string, unknown>;
  try {
    const included = scope.included(logicalId);
    if (included === false) return true; // removed in cleanup, if it exists
    desired = desiredProperties(analyzed, scope, logicalId);
  } catch (e) {
    // Evaluating again gives the same answer: the step fails (and the deployment rolls back), it is
    // never left to be resumed and thrown again after every lease.
    const error = asEvaluationError(e, `/Resources/${logicalId}/Properties`);
    await d.resourceEvent(
      logicalId,
      type.typeName,
      rec?.identifier,
      rec ? 'UPDATE_FAILED' : 'CREATE_FAILED',
      error.message,
    );
    await d.fail(`${logicalId}: ${error.message}`);
    return false;
  }
  const importing = rec ? undefined : d.record.imports?.[logicalId];
  if (importing !== undefined) return importInto(d, baseRecord(d, logicalId, type, rec), desired, importing);
  const named = decideNamed(type, rec, desired, () => physicalName(type, d.name, logicalId, d.id));
  const decision = named.decision;
  desired = named.desired;
  const base = baseRecord(d, logicalId, type, rec);
  if (named.physicalName !== undefined) base.physicalName = named.physicalName;
  else delete base.physicalName;
  switch (decision.action) {
    case 'NoChange':
      return true;
    case 'Add':
      return create(d, logicalId, type, desired, base, 'create');
    case 'Modify': {
      d.resourceEventSoon(logicalId, type.typeName, rec!.identifier, 'UPDATE_IN_PROGRESS');
      const event = await d.operate(logicalId, () =>
        d.ctx.engine.update(
          type.typeName,
          rec!.identifier!,
          decision.patch,
          stepToken(d.id, 'update', logicalId),
          d.caller,
        ),
      );
      if (event.operationStatus !== 'SUCCESS') {
        const reason = d.reason(event);
        await d.resourceEvent(logicalId, type.typeName, rec!.identifier, 'UPDATE_FAILED', reason);
        await d.fail(`${logicalId}: ${reason}`);
        return false;
      }
      // An update that answers another identifier replaced the resource (a custom resource's handler
      // may): the old one is deleted in cleanup, as CloudFormation does.
      const identifier = event.identifier ?? rec!.identifier!;
      const replaced =
        identifier !== rec!.identifier ? { replaced: { type: rec!.type, identifier: rec!.identifier! } } : {};
      await d.saveDone(
        {
          ...base,
          identifier,
          ...replaced,
          properties: desired,
          model: await d.modelOf(type, event, identifier),
        },
        'UPDATE_COMPLETE',
      );
      return true;
    }
    case 'Replace': {
      const reason = `replacing: ${decision.createOnly!.join(', ')} cannot change in place`;
      if (decision.deleteFirst) {
        await d.resourceEvent(logicalId, type.typeName, rec!.identifier, 'DELETE_IN_PROGRESS', reason);
        const event = await d.operate(logicalId, () =>
          d.ctx.engine.delete(
            rec!.type,
            rec!.identifier!,
            stepToken(d.id, 'replace-delete', logicalId),
            d.caller,
          ),
        );
        if (event.operationStatus !== 'SUCCESS') {
          const why = d.reason(event);
          await d.resourceEvent(logicalId, type.typeName, rec!.identifier, 'UPDATE_FAILED', why);
          await d.fail(`${logicalId}: ${why}`);
          return false;
        }
        const { identifier: _gone, ...rest } = base;
        await d.save({ ...rest, status: 'DELETE_COMPLETE' });
        await d.resourceEvent(logicalId, type.typeName, rec!.identifier, 'DELETE_COMPLETE', reason);
        return create(d, logicalId, type, desired, { ...rest, status: 'DELETE_COMPLETE' }, 'create');
      }
      const replaced = { type: rec!.type, identifier: rec!.identifier! };
      return create(d, logicalId, type, desired, { ...base, replaced }, 'create', reason);
    }
  }
}

/** The record a step writes, keeping what a rollback needs: the state before this deployment. */
function baseRecord(
  d: DeploymentState,
  logicalId: string,
  type: ResourceType,
  rec: ResourceRecord | undefined,
): ResourceRecord {
  const declaration = d.analysis!.resources.get(logicalId)!;
  const previous =
    rec && rec.deployment !== d.id
      ? rec.identifier !== undefined
        ? { type: rec.type, identifier: rec.identifier, properties: rec.properties, model: rec.model }
        : undefined
      : rec?.previous;
  return {
    logicalId,
    type: type.typeName,
    ...(rec?.identifier !== undefined ? { identifier: rec.identifier } : {}),
    status: rec?.status ?? 'CREATE_IN_PROGRESS',
    deployment: d.id,
    deletionPolicy: declaration.declaration.deletionPolicy,
    updateReplacePolicy: declaration.declaration.updateReplacePolicy,
    dependsOn: [...declaration.dependsOn],
    properties: rec?.properties ?? {},
    model: rec?.model ?? {},
    ...(previous ? { previous } : {}),
    ...(rec?.deployment === d.id && rec.replaced ? { replaced: rec.replaced } : {}),
    ...(rec?.physicalName !== undefined ? { physicalName: rec.physicalName } : {}),
    updatedAt: new Date().toISOString(),
  };
}

async function create(
  d: DeploymentState,
  logicalId: string,
  type: ResourceType,
  desired: Record<string, unknown>,
  base: ResourceRecord,
  action: string,
  reason?: string,
): Promise<boolean> {
  d.resourceEventSoon(logicalId, type.typeName, undefined, 'CREATE_IN_PROGRESS', reason);
  const adopted =
    action === 'create' && base.previous === undefined ? d.record.adopted?.[logicalId] : undefined;
  const event =
    adopted !== undefined
      ? adopt(type.typeName, adopted)
      : await d.operate(logicalId, () =>
          d.ctx.engine.create(type.typeName, desired, stepToken(d.id, action, logicalId), d.caller),
        );
  if (event.operationStatus !== 'SUCCESS' || event.identifier === undefined) {
    const why = d.reason(event);
    await d.resourceEvent(logicalId, type.typeName, undefined, 'CREATE_FAILED', why);
    await d.fail(`${logicalId}: ${why}`);
    return false;
  }
  const { identifier: _old, ...rest } = base;
  await d.saveDone(
    {
      ...rest,
      identifier: event.identifier,
      properties: desired,
      model: await d.modelOf(type, event, event.identifier),
    },
    'CREATE_COMPLETE',
  );
  return true;
}

/**
 * A resource made already from this template (an adoption): recorded as made, with the model it was
 * made with. Not read: one since deleted is recorded all the same, for drift to find it gone.
 */
function adopt(
  typeName: string,
  made: { identifier: string; model: Record<string, unknown> },
): ProgressEvent {
  return {
    typeName,
    requestToken: '',
    operation: 'CREATE',
    operationStatus: 'SUCCESS',
    eventTime: new Date().toISOString(),
    identifier: made.identifier,
    resourceModel: made.model,
  };
}
