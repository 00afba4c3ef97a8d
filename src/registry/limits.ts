/**
 * @module Bounds on what a schema may ask of the validator compiler, checked before ajv runs. ajv's
 * compile time and generated code grow with the schema as ajv expands it: a `$ref` to a definition
 * without references of its own is copied in at every use, and an `enum` becomes one comparison per
 * value (compile time grows faster than linearly: 20,000 values take 1.5 s, 100,000 over 40 s). A
 * short document can therefore stall a registration; these limits refuse it at once, with the limit
 * named.
 *
 * Regular expressions cost most: ajv adds each to the validator's scope (1,000 patterns take 0.5 s,
 * 2,000 take 1.9 s), and RE2 compiles in time linear in the pattern's length.
 *
 * The published AWS schemas (1,489) peak at 4,540 values expanded (AWS::WAFv2::WebACL), 342 values
 * in one enum, 32 `anyOf`/`oneOf`/`allOf` branches, 59 patterns and a pattern of 769 characters;
 * the limits leave a wide margin.
 */
import { MAX_PATTERN_LENGTH } from '../schema/index.js';
import type { JsonSchema } from '../schema/model.js';

export const SCHEMA_LIMITS = {
  /** JSON values (objects, arrays, scalars) of the schema as ajv expands it. */
  maxExpandedValues: 25_000,
  /** Values of one `enum`. */
  maxEnumValues: 5_000,
  /** Branches of `anyOf`, `oneOf` and `allOf`, all together. */
  maxBranches: 1_000,
  /** `pattern`s and `patternProperties` keys, all together. */
  maxPatterns: 1_000,
  /** Characters of one pattern. */
  maxPatternLength: MAX_PATTERN_LENGTH,
} as const;

/** What a schema exceeds, as a sentence naming the limit; `undefined` when within every limit. */
export function schemaLimitExceeded(schema: JsonSchema): string | undefined {
  const root = schema as unknown;
  const withRefs = new WeakMap<object, boolean>();
  const hasRef = (node: unknown): boolean => {
    if (typeof node !== 'object' || node === null) return false;
    let known = withRefs.get(node);
    if (known === undefined) {
      known = Array.isArray(node)
        ? node.some(hasRef)
        : Object.hasOwn(node, '$ref') || Object.values(node).some(hasRef);
      withRefs.set(node, known);
    }
    return known;
  };
  const resolve = (ref: string): unknown => {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = root;
    for (const raw of ref.slice(2).split('/')) {
      const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    }
    return node;
  };

  let total = 0;
  let branches = 0;
  let patterns = 0;
  const pattern = (source: unknown, pointer: string): string | undefined => {
    if (typeof source !== 'string') return undefined;
    if (++patterns > SCHEMA_LIMITS.maxPatterns) {
      return `the schema has more than ${SCHEMA_LIMITS.maxPatterns} patterns (pattern and patternProperties) once its references are resolved`;
    }
    if (source.length > SCHEMA_LIMITS.maxPatternLength) {
      return `${pointer} is a pattern of ${source.length} characters; at most ${SCHEMA_LIMITS.maxPatternLength} are allowed`;
    }
    return undefined;
  };
  // Definitions holding references become functions of their own, compiled once each.
  const compiledAlone = new Set<unknown>([root]);
  const queue: [unknown, string][] = [[root, '']];
  const count = (node: unknown, pointer: string): string | undefined => {
    if (++total > SCHEMA_LIMITS.maxExpandedValues) {
      return `the schema expands to more than ${SCHEMA_LIMITS.maxExpandedValues} values once its references are resolved; simplify it or split the type`;
    }
    if (typeof node !== 'object' || node === null) return undefined;
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) {
        const problem = count(item, `${pointer}/${i}`);
        if (problem) return problem;
      }
      return undefined;
    }
    const members = node as Record<string, unknown>;
    if (Array.isArray(members.enum) && members.enum.length > SCHEMA_LIMITS.maxEnumValues) {
      return `${pointer || '/'} has an enum of ${members.enum.length} values; at most ${SCHEMA_LIMITS.maxEnumValues} are allowed`;
    }
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      const list = members[keyword];
      if (Array.isArray(list) && (branches += list.length) > SCHEMA_LIMITS.maxBranches) {
        return `${pointer || '/'}/${keyword} brings the schema's anyOf/oneOf/allOf branches over ${SCHEMA_LIMITS.maxBranches}, the most allowed once references are resolved`;
      }
    }
    const problem = pattern(members.pattern, `${pointer}/pattern`);
    if (problem) return problem;
    if (typeof members.patternProperties === 'object' && members.patternProperties !== null) {
      for (const key of Object.keys(members.patternProperties)) {
        const problem = pattern(key, `${pointer}/patternProperties`);
        if (problem) return problem;
      }
    }
    for (const [key, value] of Object.entries(members)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = resolve(value);
        if (target !== undefined && !hasRef(target)) {
          const problem = count(target, value.slice(1));
          if (problem) return problem;
        } else if (target !== undefined && !compiledAlone.has(target)) {
          compiledAlone.add(target);
          queue.push([target, value.slice(1)]);
        }
      }
      // Definitions are counted where they are used, not where they are declared.
      if (key === 'definitions' || key === '$defs') continue;
      const problem = count(value, `${pointer}/${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
  for (let i = 0; i < queue.length; i++) {
    const problem = count(...queue[i]!);
    if (problem) return problem;
  }
  return undefined;
}
