/**
 * @module What applying a template does to each resource, decided from values: Add, Modify (a JSON
 * Patch from the recorded properties), Replace (which create-only property forces it, and whether
 * the old resource must go first), Remove, NoChange. The same decision serves a plan (with values
 * still unknown) and a deployment (with every value known).
 */
import jsonpatch from 'fast-json-patch';
import type { ResourceType } from '../schema/index.js';
import { createOnlyChanged, identifierOf, jsonEqual } from '../model/index.js';
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
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
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
