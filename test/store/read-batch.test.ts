/**
 * The SQLite store's point reads run together at the end of the event loop's turn they were asked in
 * (src/store/sqlite/read-batch.ts): in the order asked, each answered on its own, each seeing what was
 * committed before it ran, and none left to fail when the store closes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { ReadBatch } from '../../src/store/sqlite/read-batch.js';
import { createResource, meteredStore, storedType, tempDir } from './fixtures.js';

test('reads asked in one turn run after it, together and in order, each answered on its own', async () => {
  const batch = new ReadBatch();
  const ran: string[] = [];
  const a = batch.run(() => (ran.push('a'), 1));
  const b = batch.run((): number => {
    ran.push('b');
    throw new Error('this read failed');
  });
  const c = batch.run(() => (ran.push('c'), 3));
  assert.deepEqual(ran, [], 'nothing runs while the turn goes on');
  await Promise.resolve();
  assert.deepEqual(ran, [], 'nor once the microtasks ran');
  // A task queued after the reads were asked for runs after all of them: they ran in one pass.
  const after = new Promise<string[]>((resolve) => setImmediate(() => resolve([...ran])));
  assert.equal(await a, 1);
  await assert.rejects(b, /this read failed/);
  assert.equal(await c, 3, 'a failed read fails only its own answer');
  assert.deepEqual(await after, ['a', 'b', 'c']);
});

test('a read asked while a batch runs, or after it, is run in a batch of its own', async () => {
  const batch = new ReadBatch();
  let nested: Promise<string> | undefined;
  const outer = batch.run(() => {
    nested = batch.run(() => 'inner');
    return 'outer';
  });
  assert.equal(await outer, 'outer');
  assert.equal(await nested, 'inner');
  const later = await Promise.all([1, 2, 3].map((n) => batch.run(() => n * 10)));
  assert.deepEqual(later, [10, 20, 30]);
});

test("the store's reads see what was committed before they ran, and one asked just before close is answered", async (t) => {
  const store = await openSqliteStore(join(tempDir(t), 'typeplane.db'));
  await store.putType(storedType('Acme::Test::Thing'));
  const before = store.getResource('Acme::Test::Thing', 'made');
  const writing = createResource(store, 'made');
  assert.equal(await before, undefined, 'asked before the write was: not there');
  await writing;
  const [json, resource, kv] = await Promise.all([
    store.getResourceJson('Acme::Test::Thing', 'made'),
    store.getResource('Acme::Test::Thing', 'made'),
    store.kvGet('ns', 'absent'),
  ]);
  assert.equal(typeof json, 'string');
  assert.equal(resource?.identifier, 'made');
  assert.equal(kv, undefined);

  await store.kvInsert('ns', 'k', { value: { v: 1 }, writtenBy: 'w' });
  const asked = store.kvGet('ns', 'k');
  await store.close();
  assert.deepEqual((await asked)?.value, { v: 1 }, 'answered before the file closed');
  await assert.rejects(store.kvGet('ns', 'k'), /not open/, 'a read after close fails plainly');
});

test("the store's point reads of one turn run after it, one after another in one read transaction, with nothing between them", async (t) => {
  const { store, meter } = await meteredStore(t);
  const reads = [
    store.getResourceJson('Acme::Test::Thing', 'made'),
    store.getResource('Acme::Test::Thing', 'made'),
    store.kvGet('ns', 'k'),
    store.kvStamp('ns', 'k'),
    store.findByIdentifier('Acme::Test::Thing', 'Name', 'x'),
    store.getOperation('no-such-request'),
  ];
  assert.equal(meter.take().statements, 0, 'no read ran while the turn went on');
  await Promise.all(reads);
  const ran = meter.take();
  assert.equal(ran.statements, reads.length, ran.log.join(' | '));
  // One snapshot for all: the WAL's locks taken and let go once, not once a read.
  assert.equal(ran.transactions, 1, ran.log.join(' | '));
  assert.ok(
    ran.log[0] === 'BEGIN DEFERRED' &&
      ran.log.at(-1) === 'COMMIT' &&
      ran.log.slice(1, -1).every((sql) => sql.startsWith('SELECT')),
    `the reads ran back to back in one transaction: ${ran.log.join(' | ')}`,
  );
  // A read alone runs as it is: a transaction of its own would only add two statements.
  await store.getResourceJson('Acme::Test::Thing', 'made');
  assert.deepEqual(meter.take().log, ['SELECT … FROM resources WHERE type_name = ? AND identifier = ?']);
});
