/**
 * Whether a resource's values hold a dynamic reference is told by walking them (holdsReferenceIn), as
 * a recipe's instance asks of each resource it makes: the same answer as searching their JSON text,
 * for any JSON value, a member's name included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { holdsReference, holdsReferenceIn } from '../../src/stacks/parameter-store/references.js';
import { jsonTree } from '../helpers/json-arbitrary.js';

/** Strings that now and then hold the marker, whole, embedded or broken. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom('{{resolve:ssm:name}}', 'x{{resolve:', '{{resolve', '{resolve:', '{{RESOLVE:'),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}{{resolve:secretsmanager:${b}}}`),
);

const json = jsonTree(fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), text);

test('walking a value finds a dynamic reference exactly where its JSON text holds one', () => {
  fc.assert(
    fc.property(json, (value) => {
      assert.equal(holdsReferenceIn(value), holdsReference(JSON.stringify(value)));
    }),
    { numRuns: 2000 },
  );
});

test('a reference in a member name, deep in an array, or nowhere is told apart', () => {
  assert.equal(holdsReferenceIn({ a: [{ b: ['x', '{{resolve:ssm:p}}'] }] }), true);
  assert.equal(holdsReferenceIn({ '{{resolve:ssm:p}}': 1 }), true);
  assert.equal(holdsReferenceIn({ a: [{ b: ['x', '{{resolve'] }], c: 2, d: null }), false);
  assert.equal(holdsReferenceIn('{{resolve:ssm:p}}'), true);
  assert.equal(holdsReferenceIn(42), false);
});
