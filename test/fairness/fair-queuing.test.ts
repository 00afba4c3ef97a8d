/**
 * Fair queuing within a priority level and a token's bucket, on the values themselves (the HTTP
 * tests prove them over a server): freed seats go round the waiting flows, a newly waiting flow next
 * in line; a full queue, a wait past the longest and a closing server refuse; a rate admits its burst
 * and then one request per its interval.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Fairness, Throttled, type Flow } from '../../src/fairness/index.js';

const writer = (tokenId: string, limits: { rate?: number; burst?: number } = {}) => ({
  tokenId,
  role: 'writer',
  ...limits,
});

test('freed seats go round the waiting flows, however many requests one of them queued', () => {
  const fairness = new Fairness({ seats: 2, queueLength: 10 });
  const noisy = fairness.flowOf(writer('noisy'));
  const quiet = fairness.flowOf(writer('quiet'));
  const order: string[] = [];
  const queue = (flow: Flow, name: string) =>
    fairness.wait(flow, (refusal) => order.push(refusal ? `${name} refused` : name));
  assert.equal(fairness.enter(noisy), true);
  assert.equal(fairness.enter(noisy), true);
  // Both seats taken: requests wait, the noisy flow's five before the quiet one's two.
  assert.equal(fairness.enter(noisy), false);
  for (let i = 0; i < 5; i++) queue(noisy, `n${i}`);
  queue(quiet, 'q0');
  queue(quiet, 'q1');
  assert.deepEqual(fairness.levels()[1], { level: 'workload', seats: 2, inUse: 2, waiting: 7 });
  // Six seats free one by one (each seated request leaving at once): the quiet flow joined the round
  // next in line, then the two alternate.
  for (let i = 0; i < 6; i++) fairness.leave(noisy);
  assert.deepEqual(order, ['q0', 'n0', 'q1', 'n1', 'n2', 'n3']);
  // While anyone waits, a newcomer waits too: no overtaking of the queue.
  assert.equal(fairness.enter(fairness.flowOf(writer('third'))), false);
  const stats = fairness.flowStats().find((f) => f.flow === 'quiet')!;
  assert.equal(stats.dispatched, 2);
  assert.equal(stats.queued, 2);
  fairness.close();
  assert.deepEqual(order.slice(6), ['n4 refused']);
});

test('a quarter of the seats is kept for flows with nothing running or waiting, one request each', () => {
  // 8 seats: 6 open to anyone, 2 kept for a request of an idle flow.
  const fairness = new Fairness({ seats: 8, queueLength: 10 });
  const noisy = fairness.flowOf(writer('noisy'));
  const order: string[] = [];
  const queue = (flow: Flow, name: string) =>
    fairness.wait(flow, (refusal) => order.push(refusal ? `${name} refused` : name));
  for (let i = 0; i < 6; i++) assert.equal(fairness.enter(noisy), true);
  // Two seats are free, but a flow with requests running takes none of them: it waits its turn, so
  // a flow's share is the open seats, however often it sends.
  assert.equal(fairness.enter(noisy), false);
  queue(noisy, 'n0');
  assert.deepEqual(order, []);
  // A flow with nothing running or waiting is seated at once, although the noisy one waits: it does
  // not wait for the noisy flow's requests to end. Its second request waits like any other.
  const quiet = fairness.flowOf(writer('quiet'));
  assert.equal(fairness.enter(quiet), true);
  assert.equal(fairness.enter(quiet), false);
  queue(quiet, 'q1');
  // The last kept seat goes to another idle flow; then none is left, and an idle flow waits too.
  assert.equal(fairness.enter(fairness.flowOf(writer('third'))), true);
  const fourth = fairness.flowOf(writer('fourth'));
  assert.equal(fairness.enter(fourth), false);
  queue(fourth, 'f0');
  assert.deepEqual(fairness.levels()[1], { level: 'workload', seats: 8, inUse: 8, waiting: 3 });
  // Freed seats go round the waiting flows, but only while fewer than the open six are taken: the
  // kept ones are never handed to a queue. Three requests end: 8 → 5 in use, one seat to dispatch.
  fairness.leave(noisy);
  fairness.leave(noisy);
  assert.deepEqual(order, []);
  fairness.leave(noisy);
  assert.deepEqual(order, ['f0']);
  assert.equal(fairness.levels()[1]!.inUse, 6);
  fairness.leave(noisy);
  assert.deepEqual(order, ['f0', 'q1']);
  fairness.leave(quiet);
  assert.deepEqual(order, ['f0', 'q1', 'n0']);
  assert.deepEqual(fairness.levels()[1], { level: 'workload', seats: 8, inUse: 6, waiting: 0 });
  fairness.close();
});

test('with fewer than four seats none is kept', () => {
  const fairness = new Fairness({ seats: 3 });
  const flow = fairness.flowOf(writer('a'));
  for (let i = 0; i < 3; i++) assert.equal(fairness.enter(flow), true);
  assert.equal(fairness.enter(fairness.flowOf(writer('b'))), false);
  fairness.close();
});

test('a full queue, a wait past the longest and a closing server refuse with Retry-After', async () => {
  const fairness = new Fairness({ seats: 1, queueLength: 1, maxWaitMs: 150 });
  const flow = fairness.flowOf(writer('a'));
  assert.equal(fairness.enter(flow), true);
  const refusals: (Throttled | undefined)[] = [];
  fairness.wait(flow, (r) => refusals.push(r));
  fairness.wait(flow, (r) => refusals.push(r));
  assert.equal(refusals[0]?.reason, 'queue-full');
  assert.equal(refusals[0]?.retryAfterSeconds, 1);
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(refusals[1]?.reason, 'queue-timeout');
  fairness.wait(flow, (r) => refusals.push(r));
  fairness.close();
  assert.match(refusals[2]!.message, /shutting down/);
  const stats = fairness.flowStats().find((f) => f.flow === 'a')!;
  // A refusal at shutdown is no throttling: not counted.
  assert.deepEqual(stats.rejected, { rate: 0, 'queue-full': 1, 'queue-timeout': 1 });
  assert.ok(stats.waitSeconds >= 0.15);
});

test('admin and monitor tokens have seats of their own, apart from the workload', () => {
  const fairness = new Fairness({ seats: 1, systemSeats: 1 });
  const tenant = fairness.flowOf(writer('t'));
  assert.equal(fairness.enter(tenant), true);
  assert.equal(fairness.enter(fairness.flowOf(writer('u'))), false);
  assert.equal(fairness.enter(fairness.flowOf({ tokenId: 'root', role: 'admin' })), true);
  fairness.close();
});

test('by default each level has 8 seats on SQLite and 16 on PostgreSQL, where requests wait on the database', () => {
  const seats = (store: 'sqlite' | 'postgresql') => {
    const fairness = new Fairness({ store });
    try {
      return Object.fromEntries(fairness.levels().map((l) => [l.level, l.seats]));
    } finally {
      fairness.close();
    }
  };
  assert.deepEqual(seats('sqlite'), { system: 8, workload: 8 });
  assert.deepEqual(seats('postgresql'), { system: 16, workload: 16 });
});

test("a token's rate admits its burst, then one request per interval, saying when the next may come", async () => {
  const fairness = new Fairness({ seats: 100 });
  const flow = fairness.flowOf(writer('r', { rate: 10, burst: 3 }));
  for (let i = 0; i < 3; i++) assert.equal(fairness.enter(flow), true);
  const refused = fairness.enter(flow);
  assert.ok(refused instanceof Throttled);
  assert.equal(refused.reason, 'rate');
  assert.equal(refused.retryAfterSeconds, 1);
  assert.match(refused.message, /over its rate of 10\/s \(burst 3\)/);
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(fairness.enter(flow), true);
  // A changed rate starts the bucket full; no rate at all admits everything.
  assert.equal(fairness.enter(fairness.flowOf(writer('r', { rate: 10, burst: 5 }))), true);
  const unlimited = fairness.flowOf(writer('r'));
  for (let i = 0; i < 50; i++) assert.equal(fairness.enter(unlimited), true);
  fairness.close();
});
