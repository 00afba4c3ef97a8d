/**
 * @module Which changes a hook judges: its handler's `targetNames` (CloudFormation's wildcards: `*`
 * any run of characters, `?` exactly one), narrowed by its configuration's target filters.
 */
import type { HookAction } from '../../handler/index.js';
import type { HookOperation, HookSettings } from './configuration.js';
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

/** Whether the hook, so configured, judges `operation` on a resource of `typeName`. */
export function hookApplies(
  hook: HookDefinition,
  settings: HookSettings,
  operation: HookOperation,
  typeName: string,
): boolean {
  if (!settings.enabled) return false;
  const handler = hook.handlers[ACTION_OF[operation]];
  if (!handler || !handler.targetNames.some((g) => targetMatches(g, typeName))) return false;
  if (settings.actions && !settings.actions.includes(operation)) return false;
  return !settings.targetNames || settings.targetNames.some((g) => targetMatches(g, typeName));
}
