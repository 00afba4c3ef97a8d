/**
 * Stores written before type versions were numbers: opening them numbers every type's versions in
 * registration order (the default stays the default) and records each resource as written with the
 * default version. The migration is found by what it does, not by its place in the list.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { MIGRATIONS as PG_MIGRATIONS } from '../../src/store/postgresql/migrations.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { freshSchema, PG_URL, pgQuery, pgSkip } from '../helpers/postgres.js';
import { tempDir } from './fixtures.js';

const numbering = (m: string) => m.includes("SET version = 'v' || seq");

/** Rows as the older layout had them: a manifest type with two API versions as its versions, one resource. */
const OLD_ROWS = [
  `INSERT INTO types (type_name, version, model_json, source, registered_at, seq) VALUES
     ('Acme.Test/things', '2025-01-01', '{"typeName":"Acme.Test/things"}', 'a', '2025-01-01T00:00:00.000Z', 1),
     ('Acme::Test::Thing', '1', '{"typeName":"Acme::Test::Thing"}', 'b', '2025-01-01T00:00:00.000Z', 2),
     ('Acme.Test/things', '2024-06-01', '{"typeName":"Acme.Test/things"}', 'c', '2025-01-01T00:00:00.000Z', 3)`,
  `INSERT INTO resources (type_name, identifier, properties_json, created_at, updated_at) VALUES
     ('Acme.Test/things', 'one', '{"name":"one"}', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
];

async function expectMigrated(store: Store): Promise<void> {
  const versions = (await store.listTypeVersions('Acme.Test/things')).map((v) => [v.version, v.source]);
  assert.deepEqual(versions, [
    ['1', 'a'],
    ['2', 'c'],
  ]);
  assert.equal(
    (await store.getType('Acme.Test/things'))?.source,
    'c',
    'the default is still the last registered',
  );
  assert.equal((await store.getType('Acme::Test::Thing'))?.version, '1');
  assert.equal((await store.getResource('Acme.Test/things', 'one'))?.typeVersion, '2');
  assert.deepEqual(await store.countResourcesByVersion('Acme.Test/things'), { '2': 1 });
}

test('SQLite: versions become numbers and resources record the default version', async (t) => {
  const file = join(tempDir(t), 'old.db');
  const before = SQLITE_MIGRATIONS.findIndex(numbering);
  assert.ok(before > 0);
  const db = new Database(file);
  for (let i = 0; i < before; i++) db.exec(SQLITE_MIGRATIONS[i]!);
  db.pragma(`user_version = ${before}`);
  for (const sql of OLD_ROWS) db.exec(sql);
  db.close();
  const store = await openSqliteStore(file);
  t.after(() => store.close());
  await expectMigrated(store);
});

test(
  'PostgreSQL: versions become numbers and resources record the default version',
  { skip: pgSkip },
  async (t) => {
    const schema = freshSchema(t);
    const before = PG_MIGRATIONS.findIndex(numbering);
    assert.ok(before > 0);
    await pgQuery(`CREATE SCHEMA ${schema}`);
    await pgQuery(`CREATE TABLE ${schema}.schema_version (version integer NOT NULL)`);
    await pgQuery(`INSERT INTO ${schema}.schema_version VALUES ($1)`, [before]);
    for (let i = 0; i < before; i++) await pgQuery(`SET search_path TO ${schema}; ${PG_MIGRATIONS[i]!}`);
    for (const sql of OLD_ROWS) await pgQuery(`SET search_path TO ${schema}; ${sql}`);
    const store = await openPostgresStore(PG_URL, { schema });
    t.after(() => store.close());
    await expectMigrated(store);
  },
);
