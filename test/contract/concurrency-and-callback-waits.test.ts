/**
 * `typeplane test` against a provider that asks for 2 s between callbacks: tests run several at once
 * (--concurrency) and --max-callback-delay caps the waits, so the suite takes seconds instead of the
 * minutes the delays add up to, with the same results as one test after another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { runContractSuite, type SuiteReport } from '../../src/contract/index.js';
import type { Handler, HandlerAction, Provider } from '../../src/handler/types.js';
import { CALLBACK_DELAY_SECONDS } from '../fixtures/broken-providers/waits-between-callbacks.js';
import { exits, runCli } from '../helpers/cli.js';
import { explain, fixture, fixtures, widgetType } from './helpers.js';

const ACTIONS: HandlerAction[] = ['create', 'read', 'update', 'delete', 'list'];

/** The slow fixture, counting the IN_PROGRESS answers and the most handler calls in flight at once. */
async function observed() {
  const inner = await fixture('waits-between-callbacks');
  const seen = { waits: 0, inFlight: 0, mostInFlight: 0 };
  const wrap =
    (handler: Handler): Handler =>
    async (request) => {
      seen.mostInFlight = Math.max(seen.mostInFlight, ++seen.inFlight);
      try {
        const event = await handler(request);
        if (event.status === 'IN_PROGRESS') seen.waits++;
        return event;
      } finally {
        seen.inFlight--;
      }
    };
  const provider = { name: inner.name } as Provider & Record<HandlerAction, Handler>;
  for (const action of ACTIONS) provider[action] = wrap(inner[action].bind(inner));
  return { provider, seen };
}

const statuses = (report: Pick<SuiteReport, 'results'>) =>
  report.results.map((r) => `${r.name}: ${r.status}`);

let sequential: { statuses: string[]; waits: number } | undefined;

test('tests run several at once, and results are those of one test after another', async () => {
  const type = await widgetType();
  const one = await observed();
  const alone = await runContractSuite({
    type,
    provider: one.provider,
    seed: 7,
    runs: 1,
    concurrency: 1,
    maxCallbackDelayMs: 0,
  });
  assert.ok(alone.ok, explain(alone));
  assert.equal(one.seen.mostInFlight, 1);
  const four = await observed();
  const together = await runContractSuite({
    type,
    provider: four.provider,
    seed: 7,
    runs: 1,
    concurrency: 4,
    maxCallbackDelayMs: 0,
  });
  assert.ok(together.ok, explain(together));
  assert.ok(four.seen.mostInFlight > 1 && four.seen.mostInFlight <= 4, `${four.seen.mostInFlight} in flight`);
  assert.deepEqual(statuses(together), statuses(alone));
  sequential = { statuses: statuses(alone), waits: one.seen.waits };
});

test('typeplane test --concurrency 4 --max-callback-delay 0.05 finishes in a fraction of the waits the provider asks for', async () => {
  assert.ok(sequential, 'the first test gives the sequential results');
  // One test after another, honouring every delay, the suite would wait this long.
  const askedMs = sequential.waits * CALLBACK_DELAY_SECONDS * 1000;
  assert.ok(askedMs >= 60_000, `${sequential.waits} waits`);
  const started = performance.now();
  const run = await runCli(
    [
      'test',
      '--provider',
      join(fixtures, 'waits-between-callbacks.ts'),
      '--seed',
      '7',
      '--runs',
      '1',
      '--concurrency',
      '4',
      '--max-callback-delay',
      '0.05',
      '-o',
      'json',
    ],
    { env: { ...process.env, NO_COLOR: '1' } },
  );
  const elapsedMs = performance.now() - started;
  exits(run, 0);
  assert.deepEqual(statuses(JSON.parse(run.stdout) as SuiteReport), sequential.statuses);
  assert.ok(elapsedMs < askedMs / 4, `${Math.round(elapsedMs)} ms, the delays ask for ${askedMs} ms`);
});

test('--concurrency and --max-callback-delay refuse values out of range (exit 2)', async () => {
  const provider = join(fixtures, 'waits-between-callbacks.ts');
  for (const [option, value, message] of [
    ['--concurrency', '33', /--concurrency must be a whole number from 1 to 32/],
    ['--max-callback-delay', 'soon', /--max-callback-delay must be seconds from 0 to 3600/],
  ] as const) {
    const run = await runCli(['test', '--provider', provider, option, value], { env: process.env });
    exits(run, 2);
    assert.match(run.stderr, message);
  }
});
