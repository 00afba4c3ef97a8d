/**
 * A filtered list reads no more stored rows in one request than an unfiltered page holds (4 MB of
 * stored properties): a filter that matches nothing answers a page with fewer or no items and a
 * nextToken, and following the tokens still finds every match.
 */
import assert from 'node:assert/strict';
import { RESOURCE_PAGE_BYTES } from '../../src/store/rows.js';
import { eachStoreService } from '../helpers/each-store.js';
import { settle } from '../helpers/service.js';

const TYPE = 'Test::Filter::Archive';
const T = encodeURIComponent(TYPE);
const COUNT = 40;
/** Each resource stores ~0.7 MB: 28 MB in all, seven unfiltered pages' worth. */
const DOC_CHARS = 700_000;

eachStoreService('a filtered list reads at most a page of stored rows per request', async (svc) => {
  const schema = {
    typeName: TYPE,
    description: 'Archives with large documents, for filtered lists.',
    properties: { Name: { type: 'string' }, Kind: { type: 'string' }, Doc: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
  };
  assert.equal((await svc.call('POST', '/v1/types', schema)).status, 201);
  const doc = 'x'.repeat(DOC_CHARS);
  const name = (i: number) => `r${String(i).padStart(2, '0')}`;
  for (let i = 0; i < COUNT; i += 8)
    await Promise.all(
      Array.from({ length: Math.min(8, COUNT - i) }, async (_, j) => {
        // The last one alone is rare: a walk must reach the end of the data to find it.
        const desiredState = { Name: name(i + j), Kind: i + j === COUNT - 1 ? 'rare' : 'plain', Doc: doc };
        const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState });
        assert.equal(
          (await settle(svc, res.body.progressEvent.requestToken, 30_000)).operationStatus,
          'SUCCESS',
        );
      }),
    );

  // What each request reads from the store, in bytes of stored rows.
  let read = 0;
  const listResources = svc.store.listResources.bind(svc.store);
  svc.store.listResources = async (typeName, options) => {
    const page = await listResources(typeName, options);
    for (const r of page.items)
      read += Buffer.byteLength(JSON.stringify(r.properties)) + (r.sealed?.length ?? 0);
    return page;
  };
  const walk = async (query: string) => {
    const found: string[] = [];
    let pages = 0;
    let nextToken: string | null = null;
    do {
      read = 0;
      const token: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
      const res = await svc.call('GET', `/v1/resources/${T}?${query}${token}`);
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      // The bound, passed by at most the one row that crosses it.
      assert.ok(read <= RESOURCE_PAGE_BYTES + DOC_CHARS + 100, `one filtered page read ${read} bytes`);
      found.push(...res.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier));
      nextToken = res.body.nextToken;
      pages++;
    } while (nextToken);
    return { found, pages };
  };

  const first = await svc.call('GET', `/v1/resources/${T}?Kind=none`);
  assert.deepEqual(first.body.resourceDescriptions, []);
  assert.ok(first.body.nextToken, 'a page that matched nothing within its bound says where to go on');
  const none = await walk('Kind=none');
  assert.deepEqual(none.found, []);
  assert.ok(none.pages >= Math.floor((COUNT * DOC_CHARS) / (RESOURCE_PAGE_BYTES + DOC_CHARS)));
  assert.deepEqual((await walk('Kind=rare')).found, [name(COUNT - 1)]);
  assert.equal((await walk('Kind=plain&maxResults=100')).found.length, COUNT - 1);
});
