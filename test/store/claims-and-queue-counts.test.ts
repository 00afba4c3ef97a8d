/**
 * What the stores tell the metrics about operations: a claim marks the operations whose lease had
 * run out under another owner (taken over), on both claim paths (plain, and within a type's
 * allowance); the count of active operations splits each type's into due and in progress; the
 * SQLite store's checkpointer counts its passes that copied frames.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { eachStore, T0, at, freshStoreOf, operation, tempDir } from './fixtures.js';

const later = (ms: number) => new Date(T0.getTime() + ms);

for (const allowance of [undefined, { perType: 10, running: new Map<string, number>() }])
  eachStore(
    `a claim says which operations it took over from another owner (${allowance ? 'within an allowance' : 'plain'})`,
    async (t, kind) => {
      const { store } = await freshStoreOf(t, kind);
      const [a, b, c] = [
        operation({ identifier: 'a' }),
        operation({ identifier: 'b' }),
        operation({ identifier: 'c' }),
      ];
      for (const op of [a, b, c]) await store.beginOperation(op);
      const claim = async (owner: string, ms: number) =>
        Object.fromEntries(
          (await store.claimOperations(owner, later(ms), 1_000, 10, allowance)).map((o) => [
            o.identifier,
            o.takenOver === true,
          ]),
        );
      // Never leased: nobody's to take over.
      assert.deepEqual(await claim('w1', 0), { a: false, b: false, c: false });
      // w1 lets go of b (as a worker does when a step ends or waits for a callback).
      assert.equal(await store.renewLease(b.requestToken, 'w1', later(0), 0), true);
      // a and c run out under w1; w1 takes c back first (its own), then w2 takes a over.
      assert.deepEqual(await claim('w2', 500), { b: false });
      await store.renewLease(b.requestToken, 'w2', later(500), 100_000);
      assert.equal(await store.renewLease(c.requestToken, 'w1', later(0), 0), true);
      assert.deepEqual(await claim('w2', 2_000), { a: true, c: false });
    },
  );

eachStore('active operations are counted by type, due and in progress', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const thing = 'Acme::Test::Thing';
  const other = 'Acme::Test::Other';
  const ops = [
    operation({ identifier: 'due-1' }),
    operation({ identifier: 'due-2', retryAfter: at(1_000) }),
    operation({ identifier: 'waiting', retryAfter: at(60_000) }),
    operation({ identifier: 'held' }),
    operation({ identifier: 'done', status: 'SUCCESS' }),
    operation({ typeName: other, identifier: 'x', status: 'CANCEL_IN_PROGRESS', operation: 'UPDATE' }),
  ];
  for (const op of ops) await store.beginOperation(op);
  assert.deepEqual(
    (await store.claimOperations('w1', later(0), 30_000, 1, undefined)).map((o) => o.identifier),
    ['due-1'],
  );
  // due-1 is held now; due-2 became due at 1 s; waiting waits a minute.
  assert.deepEqual(await store.countActiveOperations(later(2_000)), [
    { typeName: other, due: 1, inProgress: 0 },
    { typeName: thing, due: 2, inProgress: 2 },
  ]);
  // The lease runs out: due again.
  assert.deepEqual(await store.countActiveOperations(later(30_000)), [
    { typeName: other, due: 1, inProgress: 0 },
    { typeName: thing, due: 3, inProgress: 1 },
  ]);
});

test("the SQLite store reports its WAL's size and its checkpointer's passes that copied frames", async (t) => {
  const path = join(tempDir(t), 'typeplane.db');
  const store = await openSqliteStore(path, { checkpointerAfter: 0 });
  t.after(() => store.close());
  // Opening wrote the schema to the WAL; no checkpointer pass has run yet.
  assert.equal(store.stats().checkpoints, 0);
  const deadline = Date.now() + 10_000;
  let n = 0;
  while (store.stats().checkpoints === 0) {
    assert.ok(Date.now() < deadline, `no checkpoint copied frames: ${JSON.stringify(store.stats())}`);
    await store.beginOperation(operation({ identifier: `w-${n++}` }));
    await sleep(5);
  }
  assert.ok(store.stats().walBytes! > 0);
  const memory = await openSqliteStore(':memory:');
  t.after(() => memory.close());
  assert.deepEqual(memory.stats(), {});
});
