/**
 * withMembers (src/members.ts) stands in for `{ ...base, ...extra }` on the engine's per-request
 * paths: it must copy exactly what the spread copies, in the same order, and leave both inputs alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { withMembers } from '../../src/members.js';

const NAMES = ['a', 'b', 'c', 'identifier', 'sealed', 'properties'] as const;
const member = fc.oneof(fc.constant(undefined), fc.integer(), fc.string(), fc.constant({ nested: true }));
const record = fc.dictionary(fc.constantFrom(...NAMES), member);

test('withMembers copies what a spread copies: the same members, values and order, the later one winning', () => {
  fc.assert(
    fc.property(record, record, (base, extra) => {
      const spread = { ...base, ...extra };
      const copied = withMembers(base, extra);
      assert.deepStrictEqual(copied, spread);
      assert.deepStrictEqual(Object.keys(copied), Object.keys(spread));
      // A member set to undefined is there, as the spread has it.
      for (const key of Object.keys(extra)) assert.ok(Object.hasOwn(copied, key));
    }),
    { numRuns: 500 },
  );
});

test('withMembers makes a new object and changes neither input', () => {
  const base = { typeName: 'T', identifier: 'i', properties: { x: 1 } };
  const extra = { sealed: 'tp1.k.v' };
  const before = structuredClone({ base, extra });
  const copied = withMembers(base, extra);
  assert.notEqual(copied, base);
  assert.notEqual(copied, extra);
  assert.deepStrictEqual({ base, extra }, before);
  // Members are copied by reference, as a spread copies them.
  assert.equal(copied.properties, base.properties);
});
