/**
 * @module A hook's configuration, in CloudFormation's shape:
 * `{ "CloudFormationConfiguration": { "HookConfiguration": { "HookInvocationStatus": "ENABLED",
 * "FailureMode": "FAIL", "Properties": {…}, "TargetFilters": {…} } } }`, checked against the hook's
 * schema with every problem named by pointer at once.
 *
 * Two settings are Typeplane's own: `TimeoutInSeconds` (how long one invocation may take, callbacks
 * included) and `IncludeWriteOnlyValues` (the grant: without it a hook never sees write-only values).
 */
import { TypeplaneError, type ErrorDetail } from '../../errors.js';
import { cloneJson, type Model } from '../../model/index.js';
import { settingsProblems, type HookDefinition } from './schema.js';
import { isTargetGlob } from './targets.js';

export type FailureMode = 'FAIL' | 'WARN';
export type HookOperation = 'CREATE' | 'UPDATE' | 'DELETE';
/**
 * CloudFormation's TargetOperations, as Typeplane's paths are: RESOURCE a resource change made
 * through `/v1` or by a stack; STACK a change a stack's deployment makes (stacks and recipes);
 * CHANGE_SET a stack's plan; CLOUD_CONTROL a change made through the Cloud Control API.
 */
export type TargetOperation = 'RESOURCE' | 'STACK' | 'CHANGE_SET' | 'CLOUD_CONTROL';

export interface HookSettings {
  enabled: boolean;
  failureMode: FailureMode;
  /** The hook's own settings, valid against its `typeConfiguration`, defaults applied. */
  properties: Model;
  /** Only these operations, when given (`TargetFilters.Actions`). */
  actions?: HookOperation[];
  /** Only these target types, when given, within the handlers' own targetNames (`TargetFilters.TargetNames`). */
  targetNames?: string[];
  /** The paths whose changes it judges (`TargetOperations`; RESOURCE when not given, as CloudFormation). */
  targetOperations: TargetOperation[];
  timeoutMs: number;
  includeWriteOnlyValues: boolean;
}

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 10;
export const MAX_HOOK_TIMEOUT_SECONDS = 60;

const KNOWN = new Set([
  'HookInvocationStatus',
  'TargetStacks',
  'TargetOperations',
  'FailureMode',
  'Properties',
  'TargetFilters',
  'TimeoutInSeconds',
  'IncludeWriteOnlyValues',
]);
const OPERATIONS: readonly HookOperation[] = ['CREATE', 'UPDATE', 'DELETE'];
const TARGET_OPERATIONS: readonly TargetOperation[] = ['RESOURCE', 'STACK', 'CHANGE_SET', 'CLOUD_CONTROL'];
/** A configuration without TargetOperations judges resource changes, as CloudFormation's. */
const DEFAULT_TARGET_OPERATIONS: readonly TargetOperation[] = ['RESOURCE'];

/**
 * The configuration checked against `hook`'s schema; throws InvalidRequest listing every problem.
 *
 * @example
 * parseHookConfiguration(hook, { CloudFormationConfiguration: { HookConfiguration: {
 *   HookInvocationStatus: 'ENABLED', FailureMode: 'WARN', Properties: { Tag: 'costCenter' } } } });
 */
