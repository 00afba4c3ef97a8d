/**
 * Benchmark (not a test), issue #38: one tenant's load must not become another's latency. A quiet
 * tenant (one create every 20 ms, its own writer token scoped to its own type) alone, then beside a
 * saturating tenant (32 clients creating as fast as they can, its own token and type), on a server
 * with fairness on and on one with `--fairness off`, both running for the whole bench. Each round
 * measures both servers, one after the other (which goes first alternates), so that a change of the
 * machine's load falls on both sides of a round alike. Prints, with their spread over the rounds:
 * the quiet tenant's p99 beside the noisy one against alone (target ≤ 2×, moonshot ≤ 1.3×; pooled
 * over the rounds, so each p99 stands on hundreds of requests) and the noisy tenant's throughput with
 * fairness against without (target ≥ 0.9×; the median of the rounds' ratios).
 *
 *   npm run bench:fairness     (ROUNDS=6 DURATION_S=3 FAIRNESS_ARGS='--fairness-seats 8')
 *
 * Figures that a loaded machine moves little are printed beside the wall-clock ones: the server's
 * main-thread CPU per noisy create (its on-CPU time, /proc/<pid>/task/<pid>/schedstat, so time it
 * waited for a core is not counted), the creates per store commit, and the server's main-thread CPU
 * that ran between a quiet request's sending and its answer (the work it waited behind). On a shared
 * machine say "under load" with the load averages printed.
 *
 * The noisy clients run in a process of their own (this file again, taking jobs on stdin), so the
 * quiet tenant's clock here is not behind their work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  ADMIN_TOKEN,
  Connection,
  fmt,
  loadAverage,
  median,
  quantile,
  runMain,
  startServer,
  tempDir,
  verdict,
  type Server,
} from './api-harness.js';
import { closedLoop } from './closed-loop.js';
import { widgetSchema } from '../test/helpers/widget-schema.js';

const DURATION_S = Number(process.env.DURATION_S ?? 3);
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 6));
const NOISY_CLIENTS = 32;
const QUIET_EVERY_MS = 20;
/** The noisy tenant runs this long before the quiet one measures beside it. */
const NOISY_LEAD_S = 0.5;
const FAIRNESS_ARGS = (process.env.FAIRNESS_ARGS ?? '').split(' ').filter(Boolean);
const NOISY = 'Bench::Fairness::Noisy';
const QUIET = 'Bench::Fairness::Quiet';

function body(name: string): string {
  return JSON.stringify({ desiredState: { Name: name, Size: 'M', Color: 'blue', Count: 1 } });
}

/** CPU nanoseconds the process's main thread has run so far (not time it waited for a core); NaN without /proc. */
function mainThreadNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return Number.NaN;
  }
}

// ---- The noisy tenant, in a process of its own -----------------------------------------------------

interface NoisyJob {
  host: string;
  port: number;
  token: string;
  seconds: number;
  prefix: string;
}

interface NoisyResult {
  ok: number;
  throttled: number;
  failed: number;
  seconds: number;
  firstFailure?: string;
}

async function noisyWorker(job: NoisyJob): Promise<NoisyResult> {
  const server = { host: job.host, port: job.port } as Server;
  const conns = Array.from({ length: NOISY_CLIENTS }, () => new Connection(server, job.token));
  let throttled = 0;
  const path = `/v1/resources/${encodeURIComponent(NOISY)}`;
  const result = await closedLoop(NOISY_CLIENTS, job.seconds, async (client, seq) => {
    const reply = await conns[client]!.request('POST', path, body(`${job.prefix}${client}-${seq}`));
    if (reply.status === 202) return undefined;
    if (reply.status === 429) throttled++;
    return `HTTP ${reply.status}: ${reply.text.slice(0, 200)}`;
  });
  for (const c of conns) c.close();
  return {
    ok: result.ok,
    throttled,
    failed: result.failed - throttled,
    seconds: result.seconds,
    ...(result.firstFailure !== undefined ? { firstFailure: result.firstFailure } : {}),
  };
}

/** This file run again as the noisy tenant (FAIRNESS_NOISY=1): a job a line on stdin, a result a line on stdout. */
class NoisyTenant {
  private readonly child: ChildProcess;
  private readonly results: ((line: string) => void)[] = [];

