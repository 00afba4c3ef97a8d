/**
 * What a watch may see and cost, over real HTTP on each store: a token scoped to some types is
 * refused (403) a watch on another and sees only its types' operations; a revoked token's watch
 * ends with an ERROR event; watches per token are limited (429); a client that reads too slowly
 * is cut with an ERROR event saying so instead of the server buffering for it; a watch outlives the
 * request timeout; closing the server ends its watches with an ERROR event.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachStoreService, type StoreService } from '../helpers/each-store.js';
import { startTestService } from '../helpers/service.js';
import { openWatch } from '../helpers/watch-client.js';

const type = (typeName: string) => ({
  typeName,
  description: 'A named thing.',
  properties: { Name: { type: 'string' }, Blob: { type: 'string' } },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});
const MINE = 'Test::Scope::Mine';
const THEIRS = 'Test::Scope::Theirs';
const path = (typeName: string) => `/v1/resources/${encodeURIComponent(typeName)}`;

async function register(svc: StoreService): Promise<void> {
  for (const t of [MINE, THEIRS]) assert.equal((await svc.call('POST', '/v1/types', type(t))).status, 201);
}

async function token(svc: StoreService, types?: string[]): Promise<{ token: string; id: string }> {
  const made = await svc.call('POST', '/v1/tokens', { role: 'reader', ...(types ? { types } : {}) });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { token: made.body.token, id: made.body.id };
}

eachStoreService(
  "a scoped token cannot watch another scope's type, and its request watch shows only its types",
  async (svc) => {
    await register(svc);
    const reader = await token(svc, [MINE]);
    const refused = await openWatch(svc.url, `${path(THEIRS)}?watch=true`, reader.token);
    assert.equal(refused.status, 403);
    const from = (await svc.call('GET', '/v1/requests')).body.resourceVersion as string;
    const requests = await openWatch(
      svc.url,
      `/v1/requests?watch=true&resourceVersion=${from}`,
      reader.token,
    );
    assert.equal(requests.status, 200);
    await svc.call('POST', `${path(THEIRS)}?wait=10`, { desiredState: { Name: 'hidden' } });
    await svc.call('POST', `${path(MINE)}?wait=10`, { desiredState: { Name: 'shown' } });
    const seen = await requests.next((e) => e.type !== 'BOOKMARK');
    assert.equal(seen.type, 'ADDED');
    assert.equal(seen.object.typeName, MINE);
    assert.equal(seen.object.operationStatus, 'SUCCESS');
    assert.equal(seen.object.identifier, 'shown');
    assert.ok(
      requests.events.every((e) => e.object.typeName !== THEIRS),
      JSON.stringify(requests.events),
    );
    requests.close();
  },
);

eachStoreService(
  "a revoked token's watch ends with an ERROR event saying so",
  async (svc) => {
    await register(svc);
    const reader = await token(svc);
    const watch = await openWatch(svc.url, `${path(MINE)}?watch=true`, reader.token);
    assert.equal(watch.status, 200);
    assert.equal((await svc.call('DELETE', `/v1/tokens/${reader.id}`)).status, 204);
    const error = await watch.next((e) => e.type === 'ERROR', 5000);
    assert.equal(error.object.code, 401);
    assert.match(error.object.message, /revoked/);
    await watch.ended;
  },
  () => ({ watch: { revocationCheckMs: 100 } }),
);

eachStoreService(
  'watches past the per-token limit are refused with 429',
  async (svc) => {
    await register(svc);
    const reader = await token(svc);
    const open = [
      await openWatch(svc.url, `${path(MINE)}?watch=true`, reader.token),
      await openWatch(svc.url, '/v1/requests?watch=true', reader.token),
    ];
    assert.deepEqual(
      open.map((w) => w.status),
      [200, 200],
    );
    const third = await openWatch(svc.url, `${path(MINE)}?watch=true`, reader.token);
    assert.equal(third.status, 429);
    assert.match(third.body.message, /watches open/);
    // Another token has its own allowance.
    const other = await openWatch(svc.url, `${path(MINE)}?watch=true`, svc.token);
    assert.equal(other.status, 200);
    for (const w of [...open, other]) w.close();
  },
  () => ({ watch: { perToken: 2 } }),
);

eachStoreService(
  'a client that stops reading is cut with an ERROR event instead of being buffered for',
  async (svc) => {
    await register(svc);
    const from = (await svc.call('GET', path(MINE))).body.resourceVersion as string;
    const watch = await openWatch(svc.url, `${path(MINE)}?watch=true&resourceVersion=${from}`, svc.token);
    watch.response.pause();
    // About 12 MB of events: more than loopback's socket buffers hold, then more than the server's limit.
    const blob = 'x'.repeat(400_000);
    for (let i = 0; i < 30; i++)
      await svc.call('POST', `${path(MINE)}?wait=10`, { desiredState: { Name: `big${i}`, Blob: blob } });
    watch.response.resume();
    const error = await watch.next((e) => e.type === 'ERROR', 10_000);
    assert.equal(error.object.errorCode, 'Throttling');
    assert.match(error.object.message, /read too slowly/);
    assert.ok(watch.events.filter((e) => e.type === 'ADDED').length < 30, 'cut before every event was sent');
    await watch.ended;
  },
  () => ({ watch: { maxBufferedBytes: 256 * 1024 } }),
);

eachStoreService(
  'a watch outlives the request timeout: the deadline is for the request to arrive, not the answer',
  async (svc) => {
    await register(svc);
    const watch = await openWatch(svc.url, `${path(MINE)}?watch=true`, svc.token);
    assert.equal(watch.status, 200);
    // Past the 1 s deadline, the stream is still open and keeps getting BOOKMARKs.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await svc.call('POST', `${path(MINE)}?wait=10`, { desiredState: { Name: 'late' } });
    const added = await watch.next((e) => e.type === 'ADDED', 3_000);
    assert.equal(added.object.identifier, 'late');
    assert.ok(watch.events.some((e) => e.type === 'BOOKMARK'));
    watch.close();
  },
  () => ({ connectionLimits: { requestMs: 1_000, headersMs: 1_000 }, watch: { bookmarkMs: 300 } }),
);

test('closing the server ends its watches with an ERROR event, and does not wait for them', async () => {
  const svc = await startTestService();
  const watch = await openWatch(svc.url, '/v1/requests?watch=true', svc.token);
  assert.equal(watch.status, 200);
  const started = performance.now();
  await svc.close();
  assert.ok(performance.now() - started < 5_000, 'closed without waiting for the watch');
  const error = await watch.next((e) => e.type === 'ERROR');
  assert.equal(error.object.code, 503);
  assert.match(error.object.message, /shutting down/);
  await watch.ended;
});