export function parseHookConfiguration(hook: HookDefinition, value: unknown): HookSettings {
  const problems: ErrorDetail[] = [];
  const problem = (pointer: string, message: string) => problems.push({ pointer, message });
  const root = '/CloudFormationConfiguration/HookConfiguration';
  const outer = objectAt(
    value,
    '',
    problem,
    'a hook configuration is { "CloudFormationConfiguration": { "HookConfiguration": { … } } }',
  );
  const cfn =
    outer &&
    objectAt(
      outer.CloudFormationConfiguration,
      '/CloudFormationConfiguration',
      problem,
      'must be an object with HookConfiguration',
    );
  if (outer)
    for (const key of Object.keys(outer))
      if (key !== 'CloudFormationConfiguration')
        problem(`/${key}`, 'is not a key of a hook configuration (it has CloudFormationConfiguration)');
  const c =
    cfn &&
    objectAt(
      cfn.HookConfiguration,
      '/CloudFormationConfiguration/HookConfiguration',
      problem,
      'must be an object: HookInvocationStatus, FailureMode, Properties, …',
    );
  if (!c) throw refusal(hook, problems);
  for (const key of Object.keys(c))
    if (!KNOWN.has(key))
      problem(`${root}/${key}`, `is not a hook configuration setting (known: ${[...KNOWN].join(', ')})`);

  let enabled = false;
  if (c.HookInvocationStatus !== undefined) {
    if (c.HookInvocationStatus === 'ENABLED' || c.HookInvocationStatus === 'DISABLED')
      enabled = c.HookInvocationStatus === 'ENABLED';
    else problem(`${root}/HookInvocationStatus`, 'must be ENABLED or DISABLED');
  } else if (c.TargetStacks !== undefined) {
    // CloudFormation's older switch: ALL invokes the hook, NONE does not.
    if (c.TargetStacks === 'ALL' || c.TargetStacks === 'NONE') enabled = c.TargetStacks === 'ALL';
    else problem(`${root}/TargetStacks`, 'must be ALL or NONE');
  } else problem(root, 'must have HookInvocationStatus (ENABLED or DISABLED)');

  let targetOperations = DEFAULT_TARGET_OPERATIONS;
  if (c.TargetOperations !== undefined) {
    if (
      Array.isArray(c.TargetOperations) &&
      c.TargetOperations.length > 0 &&
      c.TargetOperations.every((o) => TARGET_OPERATIONS.includes(o as TargetOperation))
    )
      targetOperations = [...new Set(c.TargetOperations as TargetOperation[])];
    else
      problem(
        `${root}/TargetOperations`,
        `must list at least one of ${TARGET_OPERATIONS.join(', ')} (RESOURCE: /v1 and stacks; STACK: stacks only; CHANGE_SET: stack plans; CLOUD_CONTROL: the Cloud Control API)`,
      );
  }

  const failureMode = c.FailureMode;
  if (failureMode !== 'FAIL' && failureMode !== 'WARN')
    problem(
      `${root}/FailureMode`,
      'must be FAIL (a FAILED hook refuses the change) or WARN (it proceeds, with a warning)',
    );

  let properties: Model = {};
  if (c.Properties !== undefined) {
    const given = objectAt(
      c.Properties,
      `${root}/Properties`,
      problem,
      "must be an object of the settings the hook's typeConfiguration declares",
    );
    if (given) properties = cloneJson(given as Model);
  }
  for (const p of settingsProblems(hook, properties))
    problem(`${root}/Properties${p.pointer ?? ''}`, p.message);

  let actions: HookOperation[] | undefined;
  let targetNames: string[] | undefined;
  if (c.TargetFilters !== undefined) {
    const filters = objectAt(
      c.TargetFilters,
      `${root}/TargetFilters`,
      problem,
      'must be an object: Actions, TargetNames, InvocationPoints',
    );
    if (filters) {
      for (const key of Object.keys(filters))
        if (!['Actions', 'TargetNames', 'InvocationPoints'].includes(key))
          problem(
            `${root}/TargetFilters/${key}`,
            'is not a target filter (known: Actions, TargetNames, InvocationPoints)',
          );
      if (filters.Actions !== undefined) {
        if (
          Array.isArray(filters.Actions) &&
          filters.Actions.length > 0 &&
          filters.Actions.every((a) => OPERATIONS.includes(a as HookOperation))
        )
          actions = [...new Set(filters.Actions as HookOperation[])];
        else problem(`${root}/TargetFilters/Actions`, 'must list at least one of CREATE, UPDATE, DELETE');
      }
      if (filters.TargetNames !== undefined) {
        if (
          Array.isArray(filters.TargetNames) &&
          filters.TargetNames.length > 0 &&
          filters.TargetNames.length <= 64 &&
          filters.TargetNames.every(isTargetGlob)
        )
          targetNames = [...(filters.TargetNames as string[])];
        else
          problem(
            `${root}/TargetFilters/TargetNames`,
            "must list 1 to 64 type names or globs ('*' any run, '?' one character)",
          );
      }
      if (
        filters.InvocationPoints !== undefined &&
        !(
          Array.isArray(filters.InvocationPoints) &&
          filters.InvocationPoints.every((p) => p === 'PRE_PROVISION')
        )
      )
        problem(
          `${root}/TargetFilters/InvocationPoints`,
          'may only list PRE_PROVISION: hooks run before a change begins',
        );
    }
  }

  let timeoutSeconds = DEFAULT_HOOK_TIMEOUT_SECONDS;
  if (c.TimeoutInSeconds !== undefined) {
    if (
      typeof c.TimeoutInSeconds === 'number' &&
      Number.isInteger(c.TimeoutInSeconds) &&
      c.TimeoutInSeconds >= 1 &&
      c.TimeoutInSeconds <= MAX_HOOK_TIMEOUT_SECONDS
    )
      timeoutSeconds = c.TimeoutInSeconds;
    else
      problem(
        `${root}/TimeoutInSeconds`,
        `must be a whole number of seconds from 1 to ${MAX_HOOK_TIMEOUT_SECONDS}`,
      );
  }
  if (c.IncludeWriteOnlyValues !== undefined && typeof c.IncludeWriteOnlyValues !== 'boolean')
    problem(`${root}/IncludeWriteOnlyValues`, 'must be true or false');

  if (problems.length > 0) throw refusal(hook, problems);
  return {
    enabled,
    failureMode: failureMode as FailureMode,
    properties,
    ...(actions ? { actions } : {}),
    ...(targetNames ? { targetNames } : {}),
    targetOperations: [...targetOperations],
    timeoutMs: timeoutSeconds * 1000,
    includeWriteOnlyValues: c.IncludeWriteOnlyValues === true,
  };
}

function objectAt(
  value: unknown,
  pointer: string,
  problem: (pointer: string, message: string) => void,
  message: string,
): Record<string, unknown> | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  problem(pointer, message);
  return undefined;
}

function refusal(hook: HookDefinition, problems: ErrorDetail[]): TypeplaneError {
  // Named by pointer, never by the values given: a setting may be a secret.
  return new TypeplaneError(
    'InvalidRequest',
    `the configuration of hook ${hook.typeName} is not valid: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
    problems,
  );
}
