/**
 * The SQLite store's client tokens indexed in batches (src/store/sqlite/client-tokens.ts), on a real
 * file: a token is found whether its batch is indexed or still held in memory — across a restart, and
 * after another connection used it — a batch lands once enough wait, and expiry forgets a token in
 * either place. A completion (a record-backed operation decided in its first transaction) looks its
 * token up in the same statement as the resource it decides on: found there too, held or indexed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/index.js';
import type { Completion, StoredResource } from '../../src/store/types.js';
import { at, freshStore, operation, resource, tempDir } from './fixtures.js';
import { join } from 'node:path';

/** A small batch, to see one land. */
const BATCH = 100;

const indexed = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return {
      count: db.prepare<[], number>('SELECT COUNT(*) FROM client_token_index').pluck().get()!,
      watermark: db.prepare<[], number>('SELECT seq FROM client_token_watermark').pluck().get()!,
    };
  } finally {
    db.close();
  }
};

test('a token not yet indexed is found after a restart, and replays as an indexed one does', async (t) => {
  const { store, path } = await freshStore(t);
  const first = operation({ identifier: 'a', clientToken: 'held' });
  assert.equal((await store.beginOperation(first, 'h1')).kind, 'started');
  assert.equal(indexed(path).count, 0, 'one token: not indexed yet');
  await store.close();

  const reopened = await openSqliteStore(path);
  t.after(() => reopened.close());
  const retry = operation({ identifier: 'a', clientToken: 'held' });
  assert.deepEqual(await reopened.beginOperation(retry, 'h1'), { kind: 'replayed', operation: first });
  assert.equal((await reopened.beginOperation(retry, 'h2')).kind, 'token-mismatch');
  assert.equal(
    (await reopened.getOperationByClientToken('held'))?.operation.requestToken,
    first.requestToken,
  );
});

test('once enough tokens wait, one batch indexes them all, and each is still found', async (t) => {
  const path = join(tempDir(t), 'typeplane.db');
  const store = await openSqliteStore(path, { clientTokenBatch: BATCH });
  t.after(() => store.close());
  const ops = Array.from({ length: BATCH + 10 }, (_, i) =>
    operation({ identifier: `i${i}`, clientToken: `tok-${i}`, status: 'SUCCESS' }),
  );
  // In one turn: one group commit, then the batch in the next.
  const begun = await Promise.all(ops.map((op) => store.beginOperation(op, 'h')));
  assert.ok(begun.every((b) => b.kind === 'started'));
  for (let i = 0; i < 50 && indexed(path).count === 0; i++) await new Promise((r) => setTimeout(r, 20));
  const after = indexed(path);
  assert.equal(after.count, ops.length, 'every token in the index');
  assert.ok(after.watermark > 0);
  for (const i of [0, 57, BATCH + 9])
    assert.equal(
      (await store.getOperationByClientToken(`tok-${i}`))?.operation.requestToken,
      ops[i]!.requestToken,
    );
  assert.equal((await store.beginOperation(operation({ clientToken: 'tok-7' }), 'h')).kind, 'replayed');
  await store.close();
  // Reopened, nothing is held in memory but what came after the batch.
  const reopened = await openSqliteStore(path, { clientTokenBatch: BATCH });
  t.after(() => reopened.close());
  assert.equal((await reopened.beginOperation(operation({ clientToken: 'tok-3' }), 'h')).kind, 'replayed');
});

test('a token another connection used is found before this one uses it again', async (t) => {
  const { store, path } = await freshStore(t);
  const other = await openSqliteStore(path);
  t.after(() => other.close());
  // This store has read the file once (its tail is up to date with nothing).
  assert.equal((await store.beginOperation(operation({ clientToken: 'mine' }), 'h')).kind, 'started');
  const theirs = operation({ identifier: 'x', clientToken: 'shared' });
  assert.equal((await other.beginOperation(theirs, 'h')).kind, 'started');
  assert.deepEqual(await store.beginOperation(operation({ identifier: 'x', clientToken: 'shared' }), 'h'), {
    kind: 'replayed',
    operation: theirs,
  });
});

test('expiry forgets a token whether its batch was indexed or not', async (t) => {
  const { store } = await freshStore(t);
  const old = operation({ identifier: 'a', clientToken: 'old', status: 'SUCCESS', eventTime: at(1000) });
  assert.equal((await store.beginOperation(old, 'h')).kind, 'started');
  assert.equal(await store.expireTokens(new Date(at(10_000))), 1);
  assert.equal(await store.getOperationByClientToken('old'), undefined);
  assert.equal((await store.beginOperation(operation({ clientToken: 'old' }), 'h')).kind, 'started');
});

