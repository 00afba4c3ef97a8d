/**
 * Stores written before additional identifiers were indexed (with type versions already numbered)
 * upgrade: their resources stay as they were, and a resource written afterwards is found by its
 * additional identifier, whose value another resource can then not take. The migration is found by
 * what it does, not by its place in the list.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { MIGRATIONS as PG_MIGRATIONS } from '../../src/store/postgresql/migrations.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { freshSchema, PG_URL, pgQuery, pgSkip } from '../helpers/postgres.js';
import { operation, resource, tempDir } from './fixtures.js';

const indexing = (m: string) => m.includes('CREATE TABLE resource_identifiers');

/** A resource as the store before the migration wrote it: recorded with its type version. */
const OLD_ROW = `INSERT INTO resources (type_name, identifier, properties_json, created_at, updated_at, type_version)
  VALUES ('Acme::Test::Thing', 'old', '{"Name":"old"}', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', '1')`;

async function putWithArn(store: Store, identifier: string, arn: string): Promise<void> {
  const op = operation({ identifier });
  const begun = await store.beginOperation(op);
  if (begun.kind !== 'started') throw new Error(`could not begin: ${begun.kind}`);
  await store.finishOperation(
    { ...op, status: 'SUCCESS' },
    {
      kind: 'put',
      resource: resource(identifier, { properties: { Name: identifier, Arn: arn }, typeVersion: '1' }),
      identifiers: [{ name: '/properties/Arn', value: arn }],
    },
  );
}

async function expectUpgraded(store: Store): Promise<void> {
  const old = await store.getResource('Acme::Test::Thing', 'old');
  assert.deepEqual(old?.properties, { Name: 'old' });
  assert.equal(old?.typeVersion, '1', 'the type version column of the earlier migration is kept');
  await putWithArn(store, 'new', 'arn:new');
  assert.equal(await store.findByIdentifier('Acme::Test::Thing', '/properties/Arn', 'arn:new'), 'new');
  await assert.rejects(putWithArn(store, 'other', 'arn:new'), { code: 'ResourceConflict' });
}

test('SQLite: a store from before additional identifiers upgrades and indexes them', async (t) => {
  const file = join(tempDir(t), 'old.db');
  const before = SQLITE_MIGRATIONS.findIndex(indexing);
  assert.ok(before > 0);
  const db = new Database(file);
  for (let i = 0; i < before; i++) db.exec(SQLITE_MIGRATIONS[i]!);
  db.pragma(`user_version = ${before}`);
  db.exec(OLD_ROW);
  db.close();
  const store = await openSqliteStore(file);
  t.after(() => store.close());
  await expectUpgraded(store);
});

test(
  'PostgreSQL: a store from before additional identifiers upgrades and indexes them',
  { skip: pgSkip },
  async (t) => {
    const schema = freshSchema(t);
    const before = PG_MIGRATIONS.findIndex(indexing);
    assert.ok(before > 0);
    await pgQuery(`CREATE SCHEMA ${schema}`);
    await pgQuery(`CREATE TABLE ${schema}.schema_version (version integer NOT NULL)`);
    await pgQuery(`INSERT INTO ${schema}.schema_version VALUES ($1)`, [before]);
    for (let i = 0; i < before; i++) await pgQuery(`SET search_path TO ${schema}; ${PG_MIGRATIONS[i]!}`);
    await pgQuery(`SET search_path TO ${schema}; ${OLD_ROW}`);
    const store = await openPostgresStore(PG_URL, { schema });
    t.after(() => store.close());
    await expectUpgraded(store);
  },
);
