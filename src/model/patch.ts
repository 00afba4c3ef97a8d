/**
 * @module JSON Patch (RFC 6902) on a model, as in Cloud Control's UpdateResource: the patch is checked
 * whole (shape, and every path names a property the type declares) before any operation applies, then
 * applied operation by operation on a copy, so a failure leaves nothing half done.
 *
 * Patch paths are model-relative (`/Size`, `/Tags/0/Key`, `/Tags/-`). A path may go inside maps
 * (`patternProperties` or an `additionalProperties` schema) and inside free-form values (an object or
 * array whose schema declares nothing about its members, such as a policy document), but never to an
 * undeclared property. `__proto__`, `constructor` and `prototype` are refused anywhere in a path.
 *
 * The patched model is bounded as each operation applies ({@link PATCHED_MODEL_LIMITS}): `copy`
 * duplicates what the document already holds, so a short patch that copies a container into itself
 * again and again would double it every time (a 1 KB patch, gigabytes). Each operation's effect is
 * measured before it runs, and the first one that would pass a limit is refused, naming it.
 */
import jsonpatch from 'fast-json-patch';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import { escapePointerToken, pointerTokens } from '../schema/diagnostics.js';
import { PointerResolver } from '../schema/resource-schema/index.js';
import type { ResourceType } from '../schema/model.js';
import type { Model } from './types.js';
import { cloneJson, isObject, jsonEqual } from './json.js';
import { resolverOf } from './properties.js';
import { measureJson, type JsonSize } from './size.js';

/** The most operations one patch may hold. */
export const MAX_PATCH_OPERATIONS = 1000;
/** The most problems reported for one patch. */
const MAX_DETAILS = 100;
/** The most reference tokens one patch path may have. */
export const MAX_PATH_TOKENS = 100;

/**
 * Bounds on a patched model and on the work of patching it. A model sent whole is at most a 1 MB body,
 * so a patched one may not be bigger; nor deeper than a body may nest. `maxValuesMoved` bounds the
 * values a patch copies, moves, replaces or removes in all, which each cost time in proportion.
 */
export const PATCHED_MODEL_LIMITS = {
  /** JSON values (objects, arrays, scalars) of the patched model. */
  maxValues: 100_000,
  /** Characters of the patched model as compact JSON. */
  maxChars: 1024 * 1024,
  /** Levels of nesting of the patched model. */
  maxDepth: 100,
  /** Values copied, moved, replaced or removed by one patch, all operations together. */
  maxValuesMoved: 1_000_000,
} as const;

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
type Op = (typeof OPS)[number];
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
const INDEX = /^(0|[1-9]\d*)$/;

interface CheckedOperation {
  op: Op;
  path: string;
  tokens: string[];
  value?: unknown;
  from?: string;
  fromTokens?: string[];
}

/**
 * `current` with `patch` applied. `current` is never modified.
 *
 * @throws TypeplaneError `InvalidRequest` when the patch is malformed, names a path that is not a
 * property of the type, or an operation fails (a `test` that does not hold, a `remove`/`replace` of a
 * value that does not exist, …). Its details carry the `index` of the operation at fault.
 */
export function applyPatch(type: ResourceType, current: Model, patch: unknown): Model {
  const operations = checkPatch(type, patch);
  const size = measureJson(current, PATCHED_MODEL_LIMITS.maxValues, PATCHED_MODEL_LIMITS.maxChars);
  if (typeof size === 'string' || size.depth > PATCHED_MODEL_LIMITS.maxDepth) {
    throw new TypeplaneError(
      'InvalidRequest',
      `the resource's model is over the limits of a patched model (${describeLimits()}); replace it whole with PUT`,
      [{ pointer: '', message: `the current model is over ${describeLimits()}` }],
    );
  }
  const document = cloneJson(current);
  const budget: Budget = { values: size.nodes, chars: size.chars, moved: 0 };
  operations.forEach((operation, index) => applyOperation(document, operation, index, budget));
  return document;
}

function describeLimits(): string {
  const l = PATCHED_MODEL_LIMITS;
  return `${l.maxValues} values, ${l.maxChars} characters of JSON, ${l.maxDepth} levels`;
}

