/**
 * Whether a value holds a secret (an output built from a NoEcho value is then sealed and masked) is
 * decided by walking it, without masking a copy: for any value and secrets, exactly when masking
 * would change it. Whether an expression's value comes from a secret is decided from its references,
 * and asked again of the same expression (a recipe's every instance), answered for its sources.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fromSecret, holdsSecret, mask } from '../../src/stacks/secrets.js';
import { MASK } from '../../src/stacks/parameters.js';

const secret = fc.constantFrom('hunter2-long', 'pw', '42', 'true', MASK, '*');
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.tuple(fc.string({ maxLength: 4 }), secret, fc.string({ maxLength: 4 })).map((p) => p.join('')),
  fc.constant(MASK),
);
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(text, fc.integer({ min: -50, max: 50 }), fc.boolean(), fc.constant(null), fc.constant(42)),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('node'), { maxKeys: 4 }),
  ),
})).node;

test('a value holds a secret exactly when masking it would change it', () => {
  fc.assert(
    fc.property(value, fc.array(secret, { maxLength: 3 }), (v, secrets) => {
      const changed = JSON.stringify(mask(v, secrets)) !== JSON.stringify(v);
      assert.equal(holdsSecret(v, secrets), changed);
    }),
    { numRuns: 2000 },
  );
});

test('the secret found in a nested string, a number and a boolean; none in a value masked already', () => {
  assert.equal(holdsSecret({ a: [{ b: 'x-hunter2-long-y' }] }, ['hunter2-long']), true);
  assert.equal(holdsSecret({ port: 42 }, ['42']), true);
  assert.equal(holdsSecret([true], ['true']), true);
  assert.equal(holdsSecret({ a: MASK, b: 'plain' }, ['*']), false);
  assert.equal(holdsSecret({ a: 'anything' }, []), false);
});

test('an expression from a secret is told by its references, asked again with the same or other sources', () => {
  const expression = { 'Fn::Join': ['-', [{ Ref: 'Password' }, { 'Fn::ImportValue': 'shared-key' }]] };
  const none: ReadonlySet<string> = new Set();
  const noEcho = { parameters: new Set(['Password']), imports: none };
  const secretImport = { parameters: none, imports: new Set(['shared-key']) };
  const neither = { parameters: new Set(['Other']), imports: new Set(['other-key']) };
  // The same question twice (the second answered from what the first found), and other sources
  // after it: each answer is the sources' own.
  for (let round = 0; round < 2; round++) {
    assert.equal(fromSecret(expression, noEcho), true, 'it refers to a NoEcho parameter');
    assert.equal(fromSecret(expression, neither), false, 'it refers to neither');
    assert.equal(fromSecret(expression, secretImport), true, 'it imports a secret export');
  }
  // Sets of the same names are the same sources.
  assert.equal(fromSecret(expression, { parameters: new Set(['Password']), imports: none }), true);
  assert.equal(fromSecret('Password', noEcho), false, 'a plain string refers to nothing');
  assert.equal(fromSecret({ 'Fn::Sub': 'db-${Password}' }, noEcho), true, 'a Sub variable is a reference');
});
