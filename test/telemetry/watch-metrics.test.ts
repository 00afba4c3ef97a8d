/**
 * The watches' metrics over real HTTP, parsed as Prometheus parses them: watches open, events and
 * bytes sent (exactly what the clients received), and watches ended by reason — the client leaving,
 * a revoked token, a client too slow.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch, type WatchEvent } from '../helpers/watch-client.js';
import { scrape, total, type Scrape } from './scrape.js';

const T = encodeURIComponent(WIDGET_TYPE);

test('watches open, events and bytes sent, and watches ended by reason are counted', async (t) => {
  const svc = await startTestService({ watch: { revocationCheckMs: 100, maxBufferedBytes: 64 * 1024 } });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const ended = (s: Scrape, reason: string) => total(s, 'typeplane_watches_ended_total', { reason });
  const until = async (test: (s: Scrape) => boolean) => {
    for (let i = 0; ; i++) {
      const s = await scrape(svc);
      if (test(s)) return s;
      assert.ok(
        i < 100,
        `never: ${s.text
          .split('\n')
          .filter((l) => l.includes('watch'))
          .join('\n')}`,
      );
      await sleep(50);
    }
  };
  let s = await scrape(svc);
  assert.equal(total(s, 'typeplane_watches_open'), 0);

  const resources = await openWatch(svc.url, `/v1/resources/${T}?watch=true`, svc.token);
  const requests = await openWatch(svc.url, '/v1/requests?watch=true', svc.token);
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'one' } });
  await resources.next();
  await requests.next();
  s = await scrape(svc);
  assert.equal(total(s, 'typeplane_watches_open'), 2);
  const received = [...resources.events, ...requests.events];
  assert.equal(total(s, 'typeplane_watch_events_sent_total'), received.length);
  const bytes = (events: WatchEvent[]) =>
    events.reduce((sum, e) => sum + Buffer.byteLength(`${JSON.stringify(e)}\n`), 0);
  assert.equal(total(s, 'typeplane_watch_sent_bytes_total'), bytes(received));

  resources.close();
  s = await until((s) => ended(s, 'client_closed') === 1);
  assert.equal(total(s, 'typeplane_watches_open'), 1);

  // A revoked token's watch ends (401).
  const reader = await svc.call('POST', '/v1/tokens', { role: 'reader' });
  const revoked = await openWatch(svc.url, '/v1/requests?watch=true', reader.body.token);
  assert.equal(revoked.status, 200);
  await svc.call('DELETE', `/v1/tokens/${reader.body.id}`);
  await revoked.ended;
  await until((s) => ended(s, 'revoked') === 1);

  // A client that reads nothing while 64 KiB of events wait is cut (429). The operations watch goes
  // first: its client reads in this process too, which the burst below keeps busy, and it could be
  // cut as well (its events carry the same 8 KB models).
  requests.close();
  s = await until((s) => ended(s, 'client_closed') === 2);
  const slow = await openWatch(svc.url, `/v1/resources/${T}?watch=true`, svc.token);
  slow.response.pause();
  // Until the kernel's socket buffers, which a paused reader still fills, are full and the server's
  // own holds 64 KiB: how much that takes depends on the machine's buffer sizes.
  const color = 'c'.repeat(32_000);
  for (let i = 0; ended(s, 'slow_consumer') === 0; i += 10) {
    assert.ok(i < 600, `the paused watch was never cut after ${i} creates of 32 KB`);
    await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: `s${i + k}`, Color: color } }),
      ),
    );
    s = await scrape(svc);
  }
  s = await until((s) => ended(s, 'slow_consumer') === 1);
  assert.equal(total(s, 'typeplane_watches_open'), 0);
  assert.equal(ended(s, 'shutdown'), 0);
  slow.close();
});
