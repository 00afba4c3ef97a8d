import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { createResource, operation, storedType, tempDir } from './fixtures.js';

test('data survives closing and reopening the store', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'nested', 'deeper', 'typeplane.db');
  const store = await openSqliteStore(path);
  assert.ok(existsSync(path), 'the parent folders are created');

  const type = storedType('Acme::Test::Thing');
  await store.putType(type);
  await createResource(store, 'kept');
  const running = operation({ identifier: 'running', clientToken: 'ct', callbackContext: { step: 1 } });
  await store.beginOperation(running, 'hash');
  await store.kvInsert('ns', 'k', { value: { v: 1 }, writtenBy: running.requestToken });
  await store.close();
  await store.close(); // closing twice is harmless

  const reopened = await openSqliteStore(path);
  t.after(() => reopened.close());
  assert.deepEqual(await reopened.getType('Acme::Test::Thing'), type);
  assert.equal((await reopened.getResource('Acme::Test::Thing', 'kept'))?.identifier, 'kept');
  assert.deepEqual(await reopened.getOperation(running.requestToken), running);
  assert.equal((await reopened.beginOperation(operation({ clientToken: 'ct' }), 'hash')).kind, 'replayed');
  assert.deepEqual(await reopened.kvGet('ns', 'k'), { value: { v: 1 }, writtenBy: running.requestToken });
  assert.equal(
    (await reopened.claimOperations('w', new Date(), 1000, 10)).length,
    1,
    'a restart can resume it',
  );
});

test('the file is in WAL mode with the schema at the latest version', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'typeplane.db');
  const store = await openSqliteStore(path);
  t.after(() => store.close());
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const tables = db
    .prepare<[], { name: string }>(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    )
    .all()
    .map((r) => r.name);
  assert.deepEqual(tables, ['client_tokens', 'kv', 'operations', 'resource_refs', 'resources', 'types']);
  // Keyset paging uses the primary key: no sort step, no full scan.
  const plan = db
    .prepare<[], { detail: string }>(
      `EXPLAIN QUERY PLAN SELECT * FROM resources WHERE type_name = 'x' AND identifier > 'y' ORDER BY identifier LIMIT 10`,
    )
    .all()
    .map((r) => r.detail)
    .join('\n');
  assert.match(plan, /SEARCH resources USING PRIMARY KEY/);
  assert.doesNotMatch(plan, /TEMP B-TREE/);
});

test('reopening does not run migrations again, and a newer schema is refused', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'typeplane.db');
  await (await openSqliteStore(path)).close();
  await (await openSqliteStore(path)).close();

  const db = new Database(path);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  await assert.rejects(openSqliteStore(path), /newer than this Typeplane knows/);
});
