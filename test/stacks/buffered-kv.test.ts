/**
 * The stacks' buffered key-value view (src/stacks/buffered-kv.ts) over a real SQLite store: writes are
 * seen by its own reads and by no one else's until the flush, which writes them in one commit; after
 * it, writes go through; a key another writer changed meanwhile fails the flush, which then writes
 * nothing, instead of being overwritten.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BufferedKv } from '../../src/stacks/buffered-kv.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/index.js';

let dir: string;
let store: SqliteStore;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'typeplane-buffered-kv-'));
  store = await openSqliteStore(join(dir, 'store.db'));
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const e = (value: Record<string, unknown>, writtenBy: string) => ({ value, writtenBy });

test('writes are read back from the buffer and reach the store only when flushed, in one commit', async () => {
  await store.kvInsert('ns1', 'kept', e({ v: 0 }, 's0'));
  const kv = new BufferedKv(store);
  assert.equal(await kv.kvInsert('ns1', 'a', e({ v: 1 }, 's1')), true);
  assert.equal(await kv.kvInsert('ns1', 'a', e({ v: 9 }, 's9')), false, 'a second insert of a held key');
  assert.equal(await kv.kvReplace('ns1', 'kept', e({ v: 2 }, 's2')), true);
  assert.equal(await kv.kvSwap('ns1', 'kept', e({ v: 3 }, 's3'), 'wrong'), false);
  assert.equal(await kv.kvSwap('ns1', 'kept', e({ v: 3 }, 's3'), 's2'), true);
  assert.equal(await kv.kvInsert('ns1', 'gone', e({ v: 4 }, 's4')), true);
  assert.equal(await kv.kvDelete('ns1', 'gone'), true);
  assert.deepEqual((await kv.kvGet('ns1', 'a'))?.value, { v: 1 });
  assert.equal(await kv.kvStamp('ns1', 'kept'), 's3');
  assert.equal(await kv.kvGet('ns1', 'gone'), undefined);
  // The store has none of it yet.
  assert.equal(await store.kvGet('ns1', 'a'), undefined);
  assert.equal((await store.kvGet('ns1', 'kept'))?.writtenBy, 's0');

  // The store's group commits, counted (SQLite's `flush` commits one turn's writes together).
  const sqlite = store as unknown as { flush: () => void };
  const commit = sqlite.flush.bind(sqlite);
  let commits = 0;
  sqlite.flush = () => {
    commits++;
    commit();
  };
  await kv.flush();
  sqlite.flush = commit;
  assert.equal(kv.writesThrough, true);
  assert.equal(commits, 1, 'one commit for every write held');
  assert.deepEqual((await store.kvGet('ns1', 'a'))?.value, { v: 1 });
  assert.deepEqual(await store.kvGet('ns1', 'kept'), e({ v: 3 }, 's3'));
  assert.equal(await store.kvGet('ns1', 'gone'), undefined, 'made and deleted in the buffer: never written');

  // Through from now on.
  assert.equal(await kv.kvInsert('ns1', 'b', e({ v: 5 }, 's5')), true);
  assert.deepEqual((await store.kvGet('ns1', 'b'))?.value, { v: 5 });
});

test('a listing merges held keys with the store, in key order, page by page', async () => {
  for (const k of ['k1', 'k3', 'k5', 'k7']) await store.kvInsert('ns2', k, e({ k }, k));
  const kv = new BufferedKv(store);
  await kv.kvInsert('ns2', 'k2', e({ k: 'k2' }, 'k2'));
  await kv.kvInsert('ns2', 'k6', e({ k: 'k6' }, 'k6'));
  await kv.kvDelete('ns2', 'k3');
  const keys: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await kv.kvList('ns2', { limit: 2, ...(nextToken ? { nextToken } : {}) });
    assert.ok(page.items.length <= 2);
    keys.push(...page.items.map((i) => i.key));
    nextToken = page.nextToken;
  } while (nextToken);
  assert.deepEqual(keys, ['k1', 'k2', 'k5', 'k6', 'k7']);
});

test('a key another writer changed meanwhile fails the flush, and is left as that writer wrote it', async () => {
  await store.kvInsert('ns3', 'x', e({ v: 0 }, 'x0'));
  const kv = new BufferedKv(store);
  assert.equal(await kv.kvReplace('ns3', 'x', e({ v: 1 }, 'x1')), true);
  await store.kvReplace('ns3', 'x', e({ v: 2 }, 'x2'));
  await assert.rejects(kv.flush(), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ResourceConflict');
    assert.match(err.message, /ns3 x was written by another meanwhile/);
    return true;
  });
  assert.deepEqual(await store.kvGet('ns3', 'x'), e({ v: 2 }, 'x2'));
});

test('a flush that fails on one key writes none of the others: no insert, no change, no deletion', async () => {
  await store.kvInsert('ns4', 'changed', e({ v: 0 }, 'c0'));
  await store.kvInsert('ns4', 'kept', e({ v: 0 }, 'k0'));
  await store.kvInsert('ns4', 'dropped', e({ v: 0 }, 'd0'));
  const kv = new BufferedKv(store);
  assert.equal(await kv.kvInsert('ns4', 'new', e({ v: 1 }, 'n1')), true);
  assert.equal(await kv.kvReplace('ns4', 'kept', e({ v: 1 }, 'k1')), true);
  assert.equal(await kv.kvDelete('ns4', 'dropped'), true);
  assert.equal(await kv.kvReplace('ns4', 'changed', e({ v: 1 }, 'c1')), true);
  // Another writer changes one key meanwhile: the buffer's other writes go with it.
  await store.kvReplace('ns4', 'changed', e({ v: 2 }, 'c2'));
  await assert.rejects(kv.flush(), /ns4 changed was written by another meanwhile/);
  assert.equal(await store.kvGet('ns4', 'new'), undefined);
  assert.deepEqual(await store.kvGet('ns4', 'kept'), e({ v: 0 }, 'k0'));
  assert.deepEqual(await store.kvGet('ns4', 'dropped'), e({ v: 0 }, 'd0'));
  assert.deepEqual(await store.kvGet('ns4', 'changed'), e({ v: 2 }, 'c2'));
});