/** The patched document's size so far, and the values the patch has moved so far. */
interface Budget {
  values: number;
  chars: number;
  moved: number;
}

function checkPatch(type: ResourceType, patch: unknown): CheckedOperation[] {
  if (!Array.isArray(patch)) {
    throw new TypeplaneError('InvalidRequest', 'a patch must be a JSON array of operations (RFC 6902)', [
      { pointer: '', message: 'must be an array of operations' },
    ]);
  }
  if (patch.length > MAX_PATCH_OPERATIONS) {
    throw new TypeplaneError(
      'InvalidRequest',
      `the patch has ${patch.length} operations; at most ${MAX_PATCH_OPERATIONS} are allowed`,
      [{ pointer: '', message: `must have at most ${MAX_PATCH_OPERATIONS} operations` }],
    );
  }
  const problems: ErrorDetail[] = [];
  const operations: CheckedOperation[] = [];
  patch.forEach((raw: unknown, index) => {
    const problem = (member: string, message: string) =>
      problems.push({ pointer: `/${index}${member}`, index, message });
    if (!isObject(raw)) {
      problem('', "must be an object with 'op' and 'path'");
      return;
    }
    const op = raw.op;
    if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
      problem('/op', `'op' must be one of ${OPS.join(', ')}`);
      return;
    }
    const checked: Partial<CheckedOperation> = { op: op as Op };
    const path = checkPath(type, raw.path, 'path', (m) => problem('/path', m));
    if (path) [checked.path, checked.tokens] = path;
    if (
      (op === 'add' || op === 'replace' || op === 'test') &&
      (!Object.hasOwn(raw, 'value') || raw.value === undefined)
    ) {
      problem('/value', `'value' is required for ${op}`);
    } else if (Object.hasOwn(raw, 'value')) {
      checked.value = raw.value;
    }
    if (op === 'move' || op === 'copy') {
      const from = checkPath(type, raw.from, 'from', (m) => problem('/from', m));
      if (from) [checked.from, checked.fromTokens] = from;
      if (op === 'move' && path && from && path[0].startsWith(`${from[0]}/`)) {
        problem('/path', `cannot move ${from[0]} into itself (to ${path[0]})`);
      }
    }
    operations.push(checked as CheckedOperation);
  });
  if (problems.length > 0) {
    const first = problems[0]!;
    const lead = `patch operation ${String(first.index)}: ${first.message}`;
    const more = problems.length - 1;
    throw new TypeplaneError(
      'InvalidRequest',
      more === 0 ? lead : `${lead} (and ${more} more problem${more === 1 ? '' : 's'})`,
      problems.slice(0, MAX_DETAILS),
    );
  }
  return operations;
}

/** A patch path (or `from`) that is well formed and names a declared property, with its tokens. */
function checkPath(
  type: ResourceType,
  value: unknown,
  member: 'path' | 'from',
  report: (message: string) => void,
): [string, string[]] | undefined {
  if (typeof value !== 'string') {
    report(`'${member}' must be a string (a JSON pointer such as /Name)`);
    return undefined;
  }
  if (value === '') {
    report(`'${member}' must name a property; the whole model cannot be patched`);
    return undefined;
  }
  if (!value.startsWith('/') || /~[^01]|~$/.test(value)) {
    report(`'${member}' ${JSON.stringify(clip(value))} is not a JSON pointer (RFC 6901)`);
    return undefined;
  }
  const tokens = pointerTokens(value);
  if (tokens.length > MAX_PATH_TOKENS) {
    report(`'${member}' has ${tokens.length} levels; at most ${MAX_PATH_TOKENS} are allowed`);
    return undefined;
  }
  const reserved = tokens.find((t) => RESERVED.has(t));
  if (reserved !== undefined) {
    report(`patch ${member} ${clip(value)} uses the reserved name '${reserved}'`);
    return undefined;
  }
  if (!declared(type, tokens)) {
    report(
      `patch ${member === 'path' ? 'path' : 'from'} ${clip(value)} is not a property of ${type.typeName}`,
    );
    return undefined;
  }
  return [value, tokens];
}

