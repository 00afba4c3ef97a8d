/**
 * Benchmark (not a test), issue #38: one tenant's load must not become another's latency. A quiet
 * tenant (one create every 20 ms, its own writer token scoped to its own type) alone, then beside a
 * saturating tenant (32 clients creating as fast as they can, its own token and type), on a server
 * with fairness on and on one with `--fairness off`, in one run. Prints the quiet tenant's p50/p99
 * beside the noisy one against alone (target ≤ 2×, moonshot ≤ 1.3×) and the noisy tenant's
 * throughput with fairness against without (target ≥ 0.9×).
 *
 *   npm run bench:fairness     (DURATION_S=5 ROUNDS=2 FAIRNESS_ARGS='--fairness-seats 8')
 *
 * Each server runs in a child process; the noisy clients run in a process of their own, so the quiet
 * tenant's clock here is not behind their work. Figures on a shared machine: say "under load".
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  ADMIN_TOKEN,
  Connection,
  cpuSeconds,
  fmt,
  loadAverage,
  quantile,
  runMain,
  startServer,
  tempDir,
  verdict,
  type Server,
} from './api-harness.js';
import { closedLoop } from './closed-loop.js';
import { widgetSchema } from '../test/helpers/widget-schema.js';

const DURATION_S = Number(process.env.DURATION_S ?? 5);
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 2));
const NOISY_CLIENTS = 32;
const QUIET_EVERY_MS = 20;
const FAIRNESS_ARGS = (process.env.FAIRNESS_ARGS ?? '').split(' ').filter(Boolean);
const NOISY = 'Bench::Fairness::Noisy';
const QUIET = 'Bench::Fairness::Quiet';

function body(name: string): string {
  return JSON.stringify({ desiredState: { Name: name, Size: 'M', Color: 'blue', Count: 1 } });
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

/** This file run again as the noisy tenant (FAIRNESS_NOISY_JOB), printing its result as one JSON line. */
function runNoisy(job: NoisyJob): Promise<NoisyResult> {
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url)],
    {
      env: { ...process.env, FAIRNESS_NOISY_JOB: JSON.stringify(job) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as NoisyResult) : reject(new Error(`noisy tenant exited ${code}`)),
    ),
  );
}

// ---- The quiet tenant, here -----------------------------------------------------------------------

