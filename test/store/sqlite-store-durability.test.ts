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
  assert.deepEqual(tables, [
    'audit_records',
    'change_horizon',
    'client_token_index',
    'client_token_watermark',
    'kv',
    'operations',
    'resource_counts',
    'resource_counts_holder',
    'resource_identifiers',
    'resource_refs',
    'resources',
    'types',
  ]);
  // A client token is found through its own index (batches of them: client-tokens.ts), by key.
  const tokenPlan = db
    .prepare<[], { detail: string }>(
      `EXPLAIN QUERY PLAN SELECT seq FROM client_token_index WHERE client_token = 't'`,
    )
    .all()
    .map((r) => r.detail)
    .join('\n');
  assert.match(tokenPlan, /SEARCH client_token_index USING PRIMARY KEY/);
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

test('migrating a store of schema version 4 keeps every operation, its start order and its lease', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'typeplane.db');
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec(MIGRATIONS.slice(0, 4).join(';\n'));
  old.pragma('user_version = 4');
  const insertOp = old.prepare(
    `INSERT INTO operations (request_token, type_name, identifier, operation, status, event_time, request_json,
       started_at, deadline_at, client_token, request_hash, lease_owner, lease_until)
     VALUES (?, 'Acme::Test::Thing', ?, 'CREATE', ?, ?, '{}', ?, ?, ?, ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  const later = new Date(Date.now() + 60_000).toISOString();
  insertOp.run('r1', 'a', 'SUCCESS', now, now, later, 'tok-1', 'hash-1', null, null);
  insertOp.run('r2', 'b', 'IN_PROGRESS', now, now, later, null, null, 'worker-1', later);
  insertOp.run('r3', 'c', 'FAILED', now, now, later, 'tok-3', 'hash-3', null, null);
  const seqs = old.prepare<[], { seq: number }>('SELECT seq FROM operations ORDER BY seq').all();
  old.close();

  const store = await openSqliteStore(path);
  t.after(() => store.close());
  const listed = await store.listOperations({}, { limit: 10 });
  assert.deepEqual(
    listed.items.map((o) => o.requestToken),
    ['r3', 'r2', 'r1'],
    'newest first, as before',
  );
  assert.equal((await store.getOperation('r2'))?.status, 'IN_PROGRESS');
  // The lease came along: another worker cannot claim r2 before it runs out, its owner can renew it.
  assert.deepEqual(await store.claimOperations('worker-2', new Date(), 60_000, 10), []);
  assert.equal(await store.renewLease('r2', 'worker-1', new Date(), 60_000), true);
  // Client tokens and their request hashes still replay, and one active operation per resource holds.
  const begin = (requestToken: string, identifier: string, clientToken?: string) =>
    store.beginOperation(
      {
        requestToken,
        typeName: 'Acme::Test::Thing',
        identifier,
        operation: 'UPDATE',
        status: 'PENDING',
        eventTime: now,
        request: {},
        startedAt: now,
        deadlineAt: later,
        attempts: 0,
        ...(clientToken ? { clientToken } : {}),
      },
      clientToken && 'hash-1',
    );
  const replayed = await begin('new-1', 'a', 'tok-1');
  assert.equal(replayed.kind === 'replayed' && replayed.operation.requestToken, 'r1');
  assert.equal((await begin('new-2', 'b')).kind, 'conflict');
  // New operations continue the start order.
  assert.equal((await begin('new-3', 'd')).kind, 'started');
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  const after = db.prepare<[], { seq: number }>('SELECT seq FROM operations ORDER BY seq').all();
  assert.deepEqual(after.slice(0, 3), seqs);
  assert.ok(after[3]!.seq > seqs[2]!.seq);
});

test('writing an operation updates only the indexes its reads need', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'typeplane.db');
  await (await openSqliteStore(path)).close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  // Each index is one more B-tree written by every operation: the set is kept to what the reads use.
  const indexes = db
    .prepare<[], { name: string }>(
      `SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'operations' ORDER BY name`,
    )
    .all()
    .map((r) => r.name);
  assert.deepEqual(indexes, [
    'operations_active',
    // Claims within a caller's share (active operations of a caller only, as the one by type).
    'operations_active_by_requester',
    // Claims within a type's share (active operations only: small, written at begin and finish).
    'operations_active_by_type',
    // The change log: only operations changed after they began enter it (partial), at its right edge.
    'operations_changes',
    // No client-token index: tokens are indexed in batches, in client_token_index (client-tokens.ts).
    'operations_one_active',
    'sqlite_autoindex_operations_1', // request_token UNIQUE
  ]);
  const autoincrement = db
    .prepare<[], { sql: string }>(`SELECT sql FROM sqlite_schema WHERE name = 'operations'`)
    .get()!.sql;
  assert.doesNotMatch(autoincrement, /AUTOINCREMENT/);
  // Expiry finds its candidates from the oldest operation on, through the table's own order.
  const plan = db
    .prepare<[], { detail: string }>(
      `EXPLAIN QUERY PLAN SELECT seq FROM operations WHERE started_at >= 'x' ORDER BY seq LIMIT 1`,
    )
    .all()
    .map((r) => r.detail)
    .join('\n');
  assert.doesNotMatch(plan, /TEMP B-TREE/);
});
