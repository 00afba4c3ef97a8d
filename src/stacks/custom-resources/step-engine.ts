/**
 * @module The engine as a deployment's steps use it: operations on custom resources go to their
 * handler (custom-resources.ts), every other one to the engine. The step's context — the stack, the
 * logical id, the resource's record — gives the protocol what the engine's calls do not carry (the
 * LogicalResourceId, the properties before an Update, those a Delete is sent): each step runs its
 * operation {@link inStep}, so every stage reaches custom resources through the same engine calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { TypeplaneError } from '../../errors.js';
import type { ProgressEvent } from '../../engine/index.js';
import { applyPatch } from '../../model/index.js';
import type { ResourceRecord, StackCaller } from '../records.js';
import type { StackEngine } from '../stages/state.js';
import type { CustomResources, CustomResourceRequest } from './custom-resources.js';
import { isCustomResourceType } from './type.js';

/**
 * Set in the model of a custom resource whose handler answered NoEcho: its Data (what Fn::GetAtt
 * reads) is a secret, masked wherever the stack shows or writes a value built from it.
 */
export const NO_ECHO_MARK = 'Typeplane::NoEcho';

export interface StepContext {
  stackName: string;
  stackId: string;
  /** The stackId of the root of the stack's tree (its own, unless it is a nested stack). */
  rootId: string;
  logicalId: string;
  /** Who the deployment runs as (a nested stack's deployment runs as its parent's). */
  caller?: StackCaller;
  /** Whether that caller reaches a type (absent: every type). */
  canSee?: (typeName: string) => boolean;
  /** The resource's record as the step runs (before the step saves its own). */
  record: () => ResourceRecord | undefined;
  /** Told the texts of a NoEcho answer's Data, to mask from then on. */
  secret: (texts: string[]) => void;
}

const steps = new AsyncLocalStorage<StepContext>();
/** Steps running now, on every deployment. */
let running = 0;

/**
 * Run one step's operation with its context (what a custom resource's request is made of). The
 * context is let go of once no step runs: while an AsyncLocalStorage is enabled, its async hooks tax
 * every promise of the process, every request's included.
 */
export function inStep<T>(step: StepContext, operation: () => Promise<T>): Promise<T> {
  running++;
  const ended = () => {
    if (--running === 0) steps.disable();
  };
  let done: Promise<T>;
  try {
    done = steps.run(step, operation);
  } catch (e) {
    ended();
    throw e;
  }
  return done.finally(ended);
}

/** The context of the step running now; an operation outside one is a defect. */
export function currentStep(): StepContext {
  const step = steps.getStore();
  if (!step)
    throw new TypeplaneError('InternalFailure', 'a stack-served resource operation ran outside a stack step');
  return step;
}

/** The properties the resource with `identifier` was last applied with (the record's, or what it replaced). */
export function appliedProperties(identifier: string): Record<string, unknown> {
  const rec = currentStep().record();
  if (rec?.identifier === identifier) return rec.properties;
  if (rec?.previous?.identifier === identifier) return rec.previous.properties;
  return {};
}

/** `engine` with the operations on custom resources served by `custom`. */
export function withCustomResources(engine: StackEngine, custom: CustomResources): StackEngine {
  const run = async (
    operation: ProgressEvent['operation'],
    req: Omit<CustomResourceRequest, 'stackId' | 'logicalId' | 'clientToken'>,
    clientToken: string | undefined,
  ): Promise<ProgressEvent> => {
    const step = currentStep();
    const outcome = await custom.run({
      ...req,
      stackId: step.stackId,
      logicalId: step.logicalId,
      clientToken: clientToken ?? randomUUID(),
    });
    if (outcome.noEcho) step.secret(textsOf(outcome.data));
    const physicalId = outcome.physicalId ?? req.physicalId;
    const failed = outcome.status === 'FAILED' || physicalId === undefined;
    return {
      typeName: req.typeName,
      ...(physicalId !== undefined ? { identifier: physicalId } : {}),
      requestToken: `custom-resource.${outcome.requestId}`,
      operation,
      operationStatus: failed ? 'FAILED' : 'SUCCESS',
      eventTime: new Date().toISOString(),
      resourceModel: outcome.noEcho ? { ...outcome.data, [NO_ECHO_MARK]: true } : outcome.data,
      ...(failed
        ? {
            errorCode: 'GeneralServiceException' as const,
            statusMessage:
              outcome.status === 'FAILED'
                ? (outcome.reason ?? 'the handler answered FAILED without a Reason')
                : 'the handler answered SUCCESS without a PhysicalResourceId',
          }
        : {}),
    };
  };
  return {
    create: (typeName, desired, clientToken, caller, version) =>
      isCustomResourceType(typeName)
        ? run(
            'CREATE',
            { requestType: 'Create', typeName, properties: desired as Record<string, unknown> },
            clientToken,
          )
        : engine.create(typeName, desired, clientToken, caller, version),
    update: (typeName, identifier, patch, clientToken, caller, version) => {
      if (!isCustomResourceType(typeName))
        return engine.update(typeName, identifier, patch, clientToken, caller, version);
      const old = appliedProperties(identifier);
      const properties = applyPatch(custom.typeOf(typeName)!.type, old, patch);
      // As in CloudFormation: the handler that made the resource is the one that updates and deletes it.
      if (old.ServiceToken !== undefined && properties.ServiceToken !== old.ServiceToken)
        return Promise.resolve<ProgressEvent>({
          typeName,
          identifier,
          requestToken: `custom-resource.${identifier}`,
          operation: 'UPDATE',
          operationStatus: 'FAILED',
          eventTime: new Date().toISOString(),
          errorCode: 'NotUpdatable',
          statusMessage:
            "a custom resource's ServiceToken cannot change: its handler is the one that made it; give the resource a new logical id to have another handler make it",
        });
      return run(
        'UPDATE',
        { requestType: 'Update', typeName, physicalId: identifier, properties, oldProperties: old },
        clientToken,
      );
    },
    delete: (typeName, identifier, clientToken, caller) =>
      isCustomResourceType(typeName)
        ? run(
            'DELETE',
            {
              requestType: 'Delete',
              typeName,
              physicalId: identifier,
              properties: appliedProperties(identifier),
            },
            clientToken,
          )
        : engine.delete(typeName, identifier, clientToken, caller),
    read: (typeName, identifier) => engine.read(typeName, identifier),
    waitFor: (requestToken, waitMs) => engine.waitFor(requestToken, waitMs),
    // A handler may set any attribute; no rule, policy or hook of the server judges a custom resource.
    readOnlyNeverSet: (type) => (isCustomResourceType(type.typeName) ? [] : engine.readOnlyNeverSet(type)),
    preview: async (typeName, change) =>
      isCustomResourceType(typeName) ? [] : engine.preview(typeName, change),
    review: async (typeName, change) =>
      isCustomResourceType(typeName) ? [] : engine.review(typeName, change),
    judgesAny: (typeName) => (isCustomResourceType(typeName) ? false : engine.judgesAny(typeName)),
  };
}

/** The secret texts of the stack's custom resources answered NoEcho (their Data), for a deployment resumed. */
export function noEchoTexts(records: Iterable<ResourceRecord>): string[] {
  const out: string[] = [];
  for (const rec of records) if (rec.model[NO_ECHO_MARK] === true) out.push(...textsOf(rec.model));
  return out;
}

/** The texts a Data (or outputs) object holds, to mask. */
export function textsOf(data: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value !== '') out.push(value);
    } else if (typeof value === 'number') out.push(String(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  for (const [key, value] of Object.entries(data)) if (key !== NO_ECHO_MARK) walk(value);
  return out;
}
