import assert from 'node:assert/strict';
import { eachStore, freshStoreOf } from './fixtures.js';

eachStore('kvInsert inserts only when absent, kvReplace replaces only when present', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  assert.equal(await store.kvGet('ns', 'a'), undefined);
  assert.equal(await store.kvReplace('ns', 'a', { value: { v: 0 }, writtenBy: 'r0' }), false);
  assert.equal(await store.kvGet('ns', 'a'), undefined);

  assert.equal(
    await store.kvInsert('ns', 'a', { value: { v: 1, nested: [{ x: null }] }, writtenBy: 'r1' }),
    true,
  );
  assert.deepEqual(await store.kvGet('ns', 'a'), { value: { v: 1, nested: [{ x: null }] }, writtenBy: 'r1' });
  assert.equal(await store.kvInsert('ns', 'a', { value: { v: 2 }, writtenBy: 'r2' }), false);
  assert.deepEqual(await store.kvGet('ns', 'a'), { value: { v: 1, nested: [{ x: null }] }, writtenBy: 'r1' });

  assert.equal(await store.kvReplace('ns', 'a', { value: { v: 3 }, writtenBy: 'r3' }), true);
  assert.deepEqual(await store.kvGet('ns', 'a'), { value: { v: 3 }, writtenBy: 'r3' });

  assert.equal(await store.kvDelete('ns', 'a'), true);
  assert.equal(await store.kvDelete('ns', 'a'), false);
  assert.equal(await store.kvGet('ns', 'a'), undefined);
});

eachStore('namespaces are separate', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await store.kvInsert('one', 'k', { value: { n: 1 }, writtenBy: 'r' });
  assert.equal(await store.kvInsert('two', 'k', { value: { n: 2 }, writtenBy: 'r' }), true);
  assert.deepEqual((await store.kvGet('one', 'k'))?.value, { n: 1 });
  assert.deepEqual((await store.kvGet('two', 'k'))?.value, { n: 2 });
  await store.kvDelete('one', 'k');
  assert.ok(await store.kvGet('two', 'k'));
  assert.deepEqual((await store.kvList('one', { limit: 10 })).items, []);
});

eachStore('kvList pages in key order', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const keys = Array.from({ length: 23 }, (_, n) => `key-${String(n).padStart(2, '0')}`);
  for (const key of [...keys].reverse()) await store.kvInsert('ns', key, { value: { key }, writtenBy: 'r' });
  await store.kvInsert('other', 'key-00a', { value: {}, writtenBy: 'r' });

  const seen: string[] = [];
  let nextToken: string | undefined;
  let pages = 0;
  do {
    const page = await store.kvList('ns', { limit: 5, ...(nextToken === undefined ? {} : { nextToken }) });
    pages += 1;
    for (const { key, entry } of page.items) {
      seen.push(key);
      assert.deepEqual(entry, { value: { key }, writtenBy: 'r' });
    }
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  assert.deepEqual(seen, keys);
  assert.equal(pages, 5);
});

eachStore('kvSwap replaces only while the entry was last written by the expected writer', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  assert.equal(await store.kvSwap('ns', 'lease', { value: { n: 0 }, writtenBy: 'a' }, 'nobody'), false);
  await store.kvInsert('ns', 'lease', { value: { n: 1 }, writtenBy: 'a' });
  assert.equal(await store.kvSwap('ns', 'lease', { value: { n: 2 }, writtenBy: 'b' }, 'a'), true);
  // The second contender read 'a' too: it loses, and the winner's write stays.
  assert.equal(await store.kvSwap('ns', 'lease', { value: { n: 3 }, writtenBy: 'c' }, 'a'), false);
  assert.deepEqual(await store.kvGet('ns', 'lease'), { value: { n: 2 }, writtenBy: 'b' });
});
