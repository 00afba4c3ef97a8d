/**
 * @module What the API benchmarks against a bare server share (bench:api, bench:api:pg): the resource
 * type they create and read, server child processes and temp folders cleaned up at exit, a minimal
 * keep-alive HTTP/1.1 load generator, phases of a closed loop with the CPU each process used, the
 * interleaved rounds whose median ratio is the verdict, and the figures' formatting.
 *
 * Settings (environment): ROUNDS=3 DURATION_S=5 CLIENTS=16 WARMUP_S=2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { widgetSchema } from '../test/helpers/widget-schema.js';
import { closedLoop } from './closed-loop.js';

export const DURATION_S = Number(process.env.DURATION_S ?? 5);
/** Rounds of interleaved phases: a ratio is the median of the rounds' ratios, so a burst of other work on a shared machine moves one round, not the verdict. */
export const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 3));
export const WARMUP_S = Number(process.env.WARMUP_S ?? 2);
export const CLIENTS = Number(process.env.CLIENTS ?? 16);
/**
 * The Typeplane server's entry: dist/ as built, what the package ships and `typeplane serve` runs (the
 * benches' npm scripts build it first), whose CPU profiles name Typeplane's lines; with SRC=1, its
 * TypeScript through tsx, whose esbuild output names every function as it is made (keepNames: a
 * call for each closure a request makes; side by side, 3% more CPU per create than dist/).
 */
export const TYPEPLANE_MAIN = process.env.SRC === '1' ? 'src/cli/main.ts' : 'dist/cli/main.js';

export const root = fileURLToPath(new URL('../', import.meta.url));
/** The Typeplane server's admin token (TYPEPLANE_ADMIN_TOKEN), sent by every client. */
export const ADMIN_TOKEN = `tp_bench_${randomBytes(24).toString('base64url')}`;
const tsx = import.meta.resolve('tsx');
export const TYPE_NAME = 'Bench::Api::Widget';
export const TYPE_PATH = `/v1/resources/${encodeURIComponent(TYPE_NAME)}`;
export const TYPE_SCHEMA = widgetSchema(TYPE_NAME, 'A simple resource for the API benchmark.');

// ---- Child processes and temp folders: always cleaned up ----------------------------------------

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

export function cleanup(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });
}

