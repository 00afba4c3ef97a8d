/**
 * The fuzz test: 12,000 random and mutated requests (fast-check) against a live server on loopback,
 * over every route and method, with a tenant's attacks among them (copy bombs, backtracking globs,
 * costly patterns, YAML aliases, surrogates and NFD spellings, references across scopes, stack
 * templates that a tenant makes costly or uses to reach secrets and others' stacks), and signed
 * Cloud Control requests (a writer's key, one scoped to a type, a wrong secret, none). No answer
 * may be a 5xx or outside the contract's error shape, nor hold a NoEcho value or what lies outside
 * the caller's scope; the server must keep answering, its event loop may not stall over 200 ms nor
 * its RSS pass 1 GB, no prototype may change; afterwards every stack's deployment ends and the stack
 * can be deleted, and the store must pass the consistency check. `FUZZ_REQUESTS` and `FUZZ_SEED` override the count and the seed; the count is
 * bounded so the suite stays fast (`npm run bench:fuzz` sends 300,000).
 *
 * Run on the embedded SQLite store, and (fewer requests, `FUZZ_REQUESTS_POSTGRESQL`) on the
 * PostgreSQL store, whose text columns, for one, cannot hold every string SQLite can.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConsistency } from '../../src/engine/index.js';
import { startTestService } from '../helpers/service.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';
import {
  PAIR,
  QUEUE,
  WIDGET,
  formatTally,
  fuzzAwsKeys,
  inFlight,
  fuzzSetup,
  runFuzzInWorker,
  startWatchdog,
} from './fuzz-requests.js';
import { settleStacks } from './fuzz-stacks.js';

const hasNull = (value: unknown): boolean =>
  value === null || (typeof value === 'object' && Object.values(value).some(hasNull));

const ANCHOR_SECRET = 'anchor-Xr5tY8uI2oPq';
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

for (const [kind, REQUESTS] of [
  ['sqlite', Number(process.env.FUZZ_REQUESTS ?? 12_000)],
  ['postgresql', Number(process.env.FUZZ_REQUESTS_POSTGRESQL ?? 4_000)],
] as const)
  test(
    `${REQUESTS} random and mutated requests: no 5xx, only documented errors, a consistent store [${kind}]`,
    { skip: kind === 'postgresql' ? pgSkip : false },
    async (t) => {
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
      const svc = await startTestService(
        kind === 'postgresql' ? { database: { url: PG_URL, schema: freshSchema(t) } } : {},
      );
      try {
        const scoped = await fuzzSetup(svc.call, SEED);
        const awsKeys = await fuzzAwsKeys(svc.call);
        // A resource the fuzz never names (its identifiers are n0…n39): its type cannot be
        // deregistered while it exists, so the final checks always have a resource to check.
        const anchor = await svc.call('POST', `/v1/resources/${encodeURIComponent(WIDGET)}?wait=10`, {
          desiredState: { Name: 'anchor', Color: 'red', Secret: ANCHOR_SECRET },
        });
        assert.equal(anchor.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(anchor.body));

        const watchdog = startWatchdog();
        const report = await runFuzzInWorker({
          url: svc.url,
          token: svc.token,
          scoped,
          awsKeys,
          requests: REQUESTS,
          concurrency: 32,
          seed: SEED,
        });
        const watched = watchdog.stop();
        t.diagnostic(
          `seed ${SEED}: ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s ` +
            `(${Math.round((report.requests / report.durationMs) * 1000)}/s); answers by status and errorCode:`,
        );
        for (const line of formatTally(report.tally).split('\n')) t.diagnostic(line);
        t.diagnostic(`${report.resent} sent again on a new connection (their kept-alive one had timed out)`);
        t.diagnostic('slowest answers:');
        for (const { ms, request } of report.slowest) t.diagnostic(`  ${Math.round(ms)} ms  ${request}`);
        t.diagnostic(
          `worst event-loop delay ${Math.round(watched.worstDelayMs)} ms (wall), ${watched.worstBusyMs ?? '-'} ms (CPU time of the server's thread); peak RSS ${Math.round(watched.peakRssMb)} MB`,
        );
        if (watched.worstBusyAt !== undefined && watched.problems.length > 0) {
          // The request that held the loop longest is among those in flight meanwhile.
          const { from, to } = watched.worstBusyAt;
          t.diagnostic(
            `in flight while the loop was held most (${to - from} ms from ${new Date(from).toISOString()}):`,
          );
          for (const span of inFlight(report.spans, from, to))
            t.diagnostic(
              `  sent ${span.sent - from} ms, answered +${span.answered - from} ms  ${span.request}`,
            );
        }
        assert.deepEqual(watched.problems, [], `the server struggled (FUZZ_SEED=${SEED} reproduces the run)`);
        assert.equal(report.requests, REQUESTS);
        // Each Cloud Control operation that names a type was tried by the key scoped to another
        // type, and refused every time: one leaking operation fails the run on its own.
        for (const operation of [
          'CreateResource',
          'GetResource',
          'UpdateResource',
          'DeleteResource',
          'ListResources',
        ]) {
          const answers = report.outOfScope[operation] ?? {};
          assert.ok(
            (answers['400 AccessDeniedException'] ?? 0) > 0,
            `no ${operation} out of the key's scope was refused (FUZZ_SEED=${SEED}): ${JSON.stringify(answers)}`,
          );
          assert.deepEqual(
            Object.keys(answers),
            ['400 AccessDeniedException'],
            `${operation} out of the key's scope was answered otherwise than AccessDenied (FUZZ_SEED=${SEED}): ${JSON.stringify(answers)}`,
          );
        }
        assert.equal(
          report.violationCount,
          0,
          `${report.violationCount} answers break the contract (FUZZ_SEED=${SEED} reproduces the run):\n${report.violations.join('\n')}`,
        );
        // The generator reached every route family and every mutation.
        const kinds = Object.keys(report.kinds);
        for (const family of [
          'create',
          'patch',
          'put',
          'delete',
          'read',
          'list',
          'request',
          'cancel',
          'type-register',
          'token-create',
          'random-path',
          'patch-bomb',
          'glob-probe',
          'pattern-long',
          'yaml-alias',
          'ref-scope',
          'stack-cond-resource',
          'stack-cond-chain',
          'stack-fanout',
          'stack-allowed-values',
          'stack-allowed-pattern',
          'stack-noecho',
          'stack-import',
          'stack-token-replay',
          'stack-read-scoped',
        ])
          assert.ok(
            kinds.some((k) => k.startsWith(`${family}:`)),
            `no ${family} requests`,
          );
        for (const mutation of [
          'valid',
          'wrong-value',
          'extra-key',
          'prototype-key-proto',
          'deep-nesting-over',
          'huge-string',
          'bad-json-truncate',
          'binary-body',
          'content-type',
          'method',
          'path-odd',
          'query',
          'nfd',
          'surrogate',
        ])
          assert.ok(
            kinds.some((k) => k.includes(`:${mutation}`)),
            `no ${mutation} mutations`,
          );
        assert.ok(
          (report.tally['202'] ?? 0) > REQUESTS / 50,
          'enough requests were valid to start operations',
        );
        assert.ok(
          (report.tally['401 InvalidCredentials'] ?? 0) > 0,
          'requests without a valid token were refused',
        );
        // Cloud Control: signed requests reached the operations; the scoped key was refused others' types.
        for (const operation of [
          'CreateResource',
          'GetResource',
          'UpdateResource',
          'ListResources',
          'CancelResourceRequest',
        ])
          assert.ok(
            kinds.some((k) => k.startsWith(`cc-${operation}:`)),
            `no Cloud Control ${operation} requests`,
          );
        assert.ok((report.tally['200 cc'] ?? 0) > 0, 'Cloud Control requests were answered');
        assert.ok((report.tally['400 InvalidSignatureException'] ?? 0) > 0, 'a wrong secret was refused');

        // Still serving, and no prototype reached.
        assert.equal((await svc.call('GET', '/healthz')).status, 200);
        assert.equal((await svc.call('GET', '/v1/types')).status, 200);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore);

        // Every stack's deployment ended, and every stack can be deleted.
        assert.deepEqual(await settleStacks(svc.call), [], `stacks after the run (FUZZ_SEED=${SEED})`);

        // Once every operation is terminal, the store keeps every invariant.
        const until = Date.now() + 30_000;
        for (;;) {
          const active = await svc.call(
            'GET',
            '/v1/requests?status=PENDING,IN_PROGRESS,CANCEL_IN_PROGRESS&maxResults=1',
          );
          assert.equal(active.status, 200);
          if (active.body.progressEvents.length === 0) break;
          assert.ok(
            Date.now() < until,
            `operations still active: ${JSON.stringify(active.body.progressEvents[0])}`,
          );
          await new Promise((r) => setTimeout(r, 100));
        }
        const problems = await checkConsistency(svc.store);
        // And what the API serves of it has no nulls and no write-only values.
        let served = 0;
        for (const type of [WIDGET, PAIR, QUEUE]) {
          const page = await svc.call('GET', `/v1/resources/${encodeURIComponent(type)}?maxResults=1000`);
          if (page.status === 404 && type !== WIDGET) continue; // deregistered by the fuzz
          assert.equal(page.status, 200, `${type}: ${JSON.stringify(page.body)}`);
          assert.ok(!JSON.stringify(page.body).includes(ANCHOR_SECRET), `${type}: a write-only value served`);
          served += page.body.resourceDescriptions.length;
          for (const { identifier, properties } of page.body.resourceDescriptions) {
            assert.equal(hasNull(properties), false, `${type} ${identifier}: a null served`);
            assert.equal(
              Object.hasOwn(properties, 'Secret'),
              false,
              `${type} ${identifier}: a write-only value served`,
            );
          }
        }
        assert.ok(served > 0, 'the checks above saw resources (at least the anchor)');
        const kept = await svc.call('GET', `/v1/resources/${encodeURIComponent(WIDGET)}/anchor`);
        assert.deepEqual(kept.body.properties, { Name: 'anchor', Size: 'S', Color: 'red' });
        assert.deepEqual(
          problems,
          [],
          `the store is inconsistent:\n${JSON.stringify(problems.slice(0, 20), null, 2)}`,
        );
      } finally {
        await svc.close();
      }
    },
  );
