/**
 * @module Nested stacks served by the stack itself: an `AWS::CloudFormation::Stack` resource is a
 * stack of its own, deployed (created, updated) and deleted through the same Stacks its parent is,
 * as its parent's caller, its template the one handed over with the parent (packaged.ts). Its
 * identifier (what Ref gives) is its stackId; its model is `{ Outputs: { <name>: <value> } }`, what
 * `Fn::GetAtt <Nested>.Outputs.<Name>` reads (NoEcho outputs masked as any NoEcho value).
 *
 * Naming, as CloudFormation's: `<parent>-<logicalId>-<12 characters>` (the last part from the step,
 * so a resumed step names the same stack), cut to the 128 characters a stack name may have. A
 * nested stack whose creation fails is deleted before its resource is reported failed: the parent's
 * rollback finds nothing of it left. Its deployment's client token comes from the step's, so a
 * deployment resumed after a crash replays the nested one instead of starting another.
 */
import { createHash } from 'node:crypto';
import { accessDenied } from '../../auth/index.js';
import { TypeplaneError } from '../../errors.js';
import type { ProgressEvent } from '../../engine/index.js';
import { applyPatch } from '../../model/index.js';
import {
  NO_ECHO_MARK,
  appliedProperties,
  currentStep,
  textsOf,
  type StepContext,
} from '../custom-resources/index.js';
import type { StackCaller } from '../records.js';
import type { StackEngine } from '../stages/state.js';
import type { StackState, Started } from '../views.js';
import { NESTED_STACK_TYPE } from './names.js';
import { NESTED_STACK, timeoutMinutes } from './type.js';

/** What nested stacks are made with: the facade of the Stacks their parent is in. */
export interface NestedStackHost {
  deploy(
    name: string,
    text: string,
    parameters: Record<string, unknown>,
    options: {
      clientToken: string;
      caller?: StackCaller;
      authorize: (typeNames: string[]) => void;
      nestedIn: { parentId: string; rootId: string };
    },
  ): Promise<Started>;
  delete(name: string, authorize: (typeNames: string[]) => void, caller?: StackCaller): Promise<Started>;
  waitForState(name: string, id: string, timeoutMs: number): Promise<StackState | undefined>;
  outputValues(name: string): Promise<{ name: string; value: unknown; secret: boolean }[]>;
}

/** How long one wait for a nested deployment lasts before it is renewed (the step waits on). */
const WAIT_SLICE_MS = 60_000;
const STACK_NAME_MAX = 128;
const SUFFIX = 12;

/** `engine` with the operations on nested stacks served through `host`. */
export function withNestedStacks(engine: StackEngine, host: () => NestedStackHost): StackEngine {
  return {
    create: (typeName, desired, clientToken, caller, version) =>
      typeName === NESTED_STACK_TYPE
        ? run(
            host(),
            'CREATE',
            nestedName(currentStep(), clientToken),
            desired as Record<string, unknown>,
            clientToken,
          )
        : engine.create(typeName, desired, clientToken, caller, version),
    update: (typeName, identifier, patch, clientToken, caller, version) => {
      if (typeName !== NESTED_STACK_TYPE)
        return engine.update(typeName, identifier, patch, clientToken, caller, version);
      const properties = applyPatch(NESTED_STACK.type, appliedProperties(identifier), patch);
      return run(host(), 'UPDATE', nameOf(identifier), properties, clientToken);
    },
    delete: (typeName, identifier, clientToken, caller) =>
      typeName === NESTED_STACK_TYPE
        ? remove(host(), nameOf(identifier))
        : engine.delete(typeName, identifier, clientToken, caller),
    read: (typeName, identifier) => engine.read(typeName, identifier),
    waitFor: (requestToken, waitMs) => engine.waitFor(requestToken, waitMs),
    // Its outputs are set by its deployment; no rule, policy or hook of the server judges the stack itself.
    readOnlyNeverSet: (type) => (type.typeName === NESTED_STACK_TYPE ? [] : engine.readOnlyNeverSet(type)),
    preview: async (typeName, change) =>
      typeName === NESTED_STACK_TYPE ? [] : engine.preview(typeName, change),
    review: async (typeName, change) =>
      typeName === NESTED_STACK_TYPE ? [] : engine.review(typeName, change),
    judgesAny: (typeName) => (typeName === NESTED_STACK_TYPE ? false : engine.judgesAny(typeName)),
  };
}

/** `<parent>-<logicalId>-<suffix>`, the suffix from the step (the same step names the same stack). */
function nestedName(step: StepContext, clientToken: string | undefined): string {
  const suffix = createHash('sha256')
    .update(clientToken ?? `${step.stackId}/${step.logicalId}`)
    .digest('hex')
    .slice(0, SUFFIX)
    .toUpperCase();
  return `${`${step.stackName}-${step.logicalId}`.slice(0, STACK_NAME_MAX - SUFFIX - 1)}-${suffix}`;
}

/** A nested stack's name, from its identifier (its stackId, `typeplane:stack/<name>/<uuid>`). */
function nameOf(identifier: string): string {
  return identifier.split('/')[1] ?? identifier;
}

function authorizer(step: StepContext): (typeNames: string[]) => void {
  return (typeNames) => {
    for (const typeName of typeNames)
      if (step.canSee && !step.canSee(typeName))
        throw accessDenied(`this token is scoped to other types and cannot reach ${typeName}`);
  };
}