/** Runs a benchmark's `main`, then `after` (a failure of either sets a failing exit code); the children and folders go at the end. */
export async function runMain(main: () => Promise<void>, after?: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (e) {
    console.error(e);
    process.exitCode = 1;
  } finally {
    cleanup();
    await after?.().catch((e: unknown) => console.error(e));
  }
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export interface Server {
  name: string;
  child: ChildProcess;
  host: string;
  port: number;
  /** The processes that do part of this server's work (its database's backends), if any: their pids now. */
  helpers?: () => Promise<number[]>;
  stop(): Promise<void>;
}

/** Spawn a server script under tsx and wait for its `listening on http://…` line. */
export async function startServer(
  name: string,
  script: string,
  args: string[],
  nodeArgs: string[] = [],
): Promise<Server> {
  if (!existsSync(join(root, script)))
    throw new Error(
      `${script} not found${script.startsWith('dist/') ? ': run `npm run build` first (or SRC=1 to run the sources through tsx)' : ''}`,
    );
  // A built script runs as a user runs it; TypeScript (the bare servers, SRC=1) through tsx.
  const loader = script.endsWith('.ts') ? ['--import', tsx] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, join(root, script), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TYPEPLANE_ADMIN_TOKEN: ADMIN_TOKEN },
  });
  children.add(child);
  let logs = '';
  child.stderr!.on('data', (d: Buffer) => {
    logs += d.toString();
    if (logs.length > 20_000) logs = logs.slice(-10_000);
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 30 s\n${logs}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(new URL(m[1]!));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening\n${logs}`));
    });
  });
  child.once('exit', (code, signal) => {
    if (children.has(child)) console.error(`!! ${name} exited unexpectedly (${code ?? signal})\n${logs}`);
  });
  return {
    name,
    child,
    host: url.hostname,
    port: Number(url.port),
    async stop() {
      children.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU seconds (user, system) a process has used so far, from /proc; NaN where there is no /proc. */
export function cpuSeconds(pid: number | undefined): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command name); clock ticks of 1/100 s.
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/** Bytes a process has caused to be written to storage so far (`write_bytes` of /proc/<pid>/io); NaN where unknown. */
export function diskWriteBytes(pid: number | undefined): number {
  try {
    const m = /^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * User-mode CPU seconds of the whole machine so far (all cores), from /proc/stat; NaN where there is
 * none. Kernel time is left out: the benchmark's own loopback traffic and disk write-back land there.
 */
export function machineUserSeconds(): number {
  try {
    const [user = 0, nice = 0] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1, 3)
      .map(Number);
    return (user + nice) / 100;
  } catch {
    return Number.NaN;
  }
}

// ---- HTTP load generator --------------------------------------------------------------------------

export interface Reply {
  status: number;
  text: string;
}

/**
 * One keep-alive HTTP/1.1 connection, one request at a time. Deliberately minimal (answers must carry
 * Content-Length, as fastify's do) so that the load generator spends little CPU: node:http costs
 * several times more per request and saturated its core before the bare server did.
 */
export class Connection {
  private socket: net.Socket | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;

  /** `token`: the one sent as `Authorization: Bearer` (the benchmarks' admin token by default). */
  constructor(
    private readonly server: Server,
    private readonly token = ADMIN_TOKEN,
  ) {}

  request(method: string, path: string, body?: string): Promise<Reply> {
    if (this.pending) return Promise.reject(new Error('connection busy'));
    const socket = this.open();
    // Both servers get the token (the bare one ignores it), so both parse the same bytes.
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${this.server.host}:${this.server.port}\r\nAuthorization: Bearer ${this.token}\r\n`;
    const promise = new Promise<Reply>((resolve, reject) => (this.pending = { resolve, reject }));
    socket.write(
      body === undefined
        ? `${head}\r\n`
        : `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return promise;
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect({ host: this.server.host, port: this.server.port, noDelay: true });
    this.buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (error: Error) => {
      if (this.socket === socket) this.socket = undefined;
      const pending = this.pending;
      this.pending = undefined;
      pending?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed by the server')));
    this.socket = socket;
    return socket;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headerEnd = this.buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = this.buffer.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const pending = this.pending;
    if (!length) {
      this.close();
      this.pending = undefined;
      pending?.reject(new Error(`answer without Content-Length: ${head}`));
      return;
    }
    const bodyEnd = headerEnd + 4 + Number(length[1]);
    if (this.buffer.length < bodyEnd) return;
    const reply = {
      status: Number(head.slice(9, 12)),
      text: this.buffer.toString('utf8', headerEnd + 4, bodyEnd),
    };
    this.buffer = this.buffer.subarray(bodyEnd);
    this.pending = undefined;
    if (/\r\nconnection: *close/i.test(head)) this.close();
    pending?.resolve(reply);
  }
}

export interface PhaseResult {
  ok: number;
  failed: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  serverCpu: number;
  /**
   * Of serverCpu, what the kernel spent on the server's behalf (its system calls: socket reads and
   * writes, file writes): how a side's cost splits between its own code and the machine's kernel.
   */
  serverSystemCpu: number;
  clientCpu: number;
  /** Bytes the server caused to be written to storage, per successful request. */
  diskBytesPerOk: number;
  /** Cores' worth of user-mode CPU used by other processes meanwhile. */
  otherCpu: number;
  /** Cores' worth of CPU the server's helpers (its database's backends) used; only for a server with helpers. */
  helperCpu?: number;
  firstFailure?: string;
  /** Every request's latency (ms), sorted. */
  latencies: number[];
}

/** Several phases of the same kind as one: their requests pooled. */
export function pooled(results: PhaseResult[]): PhaseResult {
  const sum = (f: (r: PhaseResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const seconds = sum((r) => r.seconds);
  const ok = sum((r) => r.ok);
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const firstFailure = results.find((r) => r.firstFailure !== undefined)?.firstFailure;
  return {
    ok,
    failed: sum((r) => r.failed),
    seconds,
    perSecond: ok / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpu: sum((r) => r.serverCpu * r.seconds) / seconds,
    serverSystemCpu: sum((r) => r.serverSystemCpu * r.seconds) / seconds,
    clientCpu: sum((r) => r.clientCpu * r.seconds) / seconds,
    otherCpu: Math.max(...results.map((r) => r.otherCpu)),
    diskBytesPerOk: sum((r) => r.diskBytesPerOk * r.ok) / ok,
    ...(results.every((r) => r.helperCpu !== undefined)
      ? { helperCpu: sum((r) => r.helperCpu! * r.seconds) / seconds }
      : {}),
    latencies,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * `clients` loops, each issuing one request at a time for `seconds`; `op` answers undefined on
 * success or a description of the failure. Rate = successes / wall time until the last reply.
 */
export async function phase(
  server: Server,
  seconds: number,
  op: (client: number, seq: number) => Promise<string | undefined>,
): Promise<PhaseResult> {
  const helpers0 = server.helpers && helpersCpu(await server.helpers());
  const cpu0 = cpuSeconds(server.child.pid);
  const disk0 = diskWriteBytes(server.child.pid);
  const machine0 = machineUserSeconds();
  const client0 = process.cpuUsage();
  const { ok, failed, firstFailure, latencies, seconds: wall } = await closedLoop(CLIENTS, seconds, op);
  const client = process.cpuUsage(client0);
  const cpu1 = cpuSeconds(server.child.pid);
  const machine1 = machineUserSeconds();
  const helpers = helpers0 && helpersUsed(helpers0, await server.helpers!());
  const serverCpu = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / wall;
  const clientCpu = (client.user + client.system) / 1e6 / wall;
  const ownUser = (cpu1.user - cpu0.user + client.user / 1e6 + (helpers?.user ?? 0)) / wall;
  return {
    ok,
    failed,
    seconds: wall,
    perSecond: ok / wall,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpu,
    serverSystemCpu: (cpu1.system - cpu0.system) / wall,
    clientCpu,
    otherCpu: Math.max(0, (machine1 - machine0) / wall - ownUser),
    diskBytesPerOk: (diskWriteBytes(server.child.pid) - disk0) / ok,
    ...(helpers ? { helperCpu: (helpers.user + helpers.system) / wall } : {}),
    latencies,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

/** Each helper's CPU seconds so far, by pid. */
function helpersCpu(pids: number[]): Map<number, { user: number; system: number }> {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

/**
 * The CPU the helpers used between `before` and now (`pids`): one that started meanwhile counts
 * from zero; one that exited meanwhile is lost (a pool keeps its connections while it is busy).
 */
function helpersUsed(
  before: Map<number, { user: number; system: number }>,
  pids: number[],
): { user: number; system: number } {
  let user = 0;
  let system = 0;
  for (const [pid, now] of helpersCpu(pids)) {
    const then = before.get(pid) ?? { user: 0, system: 0 };
    user += now.user - then.user;
    system += now.system - then.system;
  }
  return { user, system };
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** NO_CLIENT_TOKENS=1: creates carry none (what indexing them costs a create shows by difference). */
const CLIENT_TOKENS = process.env.NO_CLIENT_TOKENS !== '1';

export function desired(name: string, seq: number): string {
  return JSON.stringify({
    desiredState: { Name: name, Size: 'M', Color: 'blue', Count: seq },
    ...(CLIENT_TOKENS ? { clientToken: `tok-${name}` } : {}),
  });
}

/** A create that counts only when the answer is a SUCCESS ProgressEvent (with ?wait, or the bare server's synchronous insert). */
export function createOp(
  conns: Connection[],
  prefix: string,
  query: string,
  created: string[] | undefined,
  accept: (status: string) => boolean,
) {
  return async (client: number, seq: number): Promise<string | undefined> => {
    const name = `${prefix}${client}-${seq}`;
    const reply = await conns[client]!.request('POST', `${TYPE_PATH}${query}`, desired(name, seq));
    if (reply.status !== 202) return `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
    const status =
      (JSON.parse(reply.text) as { progressEvent?: { operationStatus?: string } }).progressEvent
        ?.operationStatus ?? '(none)';
    if (!accept(status)) return `operationStatus ${status}: ${reply.text.slice(0, 300)}`;
    created?.push(name);
    return undefined;
  };
}

export function readOp(conns: Connection[], names: string[]) {
  let x = 12345;
  return async (client: number): Promise<string | undefined> => {
    x = (x * 1103515245 + 12345) % 2147483648;
    const name = names[x % names.length]!;
    const reply = await conns[client]!.request('GET', `${TYPE_PATH}/${name}`);
    if (reply.status !== 200) return `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
    return undefined;
  };
}

export function connections(server: Server): Connection[] {
  return Array.from({ length: CLIENTS }, () => new Connection(server));
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
export const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : 'n/a');

export function describe(label: string, r: PhaseResult): void {
  console.log(
    `  ${label.padEnd(34)} ${fmt(r.perSecond).padStart(7)}/s  ok ${fmt(r.ok)} failed ${fmt(r.failed)}  p50 ${fmt(r.p50, 1)} ms p99 ${fmt(r.p99, 1)} ms  cpu server ${pct(r.serverCpu)} (system ${pct(r.serverSystemCpu)})${r.helperCpu === undefined ? '' : ` db ${pct(r.helperCpu)}`} client ${pct(r.clientCpu)} other ${pct(r.otherCpu)}`,
  );
  if (r.firstFailure) console.log(`    first failure: ${r.firstFailure}`);
}

// ---- Rounds and the summary --------------------------------------------------------------------------

export type Op = (client: number, seq: number) => Promise<string | undefined>;

export const succeeded = (status: string) => status === 'SUCCESS';

/** Creates (?wait=10, SUCCESS) then reads of what they made, for WARMUP_S each: the servers' code paths warm, their tables not empty. */
export async function warmUp(server: Server, conns: Connection[]): Promise<void> {
  const warm: string[] = [];
  await phase(server, WARMUP_S, createOp(conns, 'w', '?wait=10', warm, succeeded));
  await phase(server, WARMUP_S, readOp(conns, warm));
}

/**
 * ROUNDS rounds of one phase on each server; who goes first alternates, so a drift in the machine's
 * speed favours neither. Both servers run side by side (the idle one costs nothing), so whatever else
 * the machine does at the time weighs on both sides alike.
 */
export async function interleaved(
  servers: { tp: Server; bare: Server },
  tpOp: (round: number) => Op,
  bareOp: (round: number) => Op,
  tpLabel: string,
  bareLabel: string,
  /** What the two sides are called in the lines printed. */
  names = { tp: 'typeplane', bare: 'bare' },
  /** Which rounds to run (their numbers decide who goes first): all ROUNDS by default. */
  which: readonly number[] = Array.from({ length: ROUNDS }, (_, i) => i),
): Promise<{ tp: PhaseResult; bare: PhaseResult }[]> {
  const rounds: { tp: PhaseResult; bare: PhaseResult }[] = [];
  for (const round of which) {
    const runs = { tp: undefined as PhaseResult | undefined, bare: undefined as PhaseResult | undefined };
    for (const side of round % 2 === 0 ? (['tp', 'bare'] as const) : (['bare', 'tp'] as const)) {
      const r = await phase(servers[side], DURATION_S, side === 'tp' ? tpOp(round) : bareOp(round));
      describe(`${side === 'tp' ? `${names.tp} ${tpLabel}` : `${names.bare} ${bareLabel}`} #${round + 1}`, r);
      runs[side] = r;
    }
    rounds.push({ tp: runs.tp!, bare: runs.bare! });
  }
  return rounds;
}

