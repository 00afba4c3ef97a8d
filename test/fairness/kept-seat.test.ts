/**
 * Of a level's seats a quarter is kept for flows with nothing running or waiting (docs/fairness.md),
 * over real HTTP: with 4 seats, a token holding the 3 open ones (reads its provider answers late)
 * waits for its fourth request although a seat is free, while another token's request takes that seat
 * at once and is answered before any of the first token's; that token's second request, sent while
 * its first holds the kept seat, waits like any other.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { heldReadsProvider } from '../helpers/providers.js';

test('a token with nothing running takes the kept seat at once; a token with requests running never does', async () => {
  // Reads wait until released: each holds its seat meanwhile.
  const { provider, release } = heldReadsProvider();
  const svc = await startTestService({
    providers: new Map([[WIDGET_TYPE, provider]]),
    fairness: { seats: 4, maxWaitMs: 60_000 },
  });
  after(() => {
    release();
    return svc.close();
  });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const writer = async () =>
    (await svc.call('POST', '/v1/tokens', { role: 'writer' })).body as { id: string; token: string };
  const [noisy, quiet] = [await writer(), await writer()];
  const path = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
  const created = await api(svc.url, noisy.token).call('POST', `${path}?wait=30`, {
    desiredState: { Name: 'held' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');

  // What the workload level holds now, from the metrics (admin scrapes take system seats).
  const level = async () => {
    const text = String((await svc.call('GET', '/metrics')).body);
    const value = (metric: string, labels: string) =>
      Number(new RegExp(`^${metric}\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      inUse: value('typeplane_fairness_seats_in_use', 'priority_level="workload"'),
      noisyWaiting: value('typeplane_fairness_queue_length', `priority_level="workload",flow="${noisy.id}"`),
      quietWaiting: value('typeplane_fairness_queue_length', `priority_level="workload",flow="${quiet.id}"`),
    };
  };
  const until = async (want: Awaited<ReturnType<typeof level>>) => {
    const deadline = Date.now() + 20_000;
    let now = await level();
    while (JSON.stringify(now) !== JSON.stringify(want) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      now = await level();
    }
    assert.deepEqual(now, want);
  };

  const answered: string[] = [];
  const send = (who: { token: string }, name: string, target: string) =>
    api(svc.url, who.token)
      .call('GET', target)
      .then((reply) => {
        answered.push(name);
        return reply;
      });
  // The noisy token's reads take the three open seats and stay there; its fourth waits, the kept seat free.
  const noisyReads = [0, 1, 2, 3].map((i) => send(noisy, `noisy ${i}`, `${path}/held`));
  await until({ inUse: 3, noisyWaiting: 1, quietWaiting: 0 });

  // The quiet token has nothing running: its request takes the kept seat and is answered while every
  // one of the noisy token's still waits (on 4 seats shared as before, it would wait behind them).
  const list = await send(quiet, 'quiet list', path);
  assert.equal(list.status, 200);
  assert.deepEqual(answered, ['quiet list']);

  // A quiet read held by the provider takes the kept seat; its second request then waits its turn.
  const quietRead = send(quiet, 'quiet read', `${path}/held`);
  await until({ inUse: 4, noisyWaiting: 1, quietWaiting: 0 });
  const quietSecond = send(quiet, 'quiet second', path);
  await until({ inUse: 4, noisyWaiting: 1, quietWaiting: 1 });

  release();
  for (const reply of [...(await Promise.all(noisyReads)), await quietRead, await quietSecond])
    assert.equal(reply.status, 200);
  await until({ inUse: 0, noisyWaiting: 0, quietWaiting: 0 });
});