function event(
  operation: ProgressEvent['operation'],
  outcome: { identifier?: string; model?: Record<string, unknown>; failure?: string },
): ProgressEvent {
  return {
    typeName: NESTED_STACK_TYPE,
    ...(outcome.identifier !== undefined ? { identifier: outcome.identifier } : {}),
    requestToken: `nested-stack.${outcome.identifier ?? ''}`,
    operation,
    operationStatus: outcome.failure === undefined ? 'SUCCESS' : 'FAILED',
    eventTime: new Date().toISOString(),
    ...(outcome.model ? { resourceModel: outcome.model } : {}),
    ...(outcome.failure !== undefined
      ? { errorCode: 'GeneralServiceException' as const, statusMessage: outcome.failure }
      : {}),
  };
}

/** Deploy the nested stack `name` with `properties` and wait for its end. */
async function run(
  host: NestedStackHost,
  operation: 'CREATE' | 'UPDATE',
  name: string,
  properties: Record<string, unknown>,
  clientToken: string | undefined,
): Promise<ProgressEvent> {
  const step = currentStep();
  const text = properties.TemplateBody;
  if (typeof text !== 'string')
    return event(operation, {
      failure: `the template at ${String(properties.TemplateURL)} was not handed over with the stack`,
    });
  const authorize = authorizer(step);
  let started: Started;
  try {
    started = await host.deploy(name, text, parametersOf(properties.Parameters), {
      clientToken: `nested.${createHash('sha256')
        .update(clientToken ?? name)
        .digest('hex')
        .slice(0, 40)}`,
      ...(step.caller ? { caller: step.caller } : {}),
      authorize,
      nestedIn: { parentId: step.stackId, rootId: step.rootId },
    });
  } catch (e) {
    if (!(e instanceof TypeplaneError)) throw e;
    const details = e.details.slice(0, 3).map((d) => `${d.pointer ?? ''} ${d.message}`.trim());
    return event(operation, {
      failure: `nested stack ${name} (${String(properties.TemplateURL)}): ${e.message}${details.length > 0 ? `: ${details.join('; ')}` : ''}`,
    });
  }
  const minutes = timeoutMinutes(properties.TimeoutInMinutes);
  const state = await ended(
    host,
    name,
    started.deploymentId,
    typeof minutes === 'number' ? minutes * 60_000 : undefined,
  );
  const identifier = started.stack.stackId;
  if (state?.status === 'CREATE_COMPLETE' || state?.status === 'UPDATE_COMPLETE') {
    const outputs: Record<string, unknown> = {};
    const secrets: string[] = [];
    for (const output of await host.outputValues(name)) {
      outputs[output.name] = output.value;
      if (output.secret) secrets.push(...textsOf({ value: output.value }));
    }
    if (secrets.length > 0) step.secret(secrets);
    return event(operation, {
      identifier,
      model: { Outputs: outputs, ...(secrets.length > 0 ? { [NO_ECHO_MARK]: true } : {}) },
    });
  }
  const why = state
    ? `nested stack ${name} ended ${state.status}${state.statusReason ? `: ${state.statusReason}` : ''}`
    : `nested stack ${name} did not finish within its TimeoutInMinutes (${minutes})`;
  // A nested stack that could not be created leaves nothing behind: the parent rolls back without it.
  if (operation === 'CREATE') {
    const gone = await remove(host, name);
    if (gone.operationStatus !== 'SUCCESS')
      return event(operation, {
        identifier,
        failure: `${why}; deleting it failed too: ${gone.statusMessage}`,
      });
  }
  return event(operation, { ...(operation === 'UPDATE' ? { identifier } : {}), failure: why });
}

/** The nested deployment's end (the stack's state then), or undefined when `timeoutMs` passed first. */
async function ended(
  host: NestedStackHost,
  name: string,
  deploymentId: string,
  timeoutMs: number | undefined,
): Promise<StackState | undefined> {
  const until = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) return undefined;
    const state = await host.waitForState(name, deploymentId, Math.min(left, WAIT_SLICE_MS));
    if (!state) throw new TypeplaneError('NotFound', `nested stack ${name} is gone`);
    if (state.deploymentId !== deploymentId) return state;
  }
}

/** Delete the nested stack `name` and wait until it is gone. */
async function remove(host: NestedStackHost, name: string): Promise<ProgressEvent> {
  const step = currentStep();
  let started: Started;
  try {
    started = await host.delete(name, authorizer(step), step.caller);
  } catch (e) {
    if (e instanceof TypeplaneError && e.code === 'NotFound') return event('DELETE', {});
    if (!(e instanceof TypeplaneError)) throw e;
    return event('DELETE', { failure: `nested stack ${name}: ${e.message}` });
  }
  for (;;) {
    const state = await host.waitForState(name, started.deploymentId, WAIT_SLICE_MS);
    if (!state) return event('DELETE', { identifier: started.stack.stackId });
    if (state.deploymentId !== started.deploymentId)
      return event('DELETE', {
        identifier: started.stack.stackId,
        failure: `nested stack ${name} ended ${state.status}${state.statusReason ? `: ${state.statusReason}` : ''}`,
      });
  }
}

/** A nested template's parameters as CloudFormation passes them: text (a list joined by commas). */
function parametersOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, Array.isArray(v) ? v.map(String).join(',') : String(v)]),
  );
}
