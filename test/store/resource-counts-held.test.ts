/**
 * The SQLite store's resource counts, their changes held in memory between flushes
 * (src/store/sqlite/resource-counts.ts), on real files: this connection's counts are exact at once and
 * the file's within a second; a process killed while holding changes leaves counts that the next open
 * recounts; a second connection opening meanwhile recounts and nothing is counted twice; and what must
 * be exact (a type or a version deleted while resources remain) is, whoever holds the changes; and a
 * change whose transaction or savepoint was rolled back is not counted.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { TypeplaneError } from '../../src/errors.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { TS_NODE } from '../helpers/typescript.js';
import { createResource, operation, resource, storedType, tempDir } from './fixtures.js';

const TYPE = 'Acme::Test::Thing';
const holderScript = fileURLToPath(new URL('./workers/counts-holder.ts', import.meta.url));

/** What the file itself says, read by a connection of its own: the counts by version, and the holder. */
function inFile(path: string): { counts: Record<string, number>; holder: string | null; rows: number } {
  const db = new Database(path, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    for (const row of db
      .prepare<[string], { type_version: string; count: number }>(
        'SELECT type_version, count FROM resource_counts WHERE type_name = ? AND count <> 0',
      )
      .all(TYPE))
      counts[row.type_version] = row.count;
    return {
      counts,
      holder: db.prepare<[], string | null>('SELECT holder FROM resource_counts_holder').pluck().get()!,
      rows: db
        .prepare<[string], number>('SELECT COUNT(*) FROM resources WHERE type_name = ?')
        .pluck()
        .get(TYPE)!,
    };
  } finally {
    db.close();
  }
}

async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function deleteResource(store: Store, identifier: string): Promise<void> {
  const op = operation({ typeName: TYPE, identifier, operation: 'DELETE' });
  assert.equal((await store.beginOperation(op)).kind, 'started');
  await store.finishOperation({ ...op, status: 'SUCCESS' }, { kind: 'delete', typeName: TYPE, identifier });
}

/** A store on a fresh file holding resources a, b and c of version 1: its count changes held. */
async function storeOfThree(t: TestContext): Promise<{ path: string; store: Store }> {
  const path = join(tempDir(t), 'typeplane.db');
  const store = await openSqliteStore(path);
  t.after(() => store.close());
  await store.putType(storedType(TYPE));
  for (const id of ['a', 'b', 'c']) await createResource(store, id, TYPE, '1');
  return { path, store };
}

test('counts are exact at once where they change, and in the file within a second, with no holder left', async (t) => {
  const { path, store } = await storeOfThree(t);
  await deleteResource(store, 'b');
  assert.equal(await store.countResources(TYPE), 2);
  assert.deepEqual(await store.countResourcesByVersion(TYPE), { '1': 2 });
  assert.equal((await store.typeUsage(TYPE)).resources, 2);
  // Held: the file names this connection as the holder until it applies them.
  assert.notEqual(inFile(path).holder, null);
  await until('the counts reach the file', () => inFile(path).counts['1'] === 2);
  assert.equal(inFile(path).holder, null);
  assert.equal(await store.countResources(TYPE), 2, 'applied, not counted twice');
});

/** Begins a CREATE of `identifier` and finishes it with the additional identifier Arn `arn`. */
async function createNamed(store: Store, identifier: string, arn: string): Promise<void> {
  const op = operation({ typeName: TYPE, identifier });
  assert.equal((await store.beginOperation(op)).kind, 'started');
  await store.finishOperation(
    { ...op, status: 'SUCCESS' },
    {
      kind: 'put',
      resource: resource(identifier, { typeName: TYPE, typeVersion: '1' }),
      identifiers: [{ name: 'Arn', value: arn }],
    },
  );
}

