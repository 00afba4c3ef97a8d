/**
 * @module CloudFormation property pointers (`/properties/A/*\/B`) applied to models.
 *
 * A property pointer names a place in the schema; in a model it designates zero or more values: `*`
 * stands for every item of an array, and a member that is absent designates nothing.
 */
import { pointerTokens } from '../schema/diagnostics.js';
import { cloneJson, isObject, setOwn, type JsonObject } from './json.js';

export type ModelPath = (string | number)[];

export interface ValueAt {
  /** Where the value is in the model: member names and array indices. */
  path: ModelPath;
  value: unknown;
}

const INDEX = /^(0|[1-9]\d*)$/;

/**
 * The member tokens of a property pointer, without the leading `properties`; `undefined` when the
 * pointer does not name a model property (e.g. `/definitions/...`, which designates no model value).
 */
export function propertyTokens(pointer: string): readonly string[] | undefined {
  let tokens = parsed.get(pointer);
  if (tokens === undefined) {
    const all = pointerTokens(pointer);
    tokens = all[0] !== 'properties' || all.length < 2 ? null : Object.freeze(all.slice(1));
    // Pointers come from type schemas, a bounded set; the bound only guards against the unexpected.
    if (parsed.size >= 10_000) parsed.clear();
    parsed.set(pointer, tokens);
  }
  return tokens ?? undefined;
}

/** Parsed pointers: the same few are parsed on every request otherwise. */
const parsed = new Map<string, readonly string[] | null>();

/**
 * Every value `pointer` designates in `model`, in document order.
 *
 * @example
 * valuesAt({ Tags: [{ Key: 'a' }, { Key: 'b' }] }, '/properties/Tags/*\/Key')
 * // → [{ path: ['Tags', 0, 'Key'], value: 'a' }, { path: ['Tags', 1, 'Key'], value: 'b' }]
 */
export function valuesAt(model: unknown, pointer: string): ValueAt[] {
  const tokens = propertyTokens(pointer);
  return tokens ? valuesAtTokens(model, tokens) : [];
}

export function valuesAtTokens(model: unknown, tokens: readonly string[]): ValueAt[] {
  // Most pointers name one place (no `*`): walked without a list of candidates per token, which
  // every create's identifier, read-only and write-only checks paid for several times over.
  if (!hasWildcard(tokens)) {
    const path: ModelPath = [];
    const value = walk(model, tokens, path);
    return value === undefined ? [] : [{ path, value }];
  }
  let current: ValueAt[] = [{ path: [], value: model }];
  for (const token of tokens) {
    const next: ValueAt[] = [];
    for (const { path, value } of current) {
      if (Array.isArray(value)) {
        if (token === '*') {
          value.forEach((item, i) => {
            if (item !== undefined) next.push({ path: [...path, i], value: item });
          });
        } else if (INDEX.test(token) && Number(token) < value.length && value[Number(token)] !== undefined) {
          next.push({ path: [...path, Number(token)], value: value[Number(token)] });
        }
      } else if (isObject(value) && token === '*') {
        // `*` on a map (patternProperties / additionalProperties) designates every value.
        for (const [key, item] of Object.entries(value))
          if (item !== undefined) next.push({ path: [...path, key], value: item });
      } else if (isObject(value) && Object.hasOwn(value, token) && value[token] !== undefined) {
        next.push({ path: [...path, token], value: value[token] });
      }
    }
    if (next.length === 0) return [];
    current = next;
  }
  return current;
}

/**
 * The value `pointer` designates in `model` when it designates exactly one, else `undefined`: what an
 * identifier is made of, without the paths {@link valuesAt} builds.
 */
export function onlyValueAt(model: unknown, pointer: string): unknown {
  const tokens = propertyTokens(pointer);
  if (!tokens) return undefined;
  if (!hasWildcard(tokens)) return walk(model, tokens);
  const found = valuesAtTokens(model, tokens);
  return found.length === 1 ? found[0]!.value : undefined;
}

/** The first value `pointer` designates in `model` (document order), or `undefined` when none. */
export function firstValueAt(model: unknown, pointer: string): unknown {
  const tokens = propertyTokens(pointer);
  if (!tokens) return undefined;
  return hasWildcard(tokens) ? valuesAtTokens(model, tokens)[0]?.value : walk(model, tokens);
}

