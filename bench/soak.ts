/**
 * Soak benchmark (not a test): sustained creates against a `typeplane serve` child process over keep-
 * alive connections, each create timed until its operation is SUCCESS (`?wait=30` answers then).
 * Prints creates/s overall and per 10 s window, p50/p99 latency, and the server's memory at the end.
 *
 *   npm run bench:soak -- [--seconds 60] [--clients 32] [--dist] [--database-url postgres://…]
 *
 * With --database-url the server keeps its state in that PostgreSQL database, in a schema of its own
 * made for the run and dropped after it.
 *
 * Clients stay below the engine's 64 concurrent handler invocations on purpose: more than that
 * queues operations as PENDING (and measures the queue, not the server).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  WIDGET_SCHEMA,
  WIDGET_TYPE,
  client,
  flag,
  fmt,
  memoryOf,
  numberArg,
  quantile,
  removeAtExit,
  startServer,
  stringArg,
} from './harness.js';

const SECONDS = numberArg('seconds', 60);
const CLIENTS = numberArg('clients', 32);
const WINDOW_S = 10;

const dir = mkdtempSync(join(tmpdir(), 'typeplane-soak-'));
removeAtExit(dir);
const typeFile = join(dir, 'widget.json');
writeFileSync(typeFile, JSON.stringify(WIDGET_SCHEMA));
const databaseUrl = stringArg('database-url');
const schema = `tp_bench_soak_${randomBytes(4).toString('hex')}`;
const storeArgs = databaseUrl ? ['--database-url', databaseUrl, '--database-schema', schema] : [];
const server = await startServer(join(dir, 'data'), ['--types', typeFile, ...storeArgs], flag('dist'));
const http = client(server, CLIENTS);
const path = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}?wait=30`;

console.log(
  `typeplane soak: ${CLIENTS} keep-alive clients creating for ${SECONDS} s (${flag('dist') ? 'dist' : 'tsx'}, ${databaseUrl ? `PostgreSQL schema ${schema}` : 'SQLite'}), server pid ${server.child.pid}`,
);
const start = performance.now();
const end = start + SECONDS * 1000;
const latencies: number[] = [];
const windows: number[] = [];
let failed = 0;
let firstFailure: string | undefined;
await Promise.all(
  Array.from({ length: CLIENTS }, async (_, c) => {
    for (let seq = 0; performance.now() < end; seq++) {
      const t = performance.now();
      let problem: string | undefined;
      try {
        const res = await http.call('POST', path, {
          desiredState: { Name: `c${c}-${seq}`, Size: 'M', Color: 'blue', Count: seq },
          clientToken: `soak-${c}-${seq}`,
        });
        const status = res.body?.progressEvent?.operationStatus;
        if (res.status !== 202 || status !== 'SUCCESS')
          problem = `HTTP ${res.status} ${status ?? ''}: ${JSON.stringify(res.body).slice(0, 300)}`;
      } catch (e) {
        problem = String(e);
      }
      const now = performance.now();
      if (problem === undefined) {
        latencies.push(now - t);
        const w = Math.floor((now - start) / (WINDOW_S * 1000));
        windows[w] = (windows[w] ?? 0) + 1;
      } else {
        failed++;
        firstFailure ??= problem;
      }
    }
  }),
);
const wall = (performance.now() - start) / 1000;
const memory = memoryOf(server.child.pid);
latencies.sort((a, b) => a - b);

console.log(
  `creates/s overall: ${fmt(latencies.length / wall, 1)} (${fmt(latencies.length)} SUCCESS in ${fmt(wall, 1)} s, ${failed} failed)`,
);
console.log(
  `creates/s per ${WINDOW_S} s window: ${Array.from({ length: Math.ceil(SECONDS / WINDOW_S) }, (_, w) => {
    const span = Math.min(WINDOW_S, SECONDS - w * WINDOW_S);
    return fmt((windows[w] ?? 0) / span, 0);
  }).join(', ')}`,
);
console.log(
  `latency until SUCCESS: p50 ${fmt(quantile(latencies, 0.5), 1)} ms, p99 ${fmt(quantile(latencies, 0.99), 1)} ms, max ${fmt(latencies[latencies.length - 1] ?? NaN, 1)} ms`,
);
console.log(`server memory at the end: RSS ${fmt(memory.rssMb, 1)} MB, peak RSS ${fmt(memory.peakMb, 1)} MB`);
if (firstFailure) console.log(`first failure: ${firstFailure}`);
http.close();
await server.stop();
if (databaseUrl) {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
