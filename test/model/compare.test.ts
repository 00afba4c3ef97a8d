import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcomeDifferences, sameValue } from '../../src/model/index.js';
import { typeOf } from '../registry/fixtures.js';

/** Rules are unordered; each rule's Sources unordered, its Steps ordered. */
const firewall = typeOf({
  typeName: 'Acme::Test::Firewall',
  description: 'Unordered and ordered arrays nested in an unordered one.',
  definitions: {
    Rule: {
      type: 'object',
      additionalProperties: false,
      properties: {
        Port: { type: 'integer' },
        Sources: { type: 'array', insertionOrder: false, items: { type: 'string' } },
        Steps: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  properties: {
    Name: { type: 'string' },
    Rules: { type: 'array', insertionOrder: false, items: { $ref: '#/definitions/Rule' } },
    Secret: { type: 'string' },
    Arn: { type: 'string' },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  readOnlyProperties: ['/properties/Arn'],
  writeOnlyProperties: ['/properties/Secret'],
});

const asked = {
  Name: 'f',
  Rules: [
    { Port: 1, Sources: ['a', 'b'], Steps: ['x', 'y'] },
    { Port: 2, Sources: ['c'] },
  ],
};

test('an unordered array nested in an unordered one is a set at its own depth', () => {
  const answered = {
    Name: 'f',
    Rules: [
      { Port: 2, Sources: ['c'] },
      { Port: 1, Sources: ['b', 'a'], Steps: ['x', 'y'] },
    ],
  };
  assert.deepEqual(outcomeDifferences(firewall, asked, answered), []);
});

test('an ordered array nested in an unordered one is compared in order', () => {
  const answered = {
    Name: 'f',
    Rules: [
      { Port: 2, Sources: ['c'] },
      { Port: 1, Sources: ['a', 'b'], Steps: ['y', 'x'] },
    ],
  };
  assert.deepEqual(
    outcomeDifferences(firewall, asked, answered).map((d) => d.pointer),
    ['/Rules'],
  );
});

test('extra and missing members are differences; read-only, write-only and null members are not', () => {
  const diffs = outcomeDifferences(
    firewall,
    { ...asked, Secret: 's' },
    { Name: 'f', Arn: 'arn:f', Extra: 1, Rules: asked.Rules, Nothing: null },
  );
  assert.deepEqual(
    diffs.map((d) => d.pointer),
    ['/Extra'],
  );
  assert.deepEqual(
    outcomeDifferences(firewall, asked, { Name: 'f' }).map((d) => d.pointer),
    ['/Rules'],
  );
});

test('sets are multisets: duplicates count', () => {
  assert.equal(sameValue(firewall, ['Rules'], [{ Port: 1 }, { Port: 2 }], [{ Port: 1 }, { Port: 1 }]), false);
  assert.equal(sameValue(firewall, ['Rules'], [{ Port: 1 }, { Port: 2 }], [{ Port: 2 }, { Port: 1 }]), true);
});
