/**
 * A page of resources is bounded in size as well as in count, on both stores: it stops before the
 * resource that would take it past RESOURCE_PAGE_BYTES (sealed values counted), always holds at
 * least one, and its nextToken goes on from there, so paging still visits each resource once.
 */
import assert from 'node:assert/strict';
import { RESOURCE_PAGE_BYTES } from '../../src/store/rows.js';
import { eachStore, freshStoreOf, operation, resource } from './fixtures.js';

const TYPE = 'Acme::Test::Thing';

eachStore('pages of large resources stop at the page size; nextToken reaches every one', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const size = Math.floor(RESOURCE_PAGE_BYTES / 3.5);
  const sizes: Record<string, number> = {};
  for (let i = 0; i < 12; i++) {
    const identifier = `r${String(i).padStart(2, '0')}`;
    // Every third one is small; the others are a quarter of a page or more, half of it sealed.
    const big = i % 3 !== 0;
    const op = operation({ typeName: TYPE, identifier });
    assert.equal((await store.beginOperation(op)).kind, 'started');
    const stored = resource(identifier, {
      properties: { Name: identifier, Doc: big ? 'x'.repeat(size / 2) : 'small' },
      ...(big ? { sealed: 's'.repeat(size / 2) } : {}),
    });
    await store.finishOperation({ ...op, status: 'SUCCESS' }, { kind: 'put', resource: stored });
    sizes[identifier] = big ? size : 0;
  }
  const seen: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await store.listResources(TYPE, { limit: 1000, ...(nextToken ? { nextToken } : {}) });
    assert.ok(page.items.length >= 1);
    const bytes = page.items.reduce((sum, r) => sum + (sizes[r.identifier] ?? 0), 0);
    assert.ok(bytes <= RESOURCE_PAGE_BYTES, `a page holds ${bytes} bytes`);
    seen.push(...page.items.map((r) => r.identifier));
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  assert.deepEqual(seen, Object.keys(sizes));
  // Small resources fill a page by count as before.
  const first = await store.listResources(TYPE, { limit: 1 });
  assert.equal(first.items.length, 1);
  assert.ok(first.nextToken);
});
