/**
 * Additional identifiers identify a resource as uniquely as the primary one: a value another
 * resource holds is AlreadyExists, and reads, updates, deletes and references find a resource by any
 * of them (the primary identifier is tried first). On both stores, for a record-backed type and for
 * one served by a provider.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import type { ServiceOptions } from '../../src/service.js';

const STATE = 'Test::Ident::Stored';
const PROVIDED = 'Test::Ident::Provided';
const schema = (typeName: string) => ({
  typeName,
  description: `${typeName}: a name, and a unique Arn and (Region, Alias) pair.`,
  properties: {
    Name: { type: 'string' },
    Arn: { type: 'string' },
    Region: { type: 'string' },
    Alias: { type: 'string' },
    Size: { type: 'string' },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  additionalIdentifiers: [['/properties/Arn'], ['/properties/Region', '/properties/Alias']],
  createOnlyProperties: ['/properties/Name'],
});

async function withService(options: Partial<ServiceOptions>, run: (svc: TestService) => Promise<void>) {
  const svc = await startTestService({
    providers: new Map([[PROVIDED, memoryProvider({}, 'ident-provider')]]),
    ...options,
  });
  try {
    for (const typeName of [STATE, PROVIDED])
      assert.equal((await svc.call('POST', '/v1/types', schema(typeName))).status, 201);
    await run(svc);
  } finally {
    await svc.close();
  }
}

async function behaves(svc: TestService, typeName: string) {
  const T = encodeURIComponent(typeName);
  const create = async (desiredState: Record<string, unknown>) => {
    const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return settle(svc, res.body.progressEvent.requestToken);
  };
  assert.equal(
    (await create({ Name: 'a', Arn: 'arn:a', Region: 'eu', Alias: 'x' })).operationStatus,
    'SUCCESS',
  );
  // Each additional identifier is unique: a second resource with one of them is AlreadyExists.
  const sameArn = await create({ Name: 'b', Arn: 'arn:a' });
  assert.equal(sameArn.errorCode, 'AlreadyExists', JSON.stringify(sameArn));
  assert.match(sameArn.statusMessage, /\/properties\/Arn = arn:a/);
  const samePair = await create({ Name: 'c', Region: 'eu', Alias: 'x' });
  assert.equal(samePair.errorCode, 'AlreadyExists');
  assert.equal(
    (await create({ Name: 'd', Region: 'eu', Alias: 'y' })).operationStatus,
    'SUCCESS',
    'half a pair is no collision',
  );
  const list = await svc.call('GET', `/v1/resources/${T}`);
  assert.deepEqual(
    list.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
    ['a', 'd'],
  );

  // Read by each identifier: answered under the primary identifier.
  for (const id of ['a', 'arn:a', 'eu|x']) {
    const read = await svc.call('GET', `/v1/resources/${T}/${encodeURIComponent(id)}`);
    assert.equal(read.status, 200, id);
    assert.equal(read.body.identifier, 'a', id);
  }
  // Update and delete by an additional identifier.
  const patch = await svc.call('PATCH', `/v1/resources/${T}/${encodeURIComponent('arn:a')}`, {
    patchDocument: [{ op: 'add', path: '/Size', value: 'L' }],
  });
  assert.equal(patch.status, 202, JSON.stringify(patch.body));
  const patched = await settle(svc, patch.body.progressEvent.requestToken);
  assert.equal(patched.operationStatus, 'SUCCESS', JSON.stringify(patched));
  assert.equal(patched.identifier, 'a');
  // An update that takes another resource's additional identifier is refused.
  const steal = await svc.call('PATCH', `/v1/resources/${T}/d`, {
    patchDocument: [{ op: 'add', path: '/Arn', value: 'arn:a' }],
  });
  const stolen = steal.status === 202 ? await settle(svc, steal.body.progressEvent.requestToken) : steal.body;
  assert.equal(stolen.errorCode, 'ResourceConflict', JSON.stringify(stolen));
  const del = await svc.call('DELETE', `/v1/resources/${T}/${encodeURIComponent('eu|x')}`);
  assert.equal((await settle(svc, del.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/a`)).status, 404);
  // Its identifiers are free again.
  assert.equal(
    (await create({ Name: 'e', Arn: 'arn:a', Region: 'eu', Alias: 'x' })).operationStatus,
    'SUCCESS',
  );
}

test('SQLite: additional identifiers are unique and address the resource', async () => {
  await withService({}, async (svc) => {
    await behaves(svc, STATE);
    await behaves(svc, PROVIDED);
  });
});

test(
  'PostgreSQL: additional identifiers are unique and address the resource',
  { skip: pgSkip },
  async (t) => {
    await withService({ database: { url: PG_URL, schema: freshSchema(t) } }, async (svc) => {
      await behaves(svc, STATE);
      await behaves(svc, PROVIDED);
    });
  },
);