/** Both servers' keep-alive connections, one per client. */
export interface Sides<T> {
  tp: T;
  bare: T;
}

/** ROUNDS rounds of creates (?wait=10, each a SUCCESS) on each server; what each created goes into `created`. */
export function createRounds(
  servers: Sides<Server>,
  conns: Sides<Connection[]>,
  created: Sides<string[]>,
  which?: readonly number[],
): Promise<Sides<PhaseResult>[]> {
  return interleaved(
    servers,
    (round) => createOp(conns.tp, `c${round}-`, '?wait=10', created.tp, succeeded),
    (round) => createOp(conns.bare, `c${round}-`, '?wait=10', created.bare, succeeded),
    'creates, ?wait=10, SUCCESS',
    'creates (one INSERT)',
    undefined,
    which,
  );
}

/** ROUNDS rounds of reads, on each server, of what it `created`. */
export function readRounds(
  servers: Sides<Server>,
  conns: Sides<Connection[]>,
  created: Sides<string[]>,
  which?: readonly number[],
): Promise<Sides<PhaseResult>[]> {
  return interleaved(
    servers,
    () => readOp(conns.tp, created.tp),
    () => readOp(conns.bare, created.bare),
    'reads',
    'reads (one SELECT)',
    undefined,
    which,
  );
}