test('a group run again after a piece failed keeps the tokens of the pieces that succeeded, and only those', async (t) => {
  const { store } = await freshStore(t);
  // Three begins in one group; the second's precondition throws: the group is rolled back and run
  // again with a savepoint each, so that only the second's writes go.
  const a = operation({ identifier: 'a', clientToken: 'first' });
  const b = operation({ identifier: 'b', clientToken: 'refused' });
  const c = operation({ identifier: 'c', clientToken: 'third' });
  const refuse = () => {
    throw new Error('changed meanwhile');
  };
  const [ra, rb, rc] = await Promise.allSettled([
    store.beginOperation(a, 'h'),
    store.beginOperation(b, 'h', undefined, refuse),
    store.beginOperation(c, 'h'),
  ]);
  assert.equal(ra.status === 'fulfilled' && ra.value.kind, 'started');
  assert.equal(rb.status, 'rejected');
  assert.equal(rc.status === 'fulfilled' && rc.value.kind, 'started');
  assert.equal(await store.getOperationByClientToken('refused'), undefined);
  assert.equal(
    (await store.beginOperation(operation({ identifier: 'b', clientToken: 'refused' }), 'h')).kind,
    'started',
  );
  assert.equal(
    (await store.beginOperation(operation({ identifier: 'a', clientToken: 'first' }), 'h')).kind,
    'replayed',
  );
  assert.equal(
    (await store.beginOperation(operation({ identifier: 'c', clientToken: 'third' }), 'h')).kind,
    'replayed',
  );
});

/** A create as the engine decides a record-backed one: AlreadyExists when the resource is there. */
const createOf =
  (identifier: string) =>
  (current: StoredResource | undefined): Completion =>
    current
      ? { status: 'FAILED', errorCode: 'AlreadyExists', statusMessage: `${identifier} already exists` }
      : {
          status: 'SUCCESS',
          resourceModel: { Name: identifier },
          change: { kind: 'put', resource: resource(identifier) },
        };

const completing = (identifier: string, clientToken: string) =>
  operation({ identifier, clientToken, status: 'SUCCESS', request: {} });

test('a completion finds its client token held in memory or indexed, replays it, and refuses another request with it', async (t) => {
  const path = join(tempDir(t), 'typeplane.db');
  const store = await openSqliteStore(path, { clientTokenBatch: BATCH });
  t.after(() => store.close());
  const firsts = Array.from({ length: BATCH + 10 }, (_, i) => completing(`c${i}`, `ctok-${i}`));
  // In one turn: one group commit; the batch that indexes them lands in the next.
  const done = await Promise.all(firsts.map((op, i) => store.completeOperation(op, 'h', createOf(`c${i}`))));
  assert.ok(done.every((d) => d.kind === 'started'));
  for (let i = 0; i < 50 && indexed(path).count === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(indexed(path).count, firsts.length, 'every token in the index');
  // One used after the batch: held in memory, not indexed.
  const held = completing('held', 'ctok-held');
  assert.equal((await store.completeOperation(held, 'h', createOf('held'))).kind, 'started');
  assert.equal(indexed(path).count, firsts.length);

  const again = async (identifier: string, token: string, hash: string) =>
    store.completeOperation(completing(identifier, token), hash, createOf(identifier));
  for (const [identifier, token, first] of [
    ['c7', 'ctok-7', firsts[7]!],
    ['held', 'ctok-held', held],
  ] as const) {
    const replayed = await again(identifier, token, 'h');
    assert.equal(replayed.kind, 'replayed', `${token} replays`);
    assert.equal(replayed.kind === 'replayed' && replayed.operation.requestToken, first.requestToken);
    assert.equal(
      (await again(identifier, token, 'other')).kind,
      'token-mismatch',
      `${token}: another request`,
    );
  }
  // Its token found first: a retry naming another resource replays what the token began.
  assert.equal((await again('elsewhere', 'ctok-3', 'h')).kind, 'replayed');
  // A new token on a resource that exists: decided, AlreadyExists, not a replay.
  const taken = await again('c1', 'ctok-new', 'h');
  assert.equal(taken.kind === 'started' && taken.operation.errorCode, 'AlreadyExists');

  // Reopened, nothing held in memory but what came after the batch: an indexed token still replays.
  await store.close();
  const reopened = await openSqliteStore(path, { clientTokenBatch: BATCH });
  t.after(() => reopened.close());
  const replayed = await reopened.completeOperation(completing('c5', 'ctok-5'), 'h', createOf('c5'));
  assert.equal(replayed.kind === 'replayed' && replayed.operation.requestToken, firsts[5]!.requestToken);
});