  constructor() {
    this.child = spawn(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url)],
      {
        env: { ...process.env, FAIRNESS_NOISY: '1' },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.results.shift()?.(line));
  }

  run(job: NoisyJob): Promise<NoisyResult> {
    return new Promise((resolve, reject) => {
      const exited = () => reject(new Error(`the noisy tenant exited (${this.child.exitCode})`));
      this.child.once('exit', exited);
      this.results.push((line) => {
        this.child.off('exit', exited);
        resolve(JSON.parse(line) as NoisyResult);
      });
      this.child.stdin!.write(JSON.stringify(job) + '\n');
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}

// ---- The quiet tenant, here -----------------------------------------------------------------------

interface QuietResult {
  /** Each create's latency (ms) from when it was due, sorted. */
  latencies: number[];
  /** The server main thread's CPU (ms) from each create's sending to its answer, sorted. */
  serverCpuAhead: number[];
  failures: string[];
}

/** One create every 20 ms for `seconds`, each timed from when it was due (a slow answer delays none). */
async function quiet(server: Server, token: string, seconds: number, prefix: string): Promise<QuietResult> {
  const pid = server.child.pid!;
  const idle: Connection[] = [];
  const all: Connection[] = [];
  const latencies: number[] = [];
  const serverCpuAhead: number[] = [];
  const failures: string[] = [];
  const path = `/v1/resources/${encodeURIComponent(QUIET)}`;
  const start = performance.now();
  const count = Math.floor((seconds * 1000) / QUIET_EVERY_MS);
  const sent: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * QUIET_EVERY_MS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    let conn = idle.pop();
    if (conn === undefined) all.push((conn = new Connection(server, token)));
    const ns = mainThreadNs(pid);
    sent.push(
      conn.request('POST', path, body(`${prefix}${i}`)).then(
        (reply) => {
          latencies.push(performance.now() - due);
          serverCpuAhead.push((mainThreadNs(pid) - ns) / 1e6);
          if (reply.status !== 202) failures.push(`HTTP ${reply.status}: ${reply.text.slice(0, 200)}`);
          idle.push(conn);
        },
        (e: unknown) => void failures.push(String(e)),
      ),
    );
  }
  await Promise.all(sent);
  for (const c of all) c.close();
  latencies.sort((a, b) => a - b);
  serverCpuAhead.sort((a, b) => a - b);
  return { latencies, serverCpuAhead, failures };
}

// ---- One server, one round ------------------------------------------------------------------------

interface Tenant {
  server: Server;
  fairness: boolean;
  noisyToken: string;
  quietToken: string;
}

interface RoundResult {
  alone: QuietResult;
  beside: QuietResult;
  noisy: NoisyResult;
  /** The server main thread's CPU (µs) per successful create while the noisy tenant ran (its and the quiet one's). */
  cpuPerCreate: number;
  /** Creates per store commit meanwhile. */
  createsPerCommit: number;
}

async function admin(server: Server, method: string, path: string, payload?: unknown) {
  const conn = new Connection(server, ADMIN_TOKEN);
  const reply = await conn.request(method, path, payload === undefined ? undefined : JSON.stringify(payload));
  conn.close();
  if (reply.status >= 300) throw new Error(`${method} ${path}: HTTP ${reply.status} ${reply.text}`);
  return reply.text;
}

/** The store's commits so far (its transactions' count, from the metrics). */
async function commits(server: Server): Promise<number> {
  const text = await admin(server, 'GET', '/metrics');
  return Number(/^typeplane_store_transaction_duration_seconds_count (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

async function startTenant(typeFiles: string[], fairness: boolean): Promise<Tenant> {
  const server = await startServer(fairness ? 'fairness on' : 'fairness off', 'src/cli/main.ts', [
    'serve',
    '--port',
    '0',
    '--data-dir',
    tempDir('typeplane-bench-fairness-'),
    '--types',
    ...typeFiles,
    '--log-level',
    'warn',
    ...(fairness ? FAIRNESS_ARGS : ['--fairness', 'off']),
  ]);
  const token = async (typeName: string) =>
    String(
      JSON.parse(await admin(server, 'POST', '/v1/tokens', { role: 'writer', types: [typeName] })).token,
    );
  return { server, fairness, noisyToken: await token(NOISY), quietToken: await token(QUIET) };
}

async function round(tenant: Tenant, noisyTenant: NoisyTenant, name: string): Promise<RoundResult> {
  const { server } = tenant;
  const pid = server.child.pid!;
  const alone = await quiet(server, tenant.quietToken, DURATION_S, `a${name}-`);
  const commits0 = await commits(server);
  const ns0 = mainThreadNs(pid);
  const noisyRun = noisyTenant.run({
    host: server.host,
    port: server.port,
    token: tenant.noisyToken,
    seconds: DURATION_S + NOISY_LEAD_S,
    prefix: `n${name}-`,
  });
  await new Promise((r) => setTimeout(r, NOISY_LEAD_S * 1000));
  const beside = await quiet(server, tenant.quietToken, DURATION_S, `b${name}-`);
  const noisy = await noisyRun;
  const ns1 = mainThreadNs(pid);
  const creates = noisy.ok + beside.latencies.length - beside.failures.length;
  return {
    alone,
    beside,
    noisy,
    cpuPerCreate: (ns1 - ns0) / 1e3 / creates,
    createsPerCommit: creates / ((await commits(server)) - commits0),
  };
}

// ---- The figures ----------------------------------------------------------------------------------

const p = (values: number[], q: number) => quantile(values, q);
const pooledQuiet = (
  rs: RoundResult[],
  side: 'alone' | 'beside',
  figure: keyof QuietResult & ('latencies' | 'serverCpuAhead'),
) => rs.flatMap((r) => r[side][figure]).sort((a, b) => a - b);
const spread = (values: number[], digits = 2) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${fmt(median(sorted), digits)}, quartiles ${fmt(p(sorted, 0.25), digits)}–${fmt(p(sorted, 0.75), digits)}, range ${fmt(sorted[0]!, digits)}–${fmt(sorted.at(-1)!, digits)}`;
};

function describeRound(label: string, r: RoundResult): void {
  const perSecond = r.noisy.ok / r.noisy.seconds;
  console.log(
    `  ${label}: quiet alone p50 ${fmt(p(r.alone.latencies, 0.5), 1)} p99 ${fmt(p(r.alone.latencies, 0.99), 1)} ms; beside p50 ${fmt(p(r.beside.latencies, 0.5), 1)} p99 ${fmt(p(r.beside.latencies, 0.99), 1)} ms; noisy ${fmt(perSecond)} creates/s (${r.noisy.throttled} throttled, ${r.noisy.failed} failed${r.noisy.firstFailure && r.noisy.failed ? `: ${r.noisy.firstFailure}` : ''}); server main thread ${fmt(r.cpuPerCreate)} µs CPU a create, ${fmt(r.createsPerCommit, 1)} creates a commit; load ${loadAverage()}`,
  );
}

async function main(): Promise<void> {
  const dir = tempDir('typeplane-bench-fairness-types-');
  const typeFiles = [NOISY, QUIET].map((typeName) => {
    const file = join(dir, `${typeName.replaceAll('::', '-')}.json`);
    writeFileSync(file, JSON.stringify(widgetSchema(typeName, 'A tenant of the fairness benchmark.')));
    return file;
  });
  console.log(
    `fairness bench: quiet tenant 1 create / ${QUIET_EVERY_MS} ms, noisy tenant ${NOISY_CLIENTS} clients; ${DURATION_S} s phases, ${ROUNDS} rounds; fairness args: ${FAIRNESS_ARGS.join(' ') || '(defaults)'}; load average ${loadAverage()}`,
  );
  const noisyTenant = new NoisyTenant();
  const [on, off] = [await startTenant(typeFiles, true), await startTenant(typeFiles, false)];
  try {
    // Warm up both paths of both servers (the first requests compile what they run).
    for (const tenant of [on, off]) {
      await quiet(tenant.server, tenant.quietToken, 1, 'w-');
      await noisyTenant.run({
        host: tenant.server.host,
        port: tenant.server.port,
        token: tenant.noisyToken,
        seconds: 1,
        prefix: 'nw-',
      });
    }
    const results = { on: [] as RoundResult[], off: [] as RoundResult[] };
    for (let i = 0; i < ROUNDS; i++) {
      // Alternated, so that a change of the machine's load within a round favours neither.
      for (const tenant of i % 2 === 0 ? [on, off] : [off, on]) {
        const r = await round(tenant, noisyTenant, String(i));
        (tenant.fairness ? results.on : results.off).push(r);
        describeRound(`round ${i + 1} fairness ${tenant.fairness ? 'on ' : 'off'}`, r);
      }
    }
    summarise(results.on, results.off);
  } finally {
    noisyTenant.close();
    await Promise.all([on.server.stop(), off.server.stop()]);
  }
}

function summarise(on: RoundResult[], off: RoundResult[]): void {
  const p99Ratio = (rs: RoundResult[]) =>
    p(pooledQuiet(rs, 'beside', 'latencies'), 0.99) / p(pooledQuiet(rs, 'alone', 'latencies'), 0.99);
  const p50Ratio = (rs: RoundResult[]) =>
    p(pooledQuiet(rs, 'beside', 'latencies'), 0.5) / p(pooledQuiet(rs, 'alone', 'latencies'), 0.5);
  const roundP99Ratios = (rs: RoundResult[]) =>
    rs.map((r) => p(r.beside.latencies, 0.99) / p(r.alone.latencies, 0.99));
  const perSecond = (r: RoundResult) => r.noisy.ok / r.noisy.seconds;
  const kept = on.map((r, i) => perSecond(r) / perSecond(off[i]!));
  const cpuRatio = on.map((r, i) => off[i]!.cpuPerCreate / r.cpuPerCreate);
  const ahead = (rs: RoundResult[], side: 'alone' | 'beside') => {
    const values = pooledQuiet(rs, side, 'serverCpuAhead');
    return `p50 ${fmt(p(values, 0.5), 2)} p99 ${fmt(p(values, 0.99), 2)} ms`;
  };
  const p99On = p99Ratio(on);
  const keptMedian = median(kept);
  const failures = [...on, ...off].reduce(
    (n, r) => n + r.alone.failures.length + r.beside.failures.length,
    0,
  );
  console.log(`load average ${loadAverage()}`);
  console.log(
    `quiet p99 beside / alone, pooled over the rounds: fairness on ${fmt(p99On, 2)}x, off ${fmt(p99Ratio(off), 2)}x; p50 on ${fmt(p50Ratio(on), 2)}x, off ${fmt(p50Ratio(off), 2)}x`,
  );
  console.log(`  by round, on: ${spread(roundP99Ratios(on))}; off: ${spread(roundP99Ratios(off))}`);
  console.log(
    `  the server's main-thread CPU between a quiet create's sending and its answer: on alone ${ahead(on, 'alone')}, beside ${ahead(on, 'beside')}; off alone ${ahead(off, 'alone')}, beside ${ahead(off, 'beside')}`,
  );
  console.log(
    `noisy throughput with fairness / without, by round: ${spread(kept)} (on ${fmt(median(on.map(perSecond)))} creates/s, off ${fmt(median(off.map(perSecond)))})`,
  );
  console.log(
    `  server main-thread CPU a create, without / with fairness, by round: ${spread(cpuRatio)} (on ${fmt(median(on.map((r) => r.cpuPerCreate)))} µs, off ${fmt(median(off.map((r) => r.cpuPerCreate)))} µs); creates a commit: on ${fmt(median(on.map((r) => r.createsPerCommit)), 1)}, off ${fmt(median(off.map((r) => r.createsPerCommit)), 1)}`,
  );
  console.log(
    `verdict: quiet p99 beside a saturating tenant ${fmt(p99On, 2)}x alone (target <= 2x, moonshot <= 1.3x): ${verdict(p99On <= 2)}${p99On <= 1.3 ? ' (moonshot)' : ''}; noisy throughput ${fmt(keptMedian, 2)}x without fairness (target >= 0.9x): ${verdict(keptMedian >= 0.9)}; quiet requests failed: ${failures} (target 0): ${verdict(failures === 0)}`,
  );
}

if (process.env.FAIRNESS_NOISY === undefined) await runMain(main);
else
  for await (const line of createInterface({ input: process.stdin }))
    process.stdout.write(JSON.stringify(await noisyWorker(JSON.parse(line) as NoisyJob)) + '\n');