/**
 * Whether a model path lands on something the schema declares: each token is a declared property,
 * a `patternProperties` match, a member of an `additionalProperties` map, an array index or `-` under
 * an array, or anything at all below a free-form value.
 */
function declared(type: ResourceType, tokens: readonly string[]): boolean {
  let resolver = resolverOf(type);
  let pointer = `/properties/${escapePointerToken(tokens[0]!)}`;
  if (!resolver.resolves(pointer)) return false;
  for (const token of tokens.slice(1)) {
    const nodes = resolver.walk(pointer) ?? [];
    if ((token === '-' || INDEX.test(token)) && nodes.some(isArraySchema)) {
      if (resolver.resolves(`${pointer}/*`)) {
        pointer = `${pointer}/*`;
        continue;
      }
      return true; // an array whose items the schema does not describe
    }
    const next = `${pointer}/${escapePointerToken(token)}`;
    if (resolver.resolves(next)) {
      pointer = next;
      continue;
    }
    const map = nodes.find((n) => isObject(n.additionalProperties));
    if (map) {
      // Continue inside the map's value schema, which may `$ref` the type's definitions.
      resolver = new PointerResolver({
        properties: { value: map.additionalProperties },
        definitions: type.schema.definitions,
      });
      pointer = '/properties/value';
      continue;
    }
    return nodes.some(isFreeForm);
  }
  return true;
}

type SchemaNode = Record<string, unknown>;

function typesOf(node: SchemaNode): unknown[] {
  return Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
}

function isArraySchema(node: SchemaNode): boolean {
  return node.items !== undefined || typesOf(node).includes('array');
}

/** A node that says nothing about members: no properties, items, references or branches, and members not forbidden. */
function isFreeForm(node: SchemaNode): boolean {
  for (const key of [
    'properties',
    'patternProperties',
    'items',
    '$ref',
    'allOf',
    'anyOf',
    'oneOf',
    'enum',
    'const',
  ]) {
    if (node[key] !== undefined) return false;
  }
  if (node.additionalProperties === false) return false;
  const types = typesOf(node);
  return types.length === 0 || types.includes('object') || types.includes('array');
}

/** Where a path points in the document as it is now. */
type Location =
  | { ok: true; parent: unknown[] | Model; key: string | number; exists: boolean; pastEnd?: boolean }
  | { ok: false; message: string };

function locate(document: Model, tokens: readonly string[], pointer: string): Location {
  let container: unknown = document;
  for (const [i, token] of tokens.slice(0, -1).entries()) {
    const next = member(container, token);
    if (next === undefined)
      return { ok: false, message: `${pointerOf(tokens.slice(0, i + 1))} does not exist` };
    container = next;
  }
  const last = tokens.at(-1)!;
  if (Array.isArray(container)) {
    if (last === '-') return { ok: true, parent: container, key: container.length, exists: false };
    if (!INDEX.test(last))
      return { ok: false, message: `${clip(pointer)}: '${clip(last)}' is not an array index` };
    const index = Number(last);
    return {
      ok: true,
      parent: container,
      key: index,
      exists: index < container.length,
      pastEnd: index > container.length,
    };
  }
  if (isObject(container))
    return { ok: true, parent: container, key: last, exists: Object.hasOwn(container, last) };
  return { ok: false, message: `${pointerOf(tokens.slice(0, -1))} is not an object or array` };
}

function member(container: unknown, token: string): unknown {
  if (Array.isArray(container)) return INDEX.test(token) ? container[Number(token)] : undefined;
  if (isObject(container) && Object.hasOwn(container, token)) return container[token];
  return undefined;
}

