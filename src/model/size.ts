/**
 * @module How big a JSON value is, measured without serialising it: its nodes (objects, arrays and
 * scalars), its length as compact JSON text (strings counted in UTF-16 units, escapes not counted)
 * and its depth. Measuring stops as soon as a cap is passed, so its cost is bounded by the cap, not
 * by the value.
 */
import { isObject } from './json.js';

export interface JsonSize {
  nodes: number;
  /** Characters of the value as compact JSON, approximately (escapes are not counted). */
  chars: number;
  /** Levels of objects and arrays: 0 for a scalar. */
  depth: number;
}

/**
 * The size of `value`, or which cap it passes first (`'nodes'` past `maxNodes` nodes, `'chars'` past
 * `maxChars` characters).
 */
export function measureJson(
  value: unknown,
  maxNodes: number,
  maxChars: number,
): JsonSize | 'nodes' | 'chars' {
  const size: JsonSize = { nodes: 0, chars: 0, depth: 0 };
  const visit = (v: unknown, level: number): boolean => {
    size.nodes++;
    if (level > size.depth) size.depth = level;
    if (Array.isArray(v)) {
      size.chars += 2 + Math.max(0, v.length - 1);
      for (const item of v) if (!visit(item, level + 1)) return false;
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      size.chars += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        size.chars += key.length + 3;
        if (!visit(v[key], level + 1)) return false;
      }
    } else if (typeof v === 'string') {
      size.chars += v.length + 2;
    } else {
      size.chars += typeof v === 'number' ? String(v).length : v === null || v === true ? 4 : 5;
    }
    return size.nodes <= maxNodes && size.chars <= maxChars;
  };
  if (visit(value, 0)) return size;
  return size.nodes > maxNodes ? 'nodes' : 'chars';
}