test('a resource written and then rolled back with its transaction or savepoint is not counted', async (t) => {
  const { path, store } = await storeOfThree(t);
  await createNamed(store, 'd', 'arn:d');
  assert.equal(await store.countResources(TYPE), 4);
  // Refused after its row was written (the Arn is d's): alone in its group, the group is rolled back.
  await assert.rejects(createNamed(store, 'e', 'arn:d'), (e: unknown) => e instanceof TypeplaneError);
  assert.equal(await store.countResources(TYPE), 4, 'a group rolled back');
  // With another in the same group: the group is run again, the refused piece in a savepoint undone.
  const [refused, created] = await Promise.allSettled([
    createNamed(store, 'f', 'arn:d'),
    createNamed(store, 'g', 'arn:g'),
  ]);
  assert.equal(refused.status, 'rejected');
  assert.equal(created.status, 'fulfilled');
  assert.equal(await store.countResources(TYPE), 5, 'a savepoint rolled back, its neighbour kept');
  assert.deepEqual(await store.countResourcesByVersion(TYPE), { '1': 5 });
  await until('the counts reach the file', () => inFile(path).counts['1'] === 5);
  assert.equal(inFile(path).rows, 5, 'the file holds what was counted');
});

test('a process killed while holding count changes leaves counts the next open recounts', async (t) => {
  const path = join(tempDir(t), 'typeplane.db');
  // The schema first, so that the child and this process open the same file.
  await (await openSqliteStore(path)).close();
  const child = spawn(process.execPath, [...TS_NODE, holderScript, path, '7'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await until(`the child holds its counts (${err})`, () => out.includes('held'), 30_000);
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const left = inFile(path);
  assert.equal(left.rows, 7, 'every resource committed');
  assert.notEqual(left.holder, null, 'killed holding: the file still names it');
  assert.ok((left.counts['2'] ?? 0) < 7, `the file's counts lag (${JSON.stringify(left.counts)})`);

  const reopened = await openSqliteStore(path);
  t.after(() => reopened.close());
  assert.equal(await reopened.countResources(TYPE), 7);
  assert.deepEqual(await reopened.countResourcesByVersion(TYPE), { '2': 7 });
  assert.deepEqual(inFile(path).counts, { '2': 7 });
  assert.equal(inFile(path).holder, null);
});

test('a second connection opening while the first holds changes recounts, and nothing is counted twice', async (t) => {
  const { path, store: first } = await storeOfThree(t);
  assert.notEqual(inFile(path).holder, null, 'the first holds its changes');

  const second = await openSqliteStore(path);
  t.after(() => second.close());
  assert.equal(await second.countResources(TYPE), 3, 'recounted at open');
  // The first finds its id gone and drops what the recount took in; both go on changing counts.
  await createResource(first, 'd', TYPE, '1');
  await createResource(second, 'e', TYPE, '1');
  await deleteResource(first, 'a');
  await createResource(first, 'f', TYPE, '1');
  await until(
    'the counts reach the file',
    () => inFile(path).holder === null && inFile(path).counts['1'] === 5,
  );
  await first.close();
  await second.close();
  const third = await openSqliteStore(path);
  t.after(() => third.close());
  assert.equal(await third.countResources(TYPE), 5);
  assert.equal(inFile(path).rows, 5);
});

test('a type or a version with resources cannot go, even while another connection holds their counts', async (t) => {
  const path = join(tempDir(t), 'typeplane.db');
  const admin = await openSqliteStore(path);
  t.after(() => admin.close());
  await admin.putType(storedType(TYPE, '1'));
  await admin.putType(storedType(TYPE, '2'));
  assert.equal(await admin.setDefaultTypeVersion(TYPE, '1'), true);
  // Opened after the admin: it finds no holder, and holds the counts of what it makes.
  const writer = await openSqliteStore(path);
  t.after(() => writer.close());
  await createResource(writer, 'v2-resource', TYPE, '2');
  await createResource(writer, 'other', 'Acme::Test::Other', '1');
  assert.deepEqual(inFile(path).counts, {}, 'held by the writer, not yet in the file');

  await assert.rejects(admin.deleteTypeVersion(TYPE, '2'), (error: unknown) => {
    assert.ok(error instanceof TypeplaneError, String(error));
    assert.equal(error.code, 'ResourceConflict');
    return true;
  });
  await assert.rejects(admin.deleteType(TYPE), (error: unknown) => {
    assert.ok(error instanceof TypeplaneError, String(error));
    assert.equal(error.code, 'ResourceConflict');
    return true;
  });
  assert.ok(await admin.getType(TYPE, '2'), 'the version stays');

  // Once the resource is gone, the version goes.
  await deleteResource(writer, 'v2-resource');
  assert.equal(await admin.deleteTypeVersion(TYPE, '2'), true);
});
