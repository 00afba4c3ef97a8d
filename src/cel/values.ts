/**
 * @module JSON model values ↔ CEL values. An integer where the schema says `integer` becomes a CEL
 * `int` (a bigint), a number where it says `number` a `double`; where the type is `dyn`, a JSON
 * number without a fraction is an `int` (as Kubernetes reads unstructured JSON). Objects become Maps
 * (a plain object's prototype must never be reachable from an expression), arrays lists.
 */
import type { CelInput, CelValue } from '@bufbuild/cel';
import { cel } from './package.js';
import { join } from './analyze.js';
import { celCounters } from './counters.js';
import { DYN, type ValueType } from './types.js';

/** The CEL value of a JSON value read as `type`. */
export function toCel(value: unknown, type: ValueType = DYN): CelInput {
  celCounters.conversions++;
  return convert(value, type);
}

function convert(value: unknown, type: ValueType): CelInput {
  if (type.kind === 'dyn') return convertDyn(value);
  if (typeof value !== 'object' || value === null) return scalar(value, type);
  if (Array.isArray(value)) {
    const elem = type.kind === 'list' ? type.elem : DYN;
    return value.map((v) => convert(v, elem));
  }
  const map = new Map<string, CelInput>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const t =
      type.kind === 'object' ? (type.properties.get(k) ?? DYN) : type.kind === 'map' ? type.value : DYN;
    map.set(k, convert(v, t));
  }
  return map;
}

/**
 * `convert` where the type is `dyn`, as everything under it is (an admission policy's `object`): no
 * type to look up per member, which halves what converting a model costs.
 */
function convertDyn(value: unknown): CelInput {
  if (typeof value !== 'object' || value === null) return scalar(value, DYN);
  if (Array.isArray(value)) return value.map(convertDyn);
  const map = new Map<string, CelInput>();
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) map.set(key, convertDyn(object[key]));
  return map;
}

function scalar(value: unknown, type: ValueType): CelInput {
  switch (typeof value) {
    case 'number':
      if (type.kind === 'double') return value;
      return Number.isInteger(value) && type.kind !== 'string' ? BigInt(value) : value;
    case 'string':
    case 'boolean':
      return value;
    default:
      return null;
  }
}

/** The JSON value of a CEL value (an int that JSON cannot hold exactly becomes a string). */
export function fromCel(value: CelValue): unknown {
  const { isCelList, isCelMap, isCelUint } = cel();
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
    return value;
  if (typeof value === 'bigint')
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (isCelUint(value)) return fromCel(value.value);
  if (isCelList(value)) return [...value].map(fromCel);
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value.entries()) {
      const key = typeof k === 'string' ? k : String(fromCel(k));
      if (key !== '__proto__') out[key] = fromCel(v);
    }
    return out;
  }
  return String(value as unknown);
}

/**
 * About the length of the value in JSON — what an estimate's size limit stands for (the largest
 * request body), so an estimate at this size bounds evaluating it on this value — or, once past
 * `cap`, some size over it: measuring stops there, so a large value costs no more than a small one.
 */
export function jsonSize(value: CelInput, cap: number): number {
  const measured = { size: 0 };
  measure(value, cap, measured, 0);
  return measured.size;
}

function measure(value: CelInput, cap: number, measured: { size: number }, depth: number): void {
  if (measured.size > cap) return;
  if (typeof value === 'string') measured.size += value.length + 2;
  else if (typeof value !== 'object' || value === null) measured.size += 4;
  // As deep as sizedType goes: past it, no size is claimed.
  else if (depth > 100) measured.size = Infinity;
  else if (Array.isArray(value)) {
    measured.size += 2;
    for (const v of value as CelInput[]) {
      measure(v, cap, measured, depth + 1);
      measured.size++;
      if (measured.size > cap) return;
    }
  } else if (value instanceof Map) {
    measured.size += 2;
    for (const [k, v] of value as Map<unknown, CelInput>) {
      measured.size += String(k).length + 4;
      measure(v, cap, measured, depth + 1);
      if (measured.size > cap) return;
    }
  } else if (value instanceof Uint8Array) measured.size += value.length;
}

/** Values' types by value, then declared type: a change's variables are sized once for all its expressions. */
const sized = new WeakMap<object, WeakMap<ValueType, ValueType>>();

/**
 * The type of a value as it is: `declared`'s structure with the sizes the value has (a list's item
 * types merged, so the largest item sizes them all; an object where `declared` is `dyn` with each
 * member's own type, so a long string beside a short list does not size the list). The cost of an
 * expression estimated over these types bounds what evaluating it on this value costs. Kept per
 * value (CEL values are never changed once made).
 */
export function sizedType(declared: ValueType, value: CelInput): ValueType {
  if (typeof value !== 'object' || value === null) return sizeOf(declared, value, 0);
  let byType = sized.get(value);
  if (!byType) sized.set(value, (byType = new WeakMap()));
  let type = byType.get(declared);
  if (!type) byType.set(declared, (type = sizeOf(declared, value, 0)));
  return type;
}

function sizeOf(declared: ValueType, value: CelInput, depth: number): ValueType {
  if (depth > 100) return declared;
  if (typeof value === 'string')
    return { kind: declared.kind === 'dyn' ? 'string' : declared.kind, maxSize: value.length } as ValueType;
  if (value instanceof Uint8Array) return { kind: 'bytes', maxSize: value.length };
  if (Array.isArray(value)) {
    const elemDeclared = declared.kind === 'list' ? declared.elem : DYN;
    let elem: ValueType | undefined;
    for (const v of value as CelInput[]) {
      const t = sizeOf(elemDeclared, v, depth + 1);
      elem = elem ? join(elem, t) : t;
    }
    return { kind: 'list', elem: elem ?? elemDeclared, maxSize: value.length };
  }
  if (value instanceof Map) {
    const entries = value as Map<string, CelInput>;
    if (declared.kind === 'object') {
      const properties = new Map<string, ValueType>();
      for (const [k, t] of declared.properties) {
        properties.set(
          k,
          entries.has(k) ? sizeOf(t, entries.get(k) ?? null, depth + 1) : { ...t, maxSize: 0 },
        );
      }
      return { kind: 'object', properties, maxSize: entries.size };
    }
    if (declared.kind === 'dyn') {
      const properties = new Map<string, ValueType>();
      for (const [k, v] of entries) properties.set(k, sizeOf(DYN, v, depth + 1));
      return { kind: 'object', properties, maxSize: entries.size, exact: true };
    }
    const valueDeclared = declared.kind === 'map' ? declared.value : DYN;
    let merged: ValueType | undefined;
    for (const v of entries.values()) {
      const t = sizeOf(valueDeclared, v, depth + 1);
      merged = merged ? join(merged, t) : t;
    }
    return { kind: 'map', value: merged ?? valueDeclared, maxSize: entries.size };
  }
  if (declared.kind !== 'dyn') return declared;
  switch (typeof value) {
    case 'bigint':
      return INT;
    case 'number':
      return DOUBLE;
    case 'boolean':
      return BOOL;
    default:
      return value === null ? NULL : DYN;
  }
}

// One of each, so a long list of numbers is sized without a type made per item (see `join`).
const INT: ValueType = Object.freeze({ kind: 'int' });
const DOUBLE: ValueType = Object.freeze({ kind: 'double' });
const BOOL: ValueType = Object.freeze({ kind: 'bool' });
const NULL: ValueType = Object.freeze({ kind: 'null_type' });
