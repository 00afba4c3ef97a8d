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

eachStore('kvCommit writes all of its writes or, when one condition fails, none of them', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const e = (v: number, writtenBy: string) => ({ value: { v }, writtenBy });
  await store.kvInsert('ns', 'swap', e(0, 's0'));
  await store.kvInsert('ns', 'drop', e(0, 'd0'));
  await store.kvInsert('ns', 'taken', e(0, 't0'));
  const before = async () => ({
    swap: await store.kvGet('ns', 'swap'),
    drop: await store.kvGet('ns', 'drop'),
    fresh: await store.kvGet('ns', 'fresh'),
    taken: await store.kvGet('ns', 'taken'),
  });
  const start = await before();
  for (const failing of [
    { namespace: 'ns', key: 'taken', entry: e(1, 't1') }, // an insert of a key that exists
    { namespace: 'ns', key: 'taken', entry: e(1, 't1'), base: 'other' }, // a swap from another stamp
    { namespace: 'ns', key: 'taken', base: 'other' }, // a deletion of an entry another wrote
    { namespace: 'ns', key: 'absent', entry: e(1, 'a1'), base: 'a0' }, // a swap of a key that is gone
  ]) {
    const conflict = await store.kvCommit([
      { namespace: 'ns', key: 'fresh', entry: e(1, 'f1') },
      { namespace: 'ns', key: 'swap', entry: e(1, 's1'), base: 's0' },
      { namespace: 'ns', key: 'drop', base: 'd0' },
      failing,
    ]);
    assert.deepEqual(conflict, { namespace: 'ns', key: failing.key }, JSON.stringify(failing));
    assert.deepEqual(await before(), start, `nothing written: ${JSON.stringify(failing)}`);
  }
  assert.equal(
    await store.kvCommit([
      { namespace: 'ns', key: 'fresh', entry: e(1, 'f1') },
      { namespace: 'ns', key: 'swap', entry: e(1, 's1'), base: 's0' },
      { namespace: 'ns', key: 'drop', base: 'd0' },
      { namespace: 'ns', key: 'nothing' }, // neither held nor written: no write
    ]),
    undefined,
  );
  assert.deepEqual(await before(), {
    swap: e(1, 's1'),
    drop: undefined,
    fresh: e(1, 'f1'),
    taken: e(0, 't0'),
  });
  assert.equal(await store.kvGet('ns', 'nothing'), undefined);
  assert.equal(await store.kvCommit([]), undefined);
});

eachStore(
  'an expectation in a kvCommit writes nothing and holds only while the entry is as expected',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const e = (v: number, writtenBy: string) => ({ value: { v }, writtenBy });
    await store.kvInsert('ns', 'head', e(0, 'h0'));
    const commit = (expect: { key: string; expect: string | null }) =>
      store.kvCommit([
        { namespace: 'ns', key: 'made', entry: e(1, 'm1') },
        { namespace: 'ns', ...expect },
      ]);
    for (const failing of [
      { key: 'head', expect: 'h-other' }, // stamped by another writer
      { key: 'head', expect: null }, // there, expected absent
      { key: 'absent', expect: 'a0' }, // absent, expected there
    ]) {
      assert.deepEqual(await commit(failing), { namespace: 'ns', key: failing.key }, JSON.stringify(failing));
      assert.equal(await store.kvGet('ns', 'made'), undefined, `nothing written: ${JSON.stringify(failing)}`);
    }
    assert.equal(await commit({ key: 'head', expect: 'h0' }), undefined);
    assert.deepEqual(await store.kvGet('ns', 'made'), e(1, 'm1'));
    await store.kvDelete('ns', 'made');
    assert.equal(await commit({ key: 'absent', expect: null }), undefined);
    assert.deepEqual(await store.kvGet('ns', 'made'), e(1, 'm1'));
    // Nothing written by the expectations themselves.
    assert.deepEqual(await store.kvGet('ns', 'head'), e(0, 'h0'));
    assert.equal(await store.kvGet('ns', 'absent'), undefined);
  },
);

