import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { eachStore, createResource, freshStoreOf, operation } from './fixtures.js';

const TYPE = 'Acme::Test::Thing';

function id(n: number): string {
  return `r${String(n).padStart(5, '0')}`;
}

eachStore(
  'paging over 1,000 resources visits each exactly once, even while rows are added and removed',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    // Ten at a time: PostgreSQL then commits them together rather than waiting on one flush each.
    for (let n = 0; n < 2000; n += 20)
      await Promise.all(Array.from({ length: 10 }, (_, k) => createResource(store, id(n + 2 * k))));
    await createResource(store, 'other-type-row', 'Acme::Test::Other');
    assert.equal(await store.countResources(TYPE), 1000);

    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    let added = 0;
    do {
      const page = await store.listResources(TYPE, {
        limit: 37,
        ...(nextToken === undefined ? {} : { nextToken }),
      });
      pages += 1;
      assert.ok(page.items.length <= 37);
      seen.push(...page.items.map((r) => r.identifier));
      nextToken = page.nextToken;
      const last = page.items.at(-1);
      if (nextToken !== undefined && last !== undefined) {
        // Insert behind the cursor (never shown) and ahead of it (shown once), and delete the cursor row itself.
        const n = Number(last.identifier.slice(1));
        await createResource(store, id(n - 1));
        await createResource(store, id(n + 1));
        added += 1;
        if (pages % 5 === 0) {
          const del = operation({ operation: 'DELETE', identifier: last.identifier });
          await store.beginOperation(del);
          await store.finishOperation(
            { ...del, status: 'SUCCESS' },
            { kind: 'delete', typeName: TYPE, identifier: last.identifier },
          );
        }
      }
    } while (nextToken !== undefined);

    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    assert.deepEqual(seen, [...seen].sort(), 'in identifier order');
    for (let n = 0; n < 2000; n += 2) assert.ok(seen.includes(id(n)), `saw ${id(n)}`);
    assert.equal(
      seen.length,
      1000 + added,
      'the rows added ahead of the cursor appear once; those behind never',
    );
    assert.equal(pages, Math.ceil(seen.length / 37) || 1);
    assert.ok(!seen.includes('other-type-row'));
  },
);

eachStore(
  'the last page has no nextToken, and an exactly full last page is followed by none',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    assert.deepEqual(await store.listResources(TYPE, { limit: 10 }), { items: [], bytes: 0 });
    for (let n = 0; n < 4; n += 1) await createResource(store, id(n));
    const first = await store.listResources(TYPE, { limit: 2 });
    assert.equal(first.items.length, 2);
    assert.ok(first.nextToken);
    const second = await store.listResources(TYPE, { limit: 2, nextToken: first.nextToken });
    assert.deepEqual(
      second.items.map((r) => r.identifier),
      [id(2), id(3)],
    );
    assert.equal(second.nextToken, undefined);
    assert.equal(Object.hasOwn(second, 'nextToken'), false);
  },
);

eachStore('a malformed nextToken or limit is an InvalidRequest', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  for (let n = 0; n < 3; n += 1) await createResource(store, id(n));
  await store.kvInsert('ns', 'k1', { value: {}, writtenBy: 'r' });
  await store.kvInsert('ns', 'k2', { value: {}, writtenBy: 'r' });
  await store.beginOperation(operation());
  await store.beginOperation(operation());
  const resourcesToken = (await store.listResources(TYPE, { limit: 1 })).nextToken;
  const kvToken = (await store.kvList('ns', { limit: 1 })).nextToken;
  const operationsToken = (await store.listOperations({}, { limit: 1 })).nextToken;
  assert.ok(resourcesToken && kvToken && operationsToken);

  const invalid = (error: unknown) => {
    assert.ok(error instanceof TypeplaneError);
    assert.equal(error.code, 'InvalidRequest');
    assert.match(error.message, /nextToken is not valid/);
    return true;
  };
  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  for (const token of [
    '',
    'not a token!',
    'abc',
    b64('{"resources":'),
    b64('[]'),
    b64('{"resources":5}'),
    kvToken,
    operationsToken,
    `${resourcesToken}x`,
  ]) {
    await assert.rejects(
      store.listResources(TYPE, { limit: 1, nextToken: token }),
      invalid,
      JSON.stringify(token),
    );
  }
  for (const token of [
    resourcesToken,
    b64('{"operations":-1}'),
    b64('{"operations":"5"}'),
    b64('{"operations":1.5}'),
  ]) {
    await assert.rejects(store.listOperations({}, { limit: 1, nextToken: token }), invalid, token);
  }
  await assert.rejects(store.kvList('ns', { limit: 1, nextToken: operationsToken }), invalid);

  for (const limit of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(
      store.listResources(TYPE, { limit }),
      (e: unknown) => e instanceof TypeplaneError && e.code === 'InvalidRequest',
    );
  }
});

eachStore(
  'paging over operations goes newest first and is not shifted by operations started meanwhile',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const started: string[] = [];
    for (let n = 0; n < 25; n += 1) {
      const op = operation({ identifier: `o${n}` });
      await store.beginOperation(op);
      started.push(op.requestToken);
    }
    const seen: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await store.listOperations(
        { typeName: TYPE },
        { limit: 10, ...(nextToken === undefined ? {} : { nextToken }) },
      );
      seen.push(...page.items.map((o) => o.requestToken));
      nextToken = page.nextToken;
      await store.beginOperation(operation());
    } while (nextToken !== undefined);
    assert.deepEqual(seen, [...started].reverse());
  },
);
