/**
 * @module What applying a template does to each resource, decided from values: Add, Modify (a JSON
 * Patch from the recorded properties), Replace (which create-only property forces it, and whether
 * the old resource must go first), Remove, NoChange. The same decision serves a plan (with values
 * still unknown) and a deployment (with every value known).
 */
import jsonpatch from 'fast-json-patch';
import type { ResourceType } from '../schema/index.js';
import { createOnlyChanged, identifierOf, jsonEqual, setOwn } from '../model/index.js';
import { KNOWN_AFTER_APPLY } from './intrinsics.js';

export type Action = 'Add' | 'Modify' | 'Replace' | 'Remove' | 'NoChange';

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

export interface Decision {
  action: Exclude<Action, 'Remove'>;
  patch?: PatchOperation[];
  /** Replace: the create-only properties that differ. */
  createOnly?: string[];
  /** Replace: the identifier is given by the template and unchanged, so the old resource is deleted first. */
  deleteFirst?: boolean;
}

/** Unknown values as the marker text, so they compare (and show) as values. */
export function plain(value: unknown): Record<string, unknown> {
  // Most values are plain JSON already: copied directly, as the round trip would copy them.
  const copy = jsonCopy(value);
  return (copy === NOT_JSON ? JSON.parse(JSON.stringify(value)) : copy) as Record<string, unknown>;
}

const NOT_JSON = Symbol('not JSON');

/**
 * A copy of `value` equal to `JSON.parse(JSON.stringify(value))`, when `value` is made of strings,
 * booleans, finite numbers, null, arrays and plain objects only (an undefined member is left out, as
 * JSON leaves it out); NOT_JSON for anything else (an Unknown, which serialises as its marker text).
 */
function jsonCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 is written as 0.
      return Number.isFinite(value) ? value + 0 : NOT_JSON;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined) return NOT_JSON;
          const copy = jsonCopy(item);
          if (copy === NOT_JSON) return NOT_JSON;
          out[i] = copy;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return NOT_JSON;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) continue;
        const copy = jsonCopy(member);
        if (copy === NOT_JSON) return NOT_JSON;
        setOwn(out, key, copy);
      }
      return out;
    }
    default:
      return NOT_JSON;
  }
}

export function decide(
  type: ResourceType,
  recorded: { type: string; identifier?: string; properties: Record<string, unknown> } | undefined,
  desiredValue: Record<string, unknown>,
): Decision {
  const desired = plain(desiredValue);
  if (!recorded || recorded.identifier === undefined) return { action: 'Add' };
  if (recorded.type !== type.typeName) return { action: 'Replace', createOnly: ['Type'], deleteFirst: false };
  const createOnly = createOnlyChanged(type, recorded.properties, desired);
  if (createOnly.length > 0) {
    const given = type.primaryIdentifier.every((p) => !type.readOnlyProperties.includes(p));
    const deleteFirst = given && identifierOf(type, desired) === recorded.identifier;
    return { action: 'Replace', createOnly, deleteFirst };
  }
  if (jsonEqual(recorded.properties, desired)) return { action: 'NoChange' };
  return { action: 'Modify', patch: jsonpatch.compare(recorded.properties, desired) as PatchOperation[] };
}

/** Whether a plain value still holds a value known only after apply. */
export function hasUnknown(value: unknown): boolean {
  return JSON.stringify(value).includes(JSON.stringify(KNOWN_AFTER_APPLY));
}
