/**
 * @module Comparing models as the handler contract compares them: exactly, except that an array whose
 * schema says `insertionOrder: false` is a set (a multiset: duplicates count), at every depth.
 *
 * What a create or update asked for must come back: every property given, with the same value, and
 * nothing else (read-only values the provider sets and write-only values it never returns aside).
 */
import type { ResourceType } from '../schema/model.js';
import { isObject, jsonEqual, stripNulls } from './json.js';
import { removalOf, valuesAt, type Removal } from './pointer.js';
import { resolverOf, stripReadOnly, stripWriteOnly } from './properties.js';
import type { Model } from './types.js';

/** Where two models differ: a model path (`/Tags/0/Key`), what was expected there and what came. */
export interface ModelDifference {
  pointer: string;
  expected: unknown;
  actual: unknown;
}

/**
 * Where a provider's `answered` model does not show what `asked` asked for, compared exactly: null
 * members count as absent; read-only and write-only values are left out on both sides (the provider
 * sets the former and never returns the latter). Empty when the outcome is what was asked.
 *
 * @example
 * outcomeDifferences(type, { Name: 'a', Labels: { x: '1' } }, { Name: 'a', Labels: { x: '1', y: '2' } })
 * // → [{ pointer: '/Labels/y', expected: undefined, actual: '2' }]
 */
export function outcomeDifferences(type: ResourceType, asked: Model, answered: Model): ModelDifference[] {
  // The answer is nearly always what was asked: shown so without the six copies below.
  const hidden = hiddenOf(type);
  if (hidden !== null && plainlySame(asked, answered, hidden)) return [];
  const visible = (model: Model) => stripReadOnly(type, stripWriteOnly(type, stripNulls(model)));
  return valueDifferences(type, [], visible(asked), visible(answered));
}

/** The read-only and write-only members of a type's models, as one tree (null: a pointer has `*`). */
const hiddenTrees = new WeakMap<ResourceType, Removal | null>();

function hiddenOf(type: ResourceType): Removal | null {
  let tree = hiddenTrees.get(type);
  if (tree === undefined) {
    tree = removalOf([...type.writeOnlyProperties, ...type.readOnlyProperties]);
    hiddenTrees.set(type, tree);
  }
  return tree;
}

/**
 * Whether `a` and `b` are the same once null members and those `hidden` names are left out, arrays
 * compared in order: true only where {@link outcomeDifferences}' long way finds nothing (an array
 * in another order, or a hidden member under an array: false, and the long way decides).
 */
function plainlySame(a: unknown, b: unknown, hidden: Removal | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (hidden !== undefined || !Array.isArray(b) || a.length !== b.length) return false;
    // Nulls at the same places go from both alike.
    for (let i = 0; i < a.length; i++) if (!plainlySame(a[i], b[i], undefined)) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (value === null) continue;
    const rule = hidden?.get(key);
    if (rule === true) continue;
    if (!Object.hasOwn(b, key) || !plainlySame(value, b[key], rule)) return false;
  }
  for (const key of Object.keys(b)) {
    if (b[key] === null || hidden?.get(key) === true) continue;
    if (!Object.hasOwn(a, key) || a[key] === null) return false;
  }
  return true;
}

/**
 * Where `actual` differs from `expected`, both found at model path `at` of a model of `type`
 * (`[]` for whole models): exact, with unordered arrays compared as multisets.
 */
export function valueDifferences(
  type: ResourceType,
  at: readonly (string | number)[],
  expected: unknown,
  actual: unknown,
): ModelDifference[] {
  const out: ModelDifference[] = [];
  walk(type, [...at], expected, actual, out);
  return out;
}

/** Whether two values at model path `at` are the same for the contract (see {@link valueDifferences}). */
export function sameValue(
  type: ResourceType,
  at: readonly (string | number)[],
  a: unknown,
  b: unknown,
): boolean {
  return valueDifferences(type, at, a, b).length === 0;
}

function walk(
  type: ResourceType,
  path: (string | number)[],
  expected: unknown,
  actual: unknown,
  out: ModelDifference[],
): void {
  const here = () => ({ pointer: modelPointer(path), expected, actual });
  if (isObject(expected)) {
    if (!isObject(actual)) return void out.push(here());
    for (const key of Object.keys(expected)) {
      path.push(key);
      if (!Object.hasOwn(actual, key))
        out.push({ pointer: modelPointer(path), expected: expected[key], actual: undefined });
      else walk(type, path, expected[key], actual[key], out);
      path.pop();
    }
    for (const key of Object.keys(actual)) {
      if (!Object.hasOwn(expected, key))
        out.push({
          pointer: `${modelPointer(path)}/${escapeToken(key)}`,
          expected: undefined,
          actual: actual[key],
        });
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return void out.push(here());
    if (unorderedAt(type, path)) {
      // Every expected item matched by a distinct actual item (compared at the item's own path).
      const used = new Set<number>();
      for (const item of expected) {
        const match = actual.findIndex(
          (candidate, i) => !used.has(i) && sameValue(type, [...path, i], item, candidate),
        );
        if (match < 0) return void out.push(here());
        used.add(match);
      }
      return;
    }
    expected.forEach((item, i) => {
      path.push(i);
      walk(type, path, item, actual[i], out);
      path.pop();
    });
    return;
  }
  if (expected !== actual) out.push(here());
}

/**
 * The create-only property pointers whose values differ between `previous` and `desired` (a value
 * present in only one of them is a change; an unordered array reordered is not). Such an update
 * needs a replacement.
 */
export function createOnlyChanged(type: ResourceType, previous: Model, desired: Model): string[] {
  return type.createOnlyProperties.filter((pointer) => {
    const before = valuesAt(previous, pointer);
    const after = valuesAt(desired, pointer);
    if (before.length !== after.length) return true;
    return before.some((b, i) => {
      const a = after[i]!;
      return !jsonEqual(b.path, a.path) || !sameValue(type, b.path, b.value, a.value);
    });
  });
}

/** A model path as a JSON pointer into the model (`['Tags', 0, 'Key']` → `/Tags/0/Key`). */
export function modelPointer(path: readonly (string | number)[]): string {
  return path.map((t) => `/${typeof t === 'number' ? String(t) : escapeToken(t)}`).join('');
}

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

const unordered = new WeakMap<object, Map<string, boolean>>();

/** Whether the array at a model path is declared `insertionOrder: false` (any index stands for `*`). */
function unorderedAt(type: ResourceType, path: readonly (string | number)[]): boolean {
  if (path.length === 0) return false;
  const pointer =
    '/properties' + path.map((t) => `/${typeof t === 'number' ? '*' : escapeToken(t)}`).join('');
  let known = unordered.get(type.schema);
  if (!known) unordered.set(type.schema, (known = new Map()));
  let verdict = known.get(pointer);
  if (verdict === undefined) {
    verdict = (resolverOf(type).walk(pointer) ?? []).some((node) => node.insertionOrder === false);
    // Map keys make pointers a model chooses; the bound keeps a hostile model from growing this.
    if (known.size >= 10_000) known.clear();
    known.set(pointer, verdict);
  }
  return verdict;
}
