/**
 * A replay of the change log that the log's expiry overtakes ends with a 410 ERROR event (list
 * again) instead of skipping what expired: SQLite, over real HTTP, the client paused while it is
 * sent the first page so that the replay waits for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch } from '../helpers/watch-client.js';

const T = encodeURIComponent(WIDGET_TYPE);

test('a replay overtaken by the expiry of the log ends with a 410 ERROR event', async (t) => {
  const svc = await startTestService({ watch: { maxBufferedBytes: 16 * 1024 * 1024 } });
  t.after(() => svc.close());
  await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
  // A version past 0: resourceVersion=0 is "any version" (the resources as they stand), not a replay.
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'before' } });
  const from = (await svc.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
  // More than a page (500) of changes, large enough that a page outgrows the socket's buffers.
  const color = 'c'.repeat(20_000);
  for (let i = 0; i < 520; i += 40)
    await Promise.all(
      Array.from({ length: 40 }, (_, k) =>
        svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: `r${i + k}`, Color: color } }),
      ),
    );
  const watch = await openWatch(svc.url, `/v1/resources/${T}?watch=true&resourceVersion=${from}`, svc.token);
  watch.response.pause();
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok((await svc.store.expireTokens(new Date(Date.now() + 60_000))) >= 520);
  watch.response.resume();
  const error = await watch.next((e) => e.type === 'ERROR', 10_000);
  assert.equal(error.object.code, 410);
  assert.match(error.object.message, /list again/);
  assert.equal(
    watch.events.filter((e) => e.type === 'ADDED').length,
    500,
    'the first page, and nothing after',
  );
});
