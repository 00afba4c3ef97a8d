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
  assert.deepEqual(tables, ['kv', 'operations', 'resource_refs', 'resources', 'types']);
  // A client token is found through its own index, not a scan of the operations.
  const tokenPlan = db
    .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN SELECT * FROM operations WHERE client_token = 't'`)
    .all()
    .map((r) => r.detail)
    .join('\n');
  assert.match(tokenPlan, /USING INDEX operations_client_token/);
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

test('migrating a store of schema version 3 keeps its client tokens and their operations', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'typeplane.db');
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec(MIGRATIONS.slice(0, 3).join(';\n'));
  old.pragma('user_version = 3');
  const insertOp = old.prepare(
    `INSERT INTO operations (request_token, type_name, identifier, operation, status, event_time, request_json,
       started_at, deadline_at, client_token) VALUES (?, 'Acme::Test::Thing', ?, 'CREATE', 'SUCCESS', ?, '{}', ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  insertOp.run('r1', 'a', now, now, now, 'tok-1');
  // The table forgot this token (it was reused later): the older operation must lose it.
  insertOp.run('r2', 'b', now, now, now, 'tok-2');
  insertOp.run('r3', 'c', now, now, now, 'tok-2');
  old
    .prepare(
      `INSERT INTO client_tokens (client_token, request_token, request_hash, created_at) VALUES (?, ?, ?, ?)`,
    )
    .run('tok-1', 'r1', 'hash-1', now);
  old
    .prepare(
      `INSERT INTO client_tokens (client_token, request_token, request_hash, created_at) VALUES (?, ?, ?, ?)`,
    )
    .run('tok-2', 'r3', 'hash-2', now);
  old.close();

  const store = await openSqliteStore(path);
  t.after(() => store.close());
  const replay = (token: string, identifier: string, hash: string) =>
    store.beginOperation(
      {
        requestToken: `new-${token}`,
        typeName: 'Acme::Test::Thing',
        identifier,
        operation: 'CREATE',
        status: 'PENDING',
        eventTime: now,
        request: {},
        startedAt: now,
        deadlineAt: now,
        attempts: 0,
        clientToken: token,
      },
      hash,
    );
  const one = await replay('tok-1', 'a', 'hash-1');
  assert.equal(one.kind, 'replayed');
  assert.equal(one.kind === 'replayed' && one.operation.requestToken, 'r1');
  const two = await replay('tok-2', 'c', 'hash-2');
  assert.equal(two.kind === 'replayed' && two.operation.requestToken, 'r3');
  assert.equal((await replay('tok-2', 'c', 'other')).kind, 'token-mismatch');
  assert.equal((await store.getOperation('r2'))?.clientToken, undefined);
});
