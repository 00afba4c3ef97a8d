import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => svc.close());

const create = async (name: string) => {
  const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, {
    desiredState: { Name: name, Secret: 'hidden' },
  });
  assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(res.body));
};

test('an empty type lists an empty array, a null nextToken and the resourceVersion to watch from', async () => {
  const res = await svc.call('GET', `/v1/resources/${T}`);
  assert.equal(res.status, 200);
  assert.match(res.body.resourceVersion, /^[0-9]+$/);
  assert.deepEqual(res.body, {
    typeName: WIDGET_TYPE,
    resourceDescriptions: [],
    nextToken: null,
    resourceVersion: res.body.resourceVersion,
  });
});

test('pages follow nextToken to the end, each resource once, stable while resources are added', async () => {
  for (let i = 0; i < 25; i++) await create(`r${String(i).padStart(3, '0')}`);
  const seen: string[] = [];
  let nextToken: string | null = null;
  let pages = 0;
  do {
    const q: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
    const res = await svc.call('GET', `/v1/resources/${T}?maxResults=7${q}`);
    assert.equal(res.status, 200);
    assert.ok(res.body.resourceDescriptions.length <= 7);
    for (const r of res.body.resourceDescriptions) {
      seen.push(r.identifier);
      assert.equal(r.properties.Secret, undefined, 'write-only stripped in lists');
    }
    nextToken = res.body.nextToken;
    // Inserted behind the cursor: must not shift later pages.
    if (pages === 1) await create('a-early');
    pages++;
  } while (nextToken);
  const expected = Array.from({ length: 25 }, (_, i) => `r${String(i).padStart(3, '0')}`);
  assert.deepEqual(seen, expected);
  assert.equal(pages, 4);
});

test('bad paging parameters are InvalidRequest', async () => {
  for (const q of ['maxResults=0', 'maxResults=1001', 'maxResults=abc', 'nextToken=not-a-token']) {
    const res = await svc.call('GET', `/v1/resources/${T}?${q}`);
    assert.equal(res.status, 400, q);
    assert.equal(res.body.errorCode, 'InvalidRequest', q);
  }
});
