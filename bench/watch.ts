/**
 * Watch benchmark (not a test): `--watchers` watches (default 1,000) of one type on a `typeplane serve`
 * process while `--rate` creates a second (default 200) are made, open loop, for `--seconds` (default
 * 10). It prints:
 * - the time from a create's request to each watch's event for it (p50, p99, max): an upper bound of
 *   commit-to-delivery (the commit is inside the request; target p99 < 100 ms), and from the create's
 *   answer (a lower bound; an event may come before the answer, counted as 0);
 * - the server's CPU per delivered event: its CPU during the run less its CPU for the same creates
 *   with no watch open (measured first), over the events delivered;
 * - the server's memory per open watch (its VmRSS with them open less before, after a settle).
 * The machine's load average is printed with them: the figures are of a shared machine.
 *
 * The server runs on a core of its own and this process (the creates and every watch's client) on
 * the others, when taskset can pin them (`--no-pin`: not).
 *
 * With --database-url the server keeps its state in that PostgreSQL database, in a schema of its own
 * (dropped at the end).
 *
 *   npm run bench:watch -- [--watchers 1000] [--rate 200] [--seconds 10] [--dist] [--no-pin] [--database-url postgres://…]
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  WIDGET_SCHEMA,
  WIDGET_TYPE,
  client,
  cpuSecondsOf,
  flag,
  fmt,
  memoryOf,
  numberArg,
  pinApart,
  quantile,
  removeAtExit,
  startServer,
  stringArg,
  type Server,
} from './harness.js';
import pg from 'pg';

const WATCHERS = numberArg('watchers', 1000);
const RATE = numberArg('rate', 200);
const SECONDS = numberArg('seconds', 10);
const PATH = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
const MARK = '"identifier":"';
const DATABASE_URL = stringArg('database-url');
const SCHEMA = `tp_bench_watch_${randomBytes(4).toString('hex')}`;

/** When each create was sent and answered, by the identifier it made. */
const sent = new Map<string, { at: number; answered?: number }>();
const fromSent: number[] = [];
const fromAnswer: number[] = [];

/** One watch, counting each event for a create of this run as it arrives (found, not parsed). */
function watch(server: Server, resourceVersion: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      new URL(`${PATH}?watch=true&resourceVersion=${resourceVersion}`, server.url),
      { agent: false, headers: { authorization: `Bearer ${server.token}`, accept: 'application/x-ndjson' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`a watch was answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const now = performance.now();
          for (let at = chunk.indexOf(MARK); at >= 0; at = chunk.indexOf(MARK, at + 1)) {
            const start = at + MARK.length;
            const create = sent.get(chunk.slice(start, chunk.indexOf('"', start)));
            if (!create) continue;
            fromSent.push(now - create.at);
            fromAnswer.push(Math.max(0, now - (create.answered ?? now)));
          }
        });
        resolve(res);
      },
    );
    req.on('error', reject);
  });
}

/** `RATE` creates a second for `SECONDS`, open loop; resolves once every one is answered. */
async function creates(api: ReturnType<typeof client>, prefix: string): Promise<number> {
  const total = Math.round(RATE * SECONDS);
  const start = performance.now();
  const answers: Promise<void>[] = [];
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const name = `${prefix}${i}`;
    const create = { at: performance.now() } as { at: number; answered?: number };
    if (prefix !== 'quiet') sent.set(name, create);
    answers.push(
      api.call('POST', PATH, { desiredState: { Name: name, Size: 'M' } }).then((answer) => {
        create.answered = performance.now();
        if (answer.body?.progressEvent?.operationStatus !== 'SUCCESS') failed++;
      }),
    );
  }
  await Promise.all(answers);
  return failed;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'typeplane-bench-watch-'));
  removeAtExit(dataDir);
  const server = await startServer(
    dataDir,
    [
      '--watch-limit-per-token',
      String(WATCHERS + 1),
      '--watch-limit',
      String(WATCHERS + 1),
      ...(DATABASE_URL ? ['--database-url', DATABASE_URL, '--database-schema', SCHEMA] : []),
    ],
    flag('dist'),
  );
  const pid = server.child.pid;
  // The watches' client parses every event: on a core of its own, it takes none of the server's.
  const pinning = flag('no-pin') ? { description: 'not pinned (--no-pin)' } : pinApart(server);
  const api = client(server, 64);
  try {
    if ((await api.call('POST', '/v1/types', WIDGET_SCHEMA)).status !== 201)
      throw new Error('registering failed');
    console.log(
      `${WATCHERS} watchers of one type, ${RATE} creates/s for ${SECONDS} s, ${DATABASE_URL ? `PostgreSQL schema ${SCHEMA}` : 'SQLite'}; ${pinning.description}; load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    // The creates alone, no watch open: the server's CPU for them.
    let cpu = cpuSecondsOf(pid);
    const quietFailed = await creates(api, 'quiet');
    const quietCpu = cpuSecondsOf(pid) - cpu;
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const before = memoryOf(pid).rssMb;
    const { resourceVersion } = (await api.call('GET', `${PATH}?maxResults=1`)).body as {
      resourceVersion: string;
    };
    const streams: http.IncomingMessage[] = [];
    for (let i = 0; i < WATCHERS; i += 50)
      streams.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, WATCHERS - i) }, () => watch(server, resourceVersion)),
        )),
      );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const perWatcherKb = ((memoryOf(pid).rssMb - before) * 1024) / WATCHERS;

    cpu = cpuSecondsOf(pid);
    const failed = await creates(api, 'w');
    // The last events' delivery.
    const expected = sent.size * WATCHERS;
    const deadline = performance.now() + 10_000;
    while (fromSent.length < expected && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const watchedCpu = cpuSecondsOf(pid) - cpu;
    const delivered = fromSent.length;
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const s = sorted(fromSent);
    const a = sorted(fromAnswer);
    const p99 = quantile(s, 0.99);
    console.log(
      `creates: ${sent.size} (${failed + quietFailed} not SUCCESS); events delivered: ${fmt(delivered)} of ${fmt(expected)}`,
    );
    console.log(
      `create sent -> event received: p50 ${fmt(quantile(s, 0.5), 1)} ms, p99 ${fmt(p99, 1)} ms, max ${fmt(s.at(-1) ?? NaN, 1)} ms (target p99 < 100 ms: ${p99 < 100 ? 'ok' : 'MISSED'})`,
    );
    console.log(
      `create answered -> event received: p50 ${fmt(quantile(a, 0.5), 1)} ms, p99 ${fmt(quantile(a, 0.99), 1)} ms`,
    );
    console.log(
      `server CPU: ${fmt(quietCpu, 2)} s for the creates alone, ${fmt(watchedCpu, 2)} s with the watches: ${fmt(((watchedCpu - quietCpu) / Math.max(1, delivered)) * 1e6, 2)} µs per delivered event`,
    );
    console.log(
      `server memory: ${fmt(perWatcherKb, 1)} KiB per open watch (VmRSS ${fmt(before, 0)} MB before, ${WATCHERS} watches open)`,
    );
    console.log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const stream of streams) stream.destroy();
  } finally {
    api.close();
    await server.stop();
    if (DATABASE_URL) {
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
      await admin.end();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
