/**
 * An instance record at rest (records.ts), on a real SQLite store: kept as the engine keeps a
 * resource's record — in the clear but for its write-only values, sealed — with its generated
 * secrets derived again as it is read, never stored; and a record written in the earlier form (one
 * sealed value) still read.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '../helpers/service.js';
import { generatedSecrets, RecipeStore, type InstanceRecord } from '../../src/recipes/records.js';
import type { ResourceType } from '../../src/schema/index.js';
import { createSealer } from '../../src/secrets/sealer.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';

const TYPE_NAME = 'Test::Recipe::Vault';
const NAMESPACE = `typeplane:recipe-instances:${TYPE_NAME}`;
/** The parts of a type the record's sealing reads: which properties are write-only. */
const type = {
  typeName: TYPE_NAME,
  writeOnlyProperties: ['/properties/adminKey', '/properties/status/password'],
} as unknown as ResourceType;

const sealer = createSealer(randomBytes(32));
let store: Store;
let records: RecipeStore;

before(async () => {
  store = await openSqliteStore(join(tempDir(), 'typeplane.db'));
  records = new RecipeStore(store, sealer);
});
after(() => store.close());

function instance(identifier: string, overrides: Partial<InstanceRecord> = {}): InstanceRecord {
  const createdBy = `create-of-${identifier}`;
  return {
    typeName: TYPE_NAME,
    identifier,
    environment: 'default',
    recipe: 'default',
    version: 1,
    stack: `tp-recipe-${identifier}`,
    generated: generatedSecrets((d) => sealer.mac(d), TYPE_NAME, identifier, createdBy, ['Password', 'Pin']),
    createdBy,
    phase: 'ready',
    model: { name: identifier, adminKey: 'admin-key-1', status: { host: 'h', password: 'pw-out-1' } },
    direct: {
      deploymentId: 'd1',
      stackId: 's1',
      asked: { name: identifier, adminKey: 'admin-key-1' },
      made: [{ logicalId: 'Db', typeName: 'Test::Db', identifier: `${identifier}_db`, model: { Name: 'x' } }],
    },
    ...overrides,
  };
}

const rawValue = async (identifier: string) =>
  JSON.stringify((await store.kvGet(NAMESPACE, identifier))!.value);

test('a record is kept in the clear but for its write-only values, and its generated secrets are not kept at all', async () => {
  const written = instance('orders');
  assert.equal(await records.insertInstance(type, written, 'create-of-orders'), true);
  const raw = await rawValue('orders');
  for (const secret of ['admin-key-1', 'pw-out-1', written.generated.Password!, written.generated.Pin!])
    assert.ok(!raw.includes(secret), `${secret} is not in the stored record: ${raw}`);
  // What is not secret is there to read (and costs no seal to write).
  for (const plain of ['tp-recipe-orders', 'orders_db', '"host":"h"']) assert.ok(raw.includes(plain), raw);
  const read = await records.getInstance(TYPE_NAME, 'orders');
  assert.deepEqual(read?.record, written, 'read whole again: write-only values opened, secrets derived');
});

test('a record with no write-only values is stored with no sealed part', async () => {
  const written = instance('plain', {
    model: { name: 'plain', status: { host: 'h' } },
    direct: { deploymentId: 'd', stackId: 's', asked: { name: 'plain' }, made: [] },
  });
  await records.insertInstance(type, written, 't');
  const raw = (await store.kvGet(NAMESPACE, 'plain'))!.value as Record<string, unknown>;
  assert.equal(raw.sealed, undefined);
  assert.deepEqual((await records.getInstance(TYPE_NAME, 'plain'))?.record, written);
});

test('generated secrets differ by instance, create and name, and are the same every time', () => {
  const mac = (d: string) => sealer.mac(d);
  const one = generatedSecrets(mac, TYPE_NAME, 'a', 't1', ['Password', 'Pin']);
  assert.deepEqual(generatedSecrets(mac, TYPE_NAME, 'a', 't1', ['Password', 'Pin']), one);
  assert.notEqual(one.Password, one.Pin);
  assert.notEqual(generatedSecrets(mac, TYPE_NAME, 'b', 't1', ['Password']).Password, one.Password);
  assert.notEqual(generatedSecrets(mac, TYPE_NAME, 'a', 't2', ['Password']).Password, one.Password);
  assert.match(one.Password!, /^[A-Za-z0-9_-]{32}$/);
});

test('a record read with another key than the one that derived its secrets fails, naming both keys', async () => {
  await records.insertInstance(type, instance('keyed'), 't');
  const other = createSealer(randomBytes(32));
  await assert.rejects(
    new RecipeStore(store, other).getInstance(TYPE_NAME, 'keyed'),
    (e: Error & { code?: string }) =>
      e.code === 'InternalFailure' && e.message.includes(sealer.keyId) && e.message.includes(other.keyId),
  );
});

test('a record written in the earlier form, sealed whole, is still read, and written again in the new one', async () => {
  const earlier = instance('earlier');
  const sealed = sealer.seal(JSON.stringify(earlier), `recipe-instance:${TYPE_NAME}:earlier`);
  assert.equal(
    await store.kvInsert(NAMESPACE, 'earlier', { value: { sealed } as never, writtenBy: 't' }),
    true,
  );
  const read = await records.getInstance(TYPE_NAME, 'earlier');
  assert.deepEqual(read?.record, earlier);
  assert.equal(await records.replaceInstance(type, { ...read!.record, phase: 'deleting' }, 't2'), true);
  assert.ok(!(await rawValue('earlier')).includes('admin-key-1'));
  assert.deepEqual((await records.getInstance(TYPE_NAME, 'earlier'))?.record, {
    ...earlier,
    phase: 'deleting',
  });
});