function applyOperation(document: Model, operation: CheckedOperation, index: number, budget: Budget): void {
  const fail = (message: string): never => {
    throw new TypeplaneError(
      'InvalidRequest',
      `patch operation ${index} (${operation.op} ${clip(operation.path)}): ${message}`,
      [{ pointer: `/${index}`, index, message }],
    );
  };
  const limits = PATCHED_MODEL_LIMITS;
  /**
   * The size of a value the operation brings in or takes out, counted against the patch's work;
   * measuring stops at what the model has room for, so a copy bomb is refused before it is copied.
   */
  const measure = (value: unknown, room: { values: number; chars: number }): JsonSize => {
    const workLeft = limits.maxValuesMoved - budget.moved;
    const size = measureJson(value, Math.min(room.values, workLeft), room.chars);
    if (size === 'nodes' && workLeft < room.values)
      fail(
        `the patch copies, moves, replaces or removes more than ${limits.maxValuesMoved} values in all, the most one patch may; send the model whole with PUT`,
      );
    if (size === 'nodes')
      fail(
        `the patched model would have more than ${limits.maxValues} values (objects, arrays and scalars), the most allowed`,
      );
    if (size === 'chars')
      fail(`the patched model would be more than ${limits.maxChars} characters of JSON, the most allowed`);
    const measured = size as JsonSize;
    budget.moved += measured.nodes;
    return measured;
  };
  const everything = { values: Number.MAX_SAFE_INTEGER, chars: Number.MAX_SAFE_INTEGER };
  const takeOut = (location: { parent: unknown[] | Model; key: string | number }): void => {
    const removed = measure(valueAt(location), everything);
    budget.values -= removed.nodes;
    budget.chars -= removed.chars;
  };
  const run = (op: jsonpatch.Operation) => {
    try {
      // Checked above with own-member semantics; prototype modifications stay banned regardless.
      jsonpatch.applyOperation(document, op, false, true, true, index);
    } catch (e) {
      fail((e as Error).message);
    }
  };
  let value = operation.value;
  if (operation.op === 'move' || operation.op === 'copy') {
    const from = locate(document, operation.fromTokens!, operation.from!);
    if (!from.ok) return fail(from.message);
    if (!from.exists) return fail(`${clip(operation.from!)} does not exist`);
    value = valueAt(from);
    // RFC 6902: a move is a remove, then an add at `path` as the document is after the removal.
    if (operation.op === 'move') {
      takeOut(from);
      run({ op: 'remove', path: operation.from! });
    }
  }
  const at = locate(document, operation.tokens, operation.path);
  if (!at.ok) return fail(at.message);
  if (operation.op === 'remove' || operation.op === 'replace' || operation.op === 'test') {
    if (!at.exists) return fail(`${clip(operation.path)} does not exist`);
  }
  if (at.pastEnd)
    return fail(
      `index ${String(at.key)} is past the end of the array (length ${(at.parent as unknown[]).length})`,
    );
  if (operation.op !== 'test') {
    // What leaves the document: the value removed or replaced (an add to an array inserts).
    if (at.exists && !(operation.op === 'add' && Array.isArray(at.parent))) takeOut(at);
    if (operation.op !== 'remove') {
      const added = measure(value, {
        values: limits.maxValues - budget.values,
        chars: limits.maxChars - budget.chars,
      });
      if (operation.tokens.length + added.depth > limits.maxDepth)
        fail(`the patched model would be nested more than ${limits.maxDepth} levels deep, the most allowed`);
      budget.values += added.nodes;
      budget.chars += added.chars + (Array.isArray(at.parent) ? 1 : String(at.key).length + 4);
    }
  }
  switch (operation.op) {
    case 'test':
      if (!jsonEqual(valueAt(at), value))
        fail(`test failed: the value at ${clip(operation.path)} is not ${clip(JSON.stringify(value) ?? '')}`);
      return;
    case 'remove':
      return run({ op: 'remove', path: operation.path });
    case 'replace':
      return run({ op: 'replace', path: operation.path, value: cloneJson(value) });
    default: // add, and the second half of move and copy
      return run({
        op: 'add',
        path: operation.path,
        value: operation.op === 'move' ? value : cloneJson(value),
      });
  }
}

function valueAt(location: { parent: unknown[] | Model; key: string | number }): unknown {
  return Array.isArray(location.parent)
    ? location.parent[location.key as number]
    : location.parent[location.key as string];
}

function pointerOf(tokens: readonly string[]): string {
  return clip(tokens.map((t) => `/${escapePointerToken(t)}`).join(''));
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
