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

test('requests are listed, filtered by operation and status, and paginated', async () => {
  for (const name of ['q1', 'q2', 'q3'])
    await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: name } });
  await svc.call('DELETE', `/v1/resources/${T}/q1?wait=5`);
  await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'q2' } }); // AlreadyExists

  const creates = await svc.call('GET', '/v1/requests?operation=CREATE');
  assert.equal(creates.status, 200);
  assert.equal(creates.body.progressEvents.length, 4);
  const failed = await svc.call('GET', '/v1/requests?operation=CREATE&status=FAILED');
  assert.deepEqual(
    failed.body.progressEvents.map((e: { errorCode: string }) => e.errorCode),
    ['AlreadyExists'],
  );
  const both = await svc.call('GET', '/v1/requests?operation=CREATE,DELETE&status=SUCCESS');
  assert.equal(both.body.progressEvents.length, 4);

  const seen = new Set<string>();
  let nextToken: string | null = null;
  do {
    const q: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
    const page = await svc.call('GET', `/v1/requests?maxResults=2${q}`);
    for (const e of page.body.progressEvents) seen.add(e.requestToken);
    nextToken = page.body.nextToken;
  } while (nextToken);
  assert.equal(seen.size, 5);
});

test('a request is fetched by token; unknown tokens and bad filters are refused', async () => {
  const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'q9' } });
  const token = res.body.progressEvent.requestToken;
  const got = await svc.call('GET', `/v1/requests/${token}`);
  assert.equal(got.body.progressEvent.requestToken, token);
  assert.equal((await svc.call('GET', '/v1/requests/does-not-exist')).status, 404);
  const bad = await svc.call('GET', '/v1/requests?status=DONE');
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /status must be one of/);
});
