import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  outcomeDifferences,
  sameValue,
  stripNulls,
  stripReadOnly,
  stripWriteOnly,
  valueDifferences,
  type Model,
} from '../../src/model/index.js';
import type { ResourceType } from '../../src/schema/index.js';
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

/** A nested type: hidden members at depth, one under an array (the long way's case). */
const nested = typeOf({
  typeName: 'Acme::Test::Nested',
  description: 'Hidden members nested, one under an unordered array.',
  additionalProperties: false,
  definitions: {
    Item: { type: 'object', properties: { Key: { type: 'string' }, Id: { type: 'string' } } },
  },
  properties: {
    Name: { type: 'string' },
    Status: {
      type: 'object',
      properties: { Arn: { type: 'string' }, Token: { type: 'string' }, Note: { type: 'string' } },
    },
    Items: { type: 'array', insertionOrder: false, items: { $ref: '#/definitions/Item' } },
    Ordered: { type: 'array', items: { type: 'string' } },
  },
  primaryIdentifier: ['/properties/Name'],
  readOnlyProperties: ['/properties/Status/Arn', '/properties/Items/*/Id'],
  writeOnlyProperties: ['/properties/Status/Token'],
});

const flat = typeOf({
  typeName: 'Acme::Test::Flat',
  description: 'Hidden members nested in an object, none under an array.',
  additionalProperties: false,
  properties: {
    Name: { type: 'string' },
    Status: {
      type: 'object',
      properties: { Arn: { type: 'string' }, Token: { type: 'string' }, Note: { type: 'string' } },
    },
    Items: { type: 'array', insertionOrder: false, items: { type: 'object' } },
    Ordered: { type: 'array', items: { type: 'string' } },
    Secret: { type: 'string' },
  },
  primaryIdentifier: ['/properties/Name'],
  readOnlyProperties: ['/properties/Status/Arn'],
  writeOnlyProperties: ['/properties/Status/Token', '/properties/Secret'],
});

/** What outcomeDifferences answers, the long way only: the visible copies walked. */
function longWay(type: ResourceType, asked: Model, answered: Model) {
  const visible = (model: Model) => stripReadOnly(type, stripWriteOnly(type, stripNulls(model)));
  return valueDifferences(type, [], visible(asked), visible(answered));
}

test('outcome differences answer what the long way answers, nulls, hidden members and arrays alike', () => {
  const scalar = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.constant(null), fc.integer({ min: 0, max: 2 }));
  const item = fc.record({ Key: scalar, Id: scalar, Other: scalar }, { requiredKeys: [] });
  const model = fc.record(
    {
      Name: scalar,
      Secret: scalar,
      Status: fc.oneof(fc.record({ Arn: scalar, Token: scalar, Note: scalar }, { requiredKeys: [] }), scalar),
      Items: fc.oneof(fc.array(item, { maxLength: 3 }), scalar),
      Ordered: fc.array(scalar, { maxLength: 3 }),
      Extra: scalar,
    },
    { requiredKeys: [] },
  );
  // Pairs that often agree: the second is the first, changed a little or not at all.
  const pair = model.chain((a) =>
    fc.tuple(
      fc.constant(a),
      fc.oneof(fc.constant(structuredClone(a)), model, fc.constant({ ...a, Name: 'z' })),
    ),
  );
  for (const type of [flat, nested])
    fc.assert(
      fc.property(pair, ([a, b]) => {
        assert.deepEqual(
          outcomeDifferences(type, a as Model, b as Model),
          longWay(type, a as Model, b as Model),
        );
      }),
      { numRuns: 2000 },
    );
});

test('an answer the same as asked but for read-only, write-only and null members has no differences', () => {
  const asked = { Name: 'n', Status: { Note: 'x', Token: 'secret' }, Ordered: ['a', 'b'] };
  const answered = {
    Name: 'n',
    Status: { Note: 'x', Arn: 'arn:n', Gone: null },
    Ordered: ['a', 'b'],
    Extra: null,
  };
  assert.deepEqual(outcomeDifferences(flat, asked, answered), []);
  assert.deepEqual(
    outcomeDifferences(flat, asked, { ...answered, Ordered: ['b', 'a'] }).map((d) => d.pointer),
    ['/Ordered/0', '/Ordered/1'],
  );
});
