import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createOnlyChanged,
  identifierModel,
  identifierOf,
  readOnlyPresent,
  stripReadOnly,
  stripWriteOnly,
} from '../../src/model/index.js';
import { counter, thing, typeOf } from '../registry/fixtures.js';

const device = typeOf({
  typeName: 'Acme::Test::Device',
  description: 'A device with a nested, a numeric and a boolean identifier part.',
  definitions: {
    Device: { type: 'object', additionalProperties: false, properties: { DeviceName: { type: 'string' } } },
  },
  properties: {
    Device: { $ref: '#/definitions/Device' },
    Shard: { type: 'number' },
    Primary: { type: 'boolean' },
    Level: { type: 'integer', enum: [1, 2, 3] },
  },
  additionalProperties: false,
  primaryIdentifier: [
    '/properties/Device/DeviceName',
    '/properties/Shard',
    '/properties/Primary',
    '/properties/Level',
  ],
  createOnlyProperties: [
    '/properties/Device',
    '/properties/Shard',
    '/properties/Primary',
    '/properties/Level',
  ],
});

test('identifierOf: compound identifiers join their parts with |', () => {
  assert.equal(identifierOf(thing, { Name: 'alpha', Region: 'eu-west-1', Size: 'M' }), 'alpha|eu-west-1');
  assert.equal(identifierOf(thing, { Name: 'alpha' }), undefined, 'a part is missing');
  assert.equal(identifierOf(thing, { Name: 'alpha', Region: null }), undefined, 'null is not a value');
  assert.equal(
    identifierOf(thing, { Name: { x: 1 }, Region: 'r' }),
    undefined,
    'objects are not identifiers',
  );
  assert.equal(
    identifierOf(thing, { Name: 'a|b', Region: 'r' }),
    undefined,
    'a part with | could not be split back',
  );
});

test('identifierOf: numbers, booleans and nested parts', () => {
  assert.equal(identifierOf(counter, { Id: 42, Label: 'x' }), '42');
  assert.equal(identifierOf(counter, { Id: 0 }), '0');
  assert.equal(
    identifierOf(device, { Device: { DeviceName: 'd1' }, Shard: 1.5, Primary: false, Level: 2 }),
    'd1|1.5|false|2',
  );
});

test('identifierModel inverts identifierOf, converting parts to their schema types', () => {
  assert.deepEqual(identifierModel(thing, 'alpha|eu-west-1'), { Name: 'alpha', Region: 'eu-west-1' });
  assert.deepEqual(identifierModel(counter, '42'), { Id: 42 });
  assert.deepEqual(identifierModel(counter, '-7'), { Id: -7 });
  const model = { Device: { DeviceName: 'd1' }, Shard: 1.5, Primary: false, Level: 2 };
  assert.deepEqual(identifierModel(device, identifierOf(device, model)!), model);
});

test('identifierModel: wrong part counts and unconvertible parts give undefined', () => {
  assert.equal(identifierModel(thing, 'alpha'), undefined);
  assert.equal(identifierModel(thing, 'a|b|c'), undefined);
  assert.equal(identifierModel(counter, 'abc'), undefined);
  assert.equal(identifierModel(counter, '1.5'), undefined, 'not an integer');
  assert.equal(identifierModel(counter, ''), undefined);
  assert.equal(identifierModel(counter, '0x10'), undefined);
  assert.equal(identifierModel(device, 'd1|1|yes|2'), undefined, 'not a boolean');
});

test('identifierModel: a one-part string identifier is never split', () => {
  const single = typeOf({
    typeName: 'Acme::Test::Single',
    description: 'One string identifier.',
    properties: { Arn: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Arn'],
    readOnlyProperties: ['/properties/Arn'],
  });
  assert.deepEqual(identifierModel(single, 'arn:a|b'), { Arn: 'arn:a|b' });
  assert.equal(identifierOf(single, { Arn: 'arn:a|b' }), 'arn:a|b');
});

test('readOnlyPresent lists the read-only pointers with a value, through arrays', () => {
  assert.deepEqual(readOnlyPresent(thing, { Name: 'a' }), []);
  assert.deepEqual(
    readOnlyPresent(thing, { Name: 'a', Arn: 'arn', Items: [{ Token: 't' }, { Status: 'ok' }] }),
    ['/properties/Arn', '/properties/Items/*/Status'],
  );
  assert.deepEqual(readOnlyPresent(thing, { Config: { Endpoint: 'e' } }), ['/properties/Config/Endpoint']);
});

test('createOnlyChanged compares values deeply; adding or removing counts', () => {
  const previous = { Name: 'a', Region: 'r', Tags: [{ Key: 'k', Value: 'v' }], Size: 'S' };
  assert.deepEqual(
    createOnlyChanged(thing, previous, { ...previous, Size: 'L', Tags: [{ Key: 'k', Value: 'changed' }] }),
    [],
  );
  assert.deepEqual(createOnlyChanged(thing, previous, { ...previous, Name: 'b' }), ['/properties/Name']);
  assert.deepEqual(
    createOnlyChanged(thing, previous, { Name: 'a', Tags: previous.Tags }),
    ['/properties/Region'],
    'removed',
  );
  assert.deepEqual(
    createOnlyChanged(thing, { Name: 'a' }, { Name: 'a', Region: 'r' }),
    ['/properties/Region'],
    'added',
  );
  assert.deepEqual(createOnlyChanged(thing, previous, { ...previous, Tags: [{ Key: 'k2', Value: 'v' }] }), [
    '/properties/Tags/*/Key',
  ]);
  assert.deepEqual(
    createOnlyChanged(thing, previous, { ...previous, Tags: [...previous.Tags, { Key: 'new' }] }),
    ['/properties/Tags/*/Key'],
    'an item with a create-only member was added',
  );
  assert.deepEqual(
    createOnlyChanged(device, { Device: { DeviceName: 'd' } }, { Device: { DeviceName: 'd' } }),
    [],
  );
  assert.deepEqual(
    createOnlyChanged(device, { Device: { DeviceName: 'd' } }, { Device: { DeviceName: 'e' } }),
    ['/properties/Device'],
  );
});

test('stripWriteOnly removes write-only values at every depth, including inside arrays', () => {
  const model = {
    Name: 'a',
    Secret: 's',
    Config: { Mode: 'fast', Password: 'p' },
    Items: [{ Name: 'i1', Token: 't1' }, { Name: 'i2' }, { Token: 't3' }],
  };
  const before = structuredClone(model);
  const out = stripWriteOnly(thing, model);
  assert.deepEqual(out, { Name: 'a', Config: { Mode: 'fast' }, Items: [{ Name: 'i1' }, { Name: 'i2' }, {}] });
  assert.deepEqual(model, before, 'input untouched');
  assert.notEqual(out.Config, model.Config);
});

test('stripReadOnly removes read-only values', () => {
  const model = {
    Name: 'a',
    Arn: 'arn',
    Config: { Mode: 'fast', Endpoint: 'e' },
    Items: [{ Status: 'ok', Token: 't' }],
  };
  assert.deepEqual(stripReadOnly(thing, model), {
    Name: 'a',
    Config: { Mode: 'fast' },
    Items: [{ Token: 't' }],
  });
  assert.equal(model.Arn, 'arn');
  assert.deepEqual(stripReadOnly(counter, { Label: 'x' }), { Label: 'x' });
});