/** The machine's load averages (1, 5 and 15 minutes), as printed. */
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
export const roundsOf = (ratios: number[]) => `(rounds ${ratios.map((r) => fmt(r, 2)).join(', ')})`;

/** One line of a summary table: a label, three figures, a note. */
export function row(label: string, a: string, b: string, c: string, d: string): void {
  console.log(`${label.padEnd(38)}${a.padStart(12)}${b.padStart(12)}${c.padStart(10)}  ${d}`);
}

export const both = (a: number, b: number, f: (n: number) => string) => `${f(a)} / ${f(b)}`;

/** CPU per request in µs: steadier than rates on a shared VM (CPU time stolen by the host is not charged to the process). */
export const usPer = (cpu: number, r: PhaseResult) => (cpu / r.perSecond) * 1e6;

/** One server's creates and reads. */
export interface Pair {
  create: PhaseResult;
  read: PhaseResult;
}

/** A figure of both servers, the median of the rounds' ratios, and the verdict on its target. */
export function targetRow(
  label: string,
  typeplane: string,
  bare: string,
  ratios: number[],
  target: { text: string; met: (ratio: number) => boolean; moonshot?: string },
): void {
  const ratio = median(ratios);
  const moonshot = target.moonshot === undefined ? '' : ` (moonshot ${target.moonshot})`;
  row(
    label,
    typeplane,
    bare,
    fmt(ratio, 2),
    `${target.text} ${verdict(target.met(ratio))}${moonshot} ${roundsOf(ratios)}`,
  );
}

