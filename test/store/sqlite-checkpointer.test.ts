/**
 * The SQLite store's background checkpointer: a busy store's pages reach the database file itself
 * while it runs (not only its WAL), without the store's own automatic checkpoint, and closing the
 * store stops it with nothing lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/index.js';
import { tempDir } from './fixtures.js';

const ENTRIES = 200;

/** How many of the entries the database file holds by itself: a copy of it opened without its WAL. */
function entriesInDatabaseFile(dir: string): number {
  const copy = join(dir, `copy-${Date.now()}-${Math.random()}.db`);
  copyFileSync(join(dir, 'typeplane.db'), copy);
  const db = new Database(copy, { readonly: true });
  try {
    // Until the schema itself is checkpointed, the file has no table at all.
    const hasTable = db.prepare(`SELECT 1 FROM sqlite_schema WHERE name = 'kv'`).get() !== undefined;
    if (!hasTable) return 0;
    return db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM kv WHERE namespace = 'test'`).get()!.n;
  } finally {
    db.close();
  }
}

/** Each write in a turn of its own, so each is a commit of its own: a few hundred WAL frames in all. */
async function writeEntries(store: Awaited<ReturnType<typeof openSqliteStore>>): Promise<void> {
  for (let i = 0; i < ENTRIES; i++) {
    assert.equal(await store.kvInsert('test', `key-${i}`, { value: { i }, writtenBy: 'test' }), true);
  }
}

test('a busy store is checkpointed into its database file in the background', async (t) => {
  const dir = tempDir(t);
  const store = await openSqliteStore(join(dir, 'typeplane.db'), { checkpointerAfter: 0 });
  t.after(() => store.close());
  await writeEntries(store);
  // Far fewer frames than the connection's automatic checkpoint waits for: only the thread copies.
  const deadline = Date.now() + 10_000;
  let found = entriesInDatabaseFile(dir);
  while (found < ENTRIES && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = entriesInDatabaseFile(dir);
  }
  assert.equal(found, ENTRIES, 'every entry is in the database file itself');
});

test('without the checkpointer the same writes stay in the WAL (what the test above tells apart)', async (t) => {
  const dir = tempDir(t);
  const store = await openSqliteStore(join(dir, 'typeplane.db'), { checkpointerAfter: 1e9 });
  t.after(() => store.close());
  await writeEntries(store);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(entriesInDatabaseFile(dir), 0);
});

test('closing the store stops its checkpointer; reopened, it has every entry', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'typeplane.db');
  const store = await openSqliteStore(path, { checkpointerAfter: 0 });
  await writeEntries(store);
  const started = performance.now();
  await store.close();
  assert.ok(performance.now() - started < 5000, 'close does not wait long for the thread');
  const reopened = await openSqliteStore(path);
  t.after(() => reopened.close());
  const page = await reopened.kvList('test', { limit: 1000 });
  assert.equal(page.items.length, ENTRIES);
});
