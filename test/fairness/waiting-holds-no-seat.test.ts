/**
 * A request that only waits holds no seat of fairness (docs/fairness.md): with one seat for every
 * writer, a create waiting on `?wait` for a slow provider and an open watch leave the seat to
 * another token's requests, which are answered at once; a request that does hold the seat (a read
 * its provider answers late) makes the next wait, refused 429 with Retry-After past the longest wait.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { openWatch } from '../helpers/watch-client.js';

test('waiting on ?wait and watching hold no seat; holding one makes the next request wait, then 429', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let readGate!: () => void;
  const reads = new Promise<void>((resolve) => (readGate = resolve));
  const svc = await startTestService({
    providers: new Map([
      [
        WIDGET_TYPE,
        memoryProvider({
          create: async (req, store) => {
            await gate;
            store.set(String(req.desiredState.Name), req.desiredState);
            return { status: 'SUCCESS', resourceModel: req.desiredState };
          },
          read: async (req) => {
            await reads;
            return { status: 'SUCCESS', resourceModel: req.desiredState };
          },
        }),
      ],
    ]),
    fairness: { seats: 1, maxWaitMs: 1_000 },
  });
  after(() => {
    release();
    readGate();
    return svc.close();
  });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const writer = async () => (await svc.call('POST', '/v1/tokens', { role: 'writer' })).body.token as string;
  const [slow, other] = [await writer(), await writer()];
  const path = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;

  const waiting = api(svc.url, slow).call('POST', `${path}?wait=30`, { desiredState: { Name: 'held' } });
  const watch = await openWatch(svc.url, `${path}?watch=true`, slow);
  assert.equal(watch.status, 200);
  await new Promise((r) => setTimeout(r, 200));
  // Answered, not refused: had the seat been held, this request would have waited for it and been
  // refused 429 after the longest wait (1 s).
  assert.equal((await api(svc.url, other).call('GET', path)).status, 200);

  release();
  assert.equal((await waiting).body.progressEvent.operationStatus, 'SUCCESS');
  watch.close();

  // A read whose provider answers late holds the seat: another token's request waits its turn and,
  // past the longest wait (1 s here), is refused 429 Throttling with Retry-After.
  const reading = api(svc.url, slow).call('GET', `${path}/held`);
  await new Promise((r) => setTimeout(r, 200));
  const refused = await api(svc.url, other).call('GET', path);
  assert.equal(refused.status, 429);
  assert.equal(refused.body.errorCode, 'Throttling');
  assert.deepEqual(refused.body.details, [{ reason: 'queue-timeout' }]);
  assert.equal(refused.headers.get('retry-after'), '1');
  readGate();
  assert.equal((await reading).status, 200);
  assert.equal((await api(svc.url, other).call('GET', path)).status, 200);
});
