/**
 * Benchmark (not a test): the fuzz test's requests (`test/security/fuzz-requests.ts`, its stack
 * templates in `fuzz-stacks.ts`) in a larger number against a live server, then every stack's
 * deployment ended and the stack deleted, then the store's consistency check. Prints the request count,
 * requests per second, the answers by status and errorCode, and every contract violation found.
 *
 *   npm run bench:fuzz                                  (300,000 requests)
 *   npm run bench:fuzz -- --requests 50000 --seed 7 --concurrency 32
 *
 * The server runs in this process's main thread (as in the test); requests are generated and sent
 * from a worker thread, so each side has a core on a 2-core machine. A watchdog on the server's
 * thread prints the worst event-loop delay and the peak RSS: over 200 ms or 1 GB is a failure like
 * a 5xx. Exits 1 on any violation.
 */
import { parseArgs } from 'node:util';
import { cpus, loadavg } from 'node:os';
import { checkConsistency } from '../src/engine/index.js';
import { startTestService } from '../test/helpers/service.js';
import {
  formatTally,
  fuzzAwsKeys,
  fuzzSetup,
  runFuzzInWorker,
  startWatchdog,
} from '../test/security/fuzz-requests.js';
import { settleStacks } from '../test/security/fuzz-stacks.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300000' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
  },
});
const requests = Number(values.requests);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
const concurrency = Number(values.concurrency);

const svc = await startTestService();
let failed: boolean;
try {
  const scoped = await fuzzSetup(svc.call, seed);
  const awsKeys = await fuzzAwsKeys(svc.call);
  console.log(
    `fuzz: ${requests} requests, concurrency ${concurrency}, seed ${seed}; ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  let shown = 0;
  const watchdog = startWatchdog();
  const report = await runFuzzInWorker({
    url: svc.url,
    token: svc.token,
    scoped,
    awsKeys,
    requests,
    concurrency,
    seed,
    onBatch: (done) => {
      if (done - shown >= 50_000) {
        shown = done;
        console.log(`  ${done} sent`);
      }
    },
  });
  const watched = watchdog.stop();
  const seconds = report.durationMs / 1000;
  console.log(`\nrequests:   ${report.requests}`);
  console.log(`duration:   ${seconds.toFixed(1)} s`);
  console.log(`throughput: ${Math.round(report.requests / seconds)} requests/s`);
  console.log(`\nanswers by status and errorCode:\n${formatTally(report.tally)}`);
  console.log('\nslowest answers:');
  for (const { ms, request } of report.slowest)
    console.log(`  ${String(Math.round(ms)).padStart(6)} ms  ${request}`);
  console.log(`\nworst event-loop delay: ${Math.round(watched.worstDelayMs)} ms (wall time)`);
  console.log(`worst loop held:        ${watched.worstBusyMs ?? '-'} ms (CPU time of the server's thread)`);
  console.log(`peak RSS:               ${Math.round(watched.peakRssMb)} MB`);
  for (const problem of watched.problems) console.log(`  watchdog: ${problem}`);
  console.log("\nCloud Control out of the scoped key's scope, answers by operation:");
  for (const [operation, answers] of Object.entries(report.outOfScope))
    console.log(`  ${operation.padEnd(16)} ${JSON.stringify(answers)}`);
  console.log(`\nviolations: ${report.violationCount}`);
  for (const v of report.violations) console.log(`  ${v}`);

  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const active = await svc.call(
      'GET',
      '/v1/requests?status=PENDING,IN_PROGRESS,CANCEL_IN_PROGRESS&maxResults=1',
    );
    if (active.body?.progressEvents?.length === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const stackProblems = await settleStacks(svc.call, 60_000);
  console.log(`\nstacks ended and deleted: ${stackProblems.length === 0 ? 'yes' : 'no'}`);
  for (const p of stackProblems) console.log(`  ${p}`);
  const started = performance.now();
  const problems = await checkConsistency(svc.store);
  console.log(
    `\nconsistency check: ${problems.length} problems (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  for (const p of problems.slice(0, 20))
    console.log(`  ${p.check} ${p.typeName} ${p.identifier ?? ''} ${p.message}`);
  console.log(`Object.prototype polluted: ${({} as Record<string, unknown>).polluted !== undefined}`);
  failed =
    report.violationCount > 0 ||
    watched.problems.length > 0 ||
    stackProblems.length > 0 ||
    problems.length > 0 ||
    ({} as Record<string, unknown>).polluted !== undefined;
} finally {
  await svc.close();
}
process.exit(failed ? 1 : 0);
