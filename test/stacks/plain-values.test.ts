/**
 * A value made plain (what plans compare and outputs keep) is exactly its JSON round trip: a value of
 * plain JSON is copied directly, anything else (an Unknown, a non-finite number, an undefined member,
 * a `__proto__` key) as JSON would have it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { plain } from '../../src/stacks/changes.js';
import { KNOWN_AFTER_APPLY, Unknown } from '../../src/stacks/intrinsics.js';
import { jsonTree } from '../helpers/json-arbitrary.js';

const leaf = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(new Unknown(['Database'])),
);
const key = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom('__proto__', 'toJSON', '0', '10', 'constructor'),
);
const value = jsonTree(leaf, key);

test('a value made plain equals its JSON round trip, members in the same order', () => {
  fc.assert(
    fc.property(value, (v) => {
      const expected = JSON.parse(JSON.stringify({ v })) as unknown;
      const got = plain({ v });
      assert.deepEqual(got, expected);
      assert.equal(JSON.stringify(got), JSON.stringify(expected));
    }),
    { numRuns: 3000 },
  );
});

test('a plain copy shares nothing with the value it was made from', () => {
  const inner = { b: [1, { c: 'x' }] };
  const copy = plain({ a: inner }) as { a: { b: [number, { c: string }] } };
  copy.a.b[1].c = 'changed';
  assert.equal(inner.b[1] && (inner.b[1] as { c: string }).c, 'x');
});

test('an Unknown becomes its marker text, and a __proto__ member stays a member', () => {
  const withProto = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
  const got = plain({ x: new Unknown(['Database']), p: withProto });
  assert.equal(got.x, KNOWN_AFTER_APPLY);
  const p = got.p as Record<string, unknown>;
  assert.ok(Object.hasOwn(p, '__proto__'));
  assert.equal(Object.getPrototypeOf(p), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
