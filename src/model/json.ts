/**
 * @module JSON values: copying, comparing, cleaning. Models are plain JSON (objects, arrays, strings,
 * numbers, booleans, null); anything else is copied as is.
 */

export type JsonObject = { [key: string]: unknown };

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sets an own member, even one named `__proto__` (plain assignment would change the prototype). */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(out, key, cloneJson(value[key]));
    return out as T;
  }
  return value;
}

/** Deep equality of JSON values; object member order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/**
 * A copy of `value` without `null` object members and array items, at every depth. A `null` at the
 * top stays `null`: there is nothing to remove it from.
 */
export function stripNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(stripNulls) as T;
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const member = value[key];
      if (member !== null) setOwn(out, key, stripNulls(member));
    }
    return out as T;
  }
  return value;
}