eachStore(
  'several expectations in one kvCommit refuse it as each would alone, in order; one on a key it writes sees the write',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const e = (v: number, writtenBy: string) => ({ value: { v }, writtenBy });
    await store.kvInsert('ns', 'a', e(0, 'a0'));
    await store.kvInsert('ns', 'b', e(0, 'b0'));
    const made = { namespace: 'ns', key: 'made', entry: e(1, 'm1') };
    const expect = (key: string, stamp: string | null) => ({ namespace: 'ns', key, expect: stamp });
    // Each of three expectations failing in turn, the others holding: that one is named.
    for (const [failing, commit] of [
      ['a', [made, expect('a', 'other'), expect('b', 'b0'), expect('c', null)]],
      ['b', [made, expect('a', 'a0'), expect('b', null), expect('c', null)]],
      ['c', [made, expect('a', 'a0'), expect('b', 'b0'), expect('c', 'c0')]],
    ] as const) {
      assert.deepEqual(
        await store.kvCommit(commit),
        { namespace: 'ns', key: failing },
        JSON.stringify(commit),
      );
      assert.equal(await store.kvGet('ns', 'made'), undefined);
    }
    // Two failing: one of them is named (SQLite: the first listed; PostgreSQL: the first by key).
    const both = await store.kvCommit([expect('b', 'other'), made, expect('a', 'other')]);
    assert.ok(both && ['a', 'b'].includes(both.key), JSON.stringify(both));
    assert.equal(await store.kvGet('ns', 'made'), undefined);
    assert.equal(
      await store.kvCommit([made, expect('a', 'a0'), expect('b', 'b0'), expect('c', null)]),
      undefined,
    );
    assert.deepEqual(await store.kvGet('ns', 'made'), e(1, 'm1'));
    // An expectation after a write of its key sees that write; one before it, the entry as it was.
    const swap = { namespace: 'ns', key: 'a', entry: e(2, 'a2'), base: 'a0' };
    assert.deepEqual(await store.kvCommit([swap, expect('a', 'a0'), expect('b', 'b0')]), {
      namespace: 'ns',
      key: 'a',
    });
    assert.equal(
      await store.kvCommit([expect('a', 'a0'), swap, expect('a', 'a2'), expect('b', 'b0')]),
      undefined,
    );
    assert.deepEqual(await store.kvGet('ns', 'a'), e(2, 'a2'));
  },
);

eachStore(
  'kvCommits racing for one key at once: one writes everything, each other nothing',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    await store.kvInsert('race', 'stamped', { value: { v: 0 }, writtenBy: 's0' });
    const racers = Array.from({ length: 8 }, (_, i) => i);
    const outcomes = await Promise.all(
      racers.map((i) =>
        store.kvCommit([
          { namespace: 'race', key: `own-${i}`, entry: { value: { i }, writtenBy: `r${i}` } },
          { namespace: 'race', key: 'stamped', entry: { value: { v: i }, writtenBy: `r${i}` }, base: 's0' },
          { namespace: 'race', key: 'shared', entry: { value: { i }, writtenBy: `r${i}` } },
        ]),
      ),
    );
    const winners = racers.filter((i) => outcomes[i] === undefined);
    assert.equal(winners.length, 1, JSON.stringify(outcomes));
    const winner = winners[0]!;
    for (const i of racers) {
      if (i === winner) continue;
      assert.ok(['stamped', 'shared'].includes(outcomes[i]!.key), JSON.stringify(outcomes[i]));
      assert.equal(await store.kvGet('race', `own-${i}`), undefined, `racer ${i} wrote nothing`);
    }
    assert.deepEqual((await store.kvGet('race', 'stamped'))?.value, { v: winner });
    assert.deepEqual((await store.kvGet('race', 'shared'))?.value, { i: winner });
    assert.deepEqual((await store.kvGet('race', `own-${winner}`))?.value, { i: winner });
  },
);

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