/** Latency p50 / p99 of the creates and of the reads on both servers. */
export function latencyRows(tp: Pair, bare: Pair): void {
  const ms = (n: number) => fmt(n, 1);
  for (const kind of ['create', 'read'] as const)
    row(
      `${kind} latency p50 / p99 (ms)`,
      both(tp[kind].p50, tp[kind].p99, ms),
      both(bare[kind].p50, bare[kind].p99, ms),
      '',
      '',
    );
}

/** A share of CPU (100% = one core) during the creates / the reads on both servers; `of` says whose. */
export function shareRow(
  label: string,
  tp: Pair,
  bare: Pair,
  of: (r: PhaseResult) => number,
  note = '',
): void {
  row(label, both(of(tp.create), of(tp.read), pct), both(of(bare.create), of(bare.read), pct), '', note);
}

/** The most CPU other processes used in any of `phases`, and whether that makes the figures noisy. */
/**
 * Of each side's server CPU per create and per read, the kernel's part (system calls), in µs: with
 * it, two machines' figures can be compared on what each side's own code costs.
 */
export function kernelRow(tp: Pair, bare: Pair): void {
  const us = (r: PhaseResult) => fmt((r.serverSystemCpu / r.perSecond) * 1e6);
  row(
    '  …of which in the kernel (us)',
    `${us(tp.create)} / ${us(tp.read)}`,
    `${us(bare.create)} / ${us(bare.read)}`,
    '',
    '(system calls: socket and file writes)',
  );
}

export function otherCpuRow(phases: PhaseResult[]): void {
  const other = Math.max(...phases.map((r) => r.otherCpu));
  row(
    "other processes' CPU, worst phase",
    pct(other),
    '',
    '',
    other > 0.2 ? 'BUSY machine: other processes competed, figures are noisy' : '(quiet machine)',
  );
}
