/**
 * @module Which changes a hook judges: its handler's `targetNames` (CloudFormation's wildcards: `*`
 * any run of characters, `?` exactly one), narrowed by its configuration's target filters, on the
 * paths its `TargetOperations` name.
 */
import type { ReviewRequest } from '../../engine/index.js';
import type { HookAction } from '../../handler/index.js';
import type { HookOperation, HookSettings, TargetOperation } from './configuration.js';
import type { HookDefinition } from './schema.js';

const TARGET_GLOB = /^[A-Za-z0-9_.:/*?-]{1,256}$/;

export function isTargetGlob(value: unknown): value is string {
  return typeof value === 'string' && TARGET_GLOB.test(value);
}

/**
 * Whether `glob` matches the whole of `name`. Greedy with one backtrack point (the last `*`): linear
 * in practice and at most the product of the two lengths (each at most 256).
 */
export function targetMatches(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const c = glob[g];
    if (c === '?' || (c !== undefined && c !== '*' && c === name[n])) {
      g++;
      n++;
    } else if (c === '*') {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else return false;
  }
  while (glob[g] === '*') g++;
  return g === glob.length;
}

export const ACTION_OF: Record<HookOperation, HookAction> = {
  CREATE: 'preCreate',
  UPDATE: 'preUpdate',
  DELETE: 'preDelete',
};

/**
 * The path a change comes by, as TargetOperations name them: a stack's plan (`dryRun`) CHANGE_SET,
 * the Cloud Control API CLOUD_CONTROL, a stack's deployment STACK, else (`/v1`) RESOURCE.
 */
export function pathOf(request: Pick<ReviewRequest, 'dryRun' | 'caller'>): TargetOperation {
  if (request.dryRun) return 'CHANGE_SET';
  if (request.caller?.cloudControl) return 'CLOUD_CONTROL';
  return request.caller?.stack !== undefined ? 'STACK' : 'RESOURCE';
}

/**
 * The TargetOperations that take in a change on each path. A stack's resources are RESOURCE
 * targets too, as in CloudFormation; a plan previews what its deployment will meet, so it shows
 * the hooks that judge the deployment's changes besides those that judge only plans.
 */
const JUDGED_BY: Record<TargetOperation, readonly TargetOperation[]> = {
  RESOURCE: ['RESOURCE'],
  STACK: ['RESOURCE', 'STACK'],
  CHANGE_SET: ['RESOURCE', 'STACK', 'CHANGE_SET'],
  CLOUD_CONTROL: ['CLOUD_CONTROL'],
};

/** Whether the hook, so configured, judges `operation` on a resource of `typeName` made on `path`. */
export function hookApplies(
  hook: HookDefinition,
  settings: HookSettings,
  operation: HookOperation,
  typeName: string,
  path: TargetOperation,
): boolean {
  if (!settings.enabled) return false;
  if (!settings.targetOperations.some((o) => JUDGED_BY[path].includes(o))) return false;
  const handler = hook.handlers[ACTION_OF[operation]];
  if (!handler || !handler.targetNames.some((g) => targetMatches(g, typeName))) return false;
  if (settings.actions && !settings.actions.includes(operation)) return false;
  return !settings.targetNames || settings.targetNames.some((g) => targetMatches(g, typeName));
}