/** One create every 20 ms for `seconds`, each timed from when it was due (a slow answer delays none). */
async function quiet(server: Server, token: string, seconds: number, prefix: string) {
  const idle: Connection[] = [];
  const all: Connection[] = [];
  const latencies: number[] = [];
  const failures: string[] = [];
  const path = `/v1/resources/${encodeURIComponent(QUIET)}`;
  const start = performance.now();
  const count = Math.floor((seconds * 1000) / QUIET_EVERY_MS);
  const sent: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * QUIET_EVERY_MS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const conn = idle.pop() ?? new Connection(server, token);
    if (!all.includes(conn)) all.push(conn);
    sent.push(
      conn.request('POST', path, body(`${prefix}${i}`)).then(
        (reply) => {
          latencies.push(performance.now() - due);
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
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), count: latencies.length, failures };
}

// ---- One server, one mode -------------------------------------------------------------------------

interface ModeResult {
  alone: { p50: number; p99: number };
  beside: { p50: number; p99: number };
  noisy: NoisyResult;
  quietFailures: number;
  serverCpu: number;
}

async function admin(server: Server, method: string, path: string, payload: unknown) {
  const reply = await new Connection(server, ADMIN_TOKEN).request(method, path, JSON.stringify(payload));
  if (reply.status >= 300) throw new Error(`${method} ${path}: HTTP ${reply.status} ${reply.text}`);
  return JSON.parse(reply.text) as Record<string, unknown>;
}

async function mode(typeFiles: string[], fairness: boolean, round: number): Promise<ModeResult> {
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
  try {
    const token = async (typeName: string) =>
      String((await admin(server, 'POST', '/v1/tokens', { role: 'writer', types: [typeName] })).token);
    const [noisyToken, quietToken] = [await token(NOISY), await token(QUIET)];
    // Warm up both paths (the first requests compile what they run).
    await quiet(server, quietToken, 1, `w${round}-`);
    await noisyWorkerWarmUp(server, noisyToken, round);
    const alone = await quiet(server, quietToken, DURATION_S, `a${round}-`);
    const cpu0 = cpuSeconds(server.child.pid);
    const noisyRun = runNoisy({
      host: server.host,
      port: server.port,
      token: noisyToken,
      seconds: DURATION_S + 1,
      prefix: `n${round}-`,
    });
    // The noisy tenant is at full pace before the quiet one measures.
    await new Promise((r) => setTimeout(r, 500));
    const beside = await quiet(server, quietToken, DURATION_S, `b${round}-`);
    const noisy = await noisyRun;
    const cpu1 = cpuSeconds(server.child.pid);
    return {
      alone,
      beside,
      noisy,
      quietFailures: alone.failures.length + beside.failures.length,
      serverCpu: (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / noisy.seconds,
    };
  } finally {
    await server.stop();
  }
}

async function noisyWorkerWarmUp(server: Server, token: string, round: number): Promise<void> {
  await noisyWorker({ host: server.host, port: server.port, token, seconds: 1, prefix: `nw${round}-` });
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
  const on: ModeResult[] = [];
  const off: ModeResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated, so that a change of the machine's load falls on both.
    for (const fairness of round % 2 === 0 ? [true, false] : [false, true]) {
      const r = await mode(typeFiles, fairness, round);
      (fairness ? on : off).push(r);
      console.log(
        `  round ${round + 1} fairness ${fairness ? 'on ' : 'off'}: quiet alone p50 ${fmt(r.alone.p50, 1)} ms p99 ${fmt(r.alone.p99, 1)} ms; beside p50 ${fmt(r.beside.p50, 1)} ms p99 ${fmt(r.beside.p99, 1)} ms; noisy ${fmt(r.noisy.ok / r.noisy.seconds)} creates/s (${r.noisy.throttled} throttled, ${r.noisy.failed} failed${r.noisy.firstFailure && r.noisy.failed ? `: ${r.noisy.firstFailure}` : ''}); quiet failures ${r.quietFailures}; server CPU ${fmt(r.serverCpu, 2)} cores`,
      );
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const ratio = (rs: ModeResult[], q: 'p50' | 'p99') => median(rs.map((r) => r.beside[q] / r.alone[q]));
  const throughput = (rs: ModeResult[]) => median(rs.map((r) => r.noisy.ok / r.noisy.seconds));
  const p99On = ratio(on, 'p99');
  const p50On = ratio(on, 'p50');
  const kept = throughput(on) / throughput(off);
  console.log(`load average ${loadAverage()}`);
  console.log(
    `quiet p99 beside / alone: fairness on ${fmt(p99On, 2)}x, off ${fmt(ratio(off, 'p99'), 2)}x; p50 on ${fmt(p50On, 2)}x, off ${fmt(ratio(off, 'p50'), 2)}x`,
  );
  console.log(
    `noisy throughput: fairness on ${fmt(throughput(on))} creates/s, off ${fmt(throughput(off))} creates/s: ${fmt(kept, 2)}x`,
  );
  const failures = [...on, ...off].reduce((n, r) => n + r.quietFailures, 0);
  console.log(
    `verdict: quiet p99 beside a saturating tenant ${fmt(p99On, 2)}x alone (target <= 2x, moonshot <= 1.3x): ${verdict(p99On <= 2)}${p99On <= 1.3 ? ' (moonshot)' : ''}; noisy throughput ${fmt(kept, 2)}x without fairness (target >= 0.9x): ${verdict(kept >= 0.9)}; quiet requests failed: ${failures} (target 0): ${verdict(failures === 0)}`,
  );
}

const noisyJob = process.env.FAIRNESS_NOISY_JOB;
if (noisyJob === undefined) await runMain(main);
else process.stdout.write(JSON.stringify(await noisyWorker(JSON.parse(noisyJob) as NoisyJob)) + '\n');
