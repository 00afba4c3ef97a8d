import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSealer } from '../../src/secrets/index.js';
import {
  openContext,
  openRequest,
  openResource,
  sealContext,
  sealRequest,
  sealResource,
} from '../../src/engine/sealing.js';
import type { ResourceType } from '../../src/schema/index.js';

const sealer = createSealer(randomBytes(32));
const type = { typeName: 'T::A::B', writeOnlyProperties: ['/properties/Secret'] } as unknown as ResourceType;

test('records written before sealing existed are read as they are', () => {
  const plain = {
    typeName: 'T::A::B',
    identifier: 'a',
    properties: { Name: 'a', Secret: 's' },
    createdAt: '',
    updatedAt: '',
  };
  assert.deepEqual(openResource(sealer, plain), { Name: 'a', Secret: 's' });
  assert.deepEqual(openRequest(sealer, 'r1', { desiredState: { Name: 'a', Secret: 's' } }), {
    desiredState: { Name: 'a', Secret: 's' },
  });
  assert.deepEqual(openContext(sealer, 'r1', { step: 2 }), { step: 2 });
});

test('sealed records round-trip, bound to their resource and request', () => {
  const record = sealResource(sealer, type, 'a', { Name: 'a', Secret: 's3cr3t' });
  assert.deepEqual(record.properties, { Name: 'a' });
  const stored = { typeName: 'T::A::B', identifier: 'a', ...record, createdAt: '', updatedAt: '' };
  assert.deepEqual(openResource(sealer, stored), { Name: 'a', Secret: 's3cr3t' });
  assert.throws(() => openResource(sealer, { ...stored, identifier: 'b' }), /another record/);

  const request = sealRequest(sealer, type, 'r1', {
    desiredState: { Name: 'a', Secret: 'new' },
    previousState: { Name: 'a', Secret: 'old' },
  });
  assert.ok(!JSON.stringify(request).includes('"new"') && !JSON.stringify(request).includes('"old"'));
  assert.deepEqual(openRequest(sealer, 'r1', request), {
    desiredState: { Name: 'a', Secret: 'new' },
    previousState: { Name: 'a', Secret: 'old' },
  });
  assert.throws(() => openRequest(sealer, 'r2', request), /another record/);

  const context = sealContext(sealer, 'r1', { token: 'abc' });
  assert.deepEqual(Object.keys(context), ['$sealed']);
  assert.deepEqual(openContext(sealer, 'r1', context), { token: 'abc' });
  assert.throws(() => openContext(sealer, 'r2', context), /another record/);
});