const hasWildcard = (tokens: readonly string[]): boolean => tokens.includes('*');

/**
 * The one value `tokens` (none of them `*`) lead to in `model`, as {@link valuesAtTokens} finds it
 * (an array takes an index within its length, an object its own member; an undefined value is none),
 * its steps appended to `path` when given.
 */
function walk(model: unknown, tokens: readonly string[], path?: ModelPath): unknown {
  let value = model;
  for (const token of tokens) {
    if (Array.isArray(value)) {
      if (!INDEX.test(token)) return undefined;
      const index = Number(token);
      if (index >= value.length) return undefined;
      value = value[index];
      path?.push(index);
    } else if (isObject(value) && Object.hasOwn(value, token)) {
      value = value[token];
      path?.push(token);
    } else {
      return undefined;
    }
    if (value === undefined) return undefined;
  }
  return value;
}

/**
 * Removes, in place, every value `pointer` designates in `model`. A pointer ending in `*` empties the
 * arrays it designates.
 */
export function removeAt(model: unknown, pointer: string): void {
  const tokens = propertyTokens(pointer);
  if (!tokens) return;
  const last = tokens.at(-1)!;
  for (const { value: parent } of valuesAtTokens(model, tokens.slice(0, -1))) {
    if (last === '*') {
      if (Array.isArray(parent)) parent.length = 0;
      else if (isObject(parent)) for (const key of Object.keys(parent)) delete parent[key];
    } else if (isObject(parent) && Object.hasOwn(parent, last)) {
      delete parent[last];
    }
  }
}

/**
 * A deep copy of `model` without the values `pointers` designate: what cloneJson and then removeAt
 * for each pointer give, but the members are left out as it copies. Removing one afterwards (`delete`)
 * made V8 turn the copy into a slow dictionary object, on every create of a type with write-only
 * properties. Pointers with `*`, or that lead through an array, take the long way.
 */
export function copyWithout<T>(model: T, pointers: readonly string[]): T {
  const tree = removalOf(pointers);
  if (tree !== null) {
    const copy = copyLeaving(model, tree);
    if (copy !== THROUGH_ARRAY) return copy as T;
  }
  const copy = cloneJson(model);
  for (const pointer of pointers) removeAt(copy, pointer);
  return copy;
}

/** The members a set of pointers removes, as a tree of names (true: the member goes). */
export type Removal = Map<string, Removal | true>;

/** By pointer list (a type's, kept as long as the type): null when one has `*`. */
const removals = new WeakMap<readonly string[], Removal | null>();

export function removalOf(pointers: readonly string[]): Removal | null {
  let tree = removals.get(pointers);
  if (tree !== undefined) return tree;
  tree = new Map();
  for (const pointer of pointers) {
    const tokens = propertyTokens(pointer);
    if (!tokens) continue;
    if (tokens.includes('*')) {
      tree = null;
      break;
    }
    let node: Removal = tree;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (i === tokens.length - 1) {
        node.set(token, true);
        break;
      }
      let next = node.get(token);
      if (next === true) break; // the member goes whole
      if (next === undefined) {
        next = new Map();
        node.set(token, next);
      }
      node = next;
    }
  }
  removals.set(pointers, tree);
  return tree;
}

/** An array where a pointer goes on: its tokens may be indices, which removeAt reads as such. */
const THROUGH_ARRAY = Symbol('through an array');

function copyLeaving(value: unknown, tree: Removal): unknown {
  if (Array.isArray(value)) return THROUGH_ARRAY;
  // A scalar where a pointer goes on: nothing of it to remove.
  if (!isObject(value)) return cloneJson(value);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const rule = tree.get(key);
    if (rule === true) continue;
    if (rule === undefined) {
      setOwn(out, key, cloneJson(value[key]));
      continue;
    }
    const inner = copyLeaving(value[key], rule);
    if (inner === THROUGH_ARRAY) return THROUGH_ARRAY;
    setOwn(out, key, inner);
  }
  return out;
}
