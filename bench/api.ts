/**
 * Benchmark (not a test): the resource API over HTTP against a bare fastify + better-sqlite3 server
 * doing the least the same API shape needs, in one run; then list-page latency at 1k and at 200k
 * stored resources. Prints figures.
 *
 *   npm run bench:api            (ROUNDS=3 DURATION_S=5 CLIENTS=16 WARMUP_S=2 LIST_SAMPLES=1000 LIST_BIG=200000)
 *   PROFILE=1 npm run bench:api  (also writes --cpu-prof profiles of each Typeplane server to a temp folder;
 *                                  the main thread's is the largest file, the other is tsx's loader thread)
 *
 * This process is the load generator (one keep-alive connection per client, a minimal HTTP/1.1 client); each
 * server runs in a child process so that it has a core of its own on a 2-core machine. The CPU that
 * each side used is printed, so a saturated load generator shows.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store/index.js';
import { encodeCursor } from '../src/store/cursor.js';
import { closedLoop } from './closed-loop.js';

const DURATION_S = Number(process.env.DURATION_S ?? 5);
/** Rounds of interleaved phases: a ratio is the median of the rounds' ratios, so a burst of other work on a shared machine moves one round, not the verdict. */
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 3));
const WARMUP_S = Number(process.env.WARMUP_S ?? 2);
const CLIENTS = Number(process.env.CLIENTS ?? 16);
const LIST_SAMPLES = Number(process.env.LIST_SAMPLES ?? 1000);
const LIST_BIG = Number(process.env.LIST_BIG ?? 200_000);
const LIST_SMALL = 1_000;
const PROFILE = process.env.PROFILE === '1';
const profileDir = join(tmpdir(), `typeplane-bench-api-profiles-${process.pid}`);

const root = fileURLToPath(new URL('../', import.meta.url));
/** The Typeplane server's admin token (TYPEPLANE_ADMIN_TOKEN), sent by every client. */
const ADMIN_TOKEN = `tp_bench_${randomBytes(24).toString('base64url')}`;
const tsx = import.meta.resolve('tsx');
const TYPE_NAME = 'Bench::Api::Widget';
const TYPE_PATH = `/v1/resources/${encodeURIComponent(TYPE_NAME)}`;
const TYPE_SCHEMA = {
  typeName: TYPE_NAME,
  description: 'A simple resource for the API benchmark.',
  properties: {
    Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' },
    Size: { type: 'string', enum: ['S', 'M', 'L'], default: 'S' },
    Color: { type: 'string' },
    Count: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
};

// ---- Child processes and temp folders: always cleaned up ----------------------------------------

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

function cleanup(): void {
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

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

interface Server {
  name: string;
  child: ChildProcess;
  host: string;
  port: number;
  stop(): Promise<void>;
}

/** Spawn a server script under tsx and wait for its `listening on http://…` line. */
async function startServer(
  name: string,
  script: string,
  args: string[],
  nodeArgs: string[] = [],
): Promise<Server> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', tsx, join(root, script), ...args], {
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

function startTypeplane(dataDir: string, typeFile: string, profileName?: string): Promise<Server> {
  const nodeArgs: string[] = [];
  if (PROFILE && profileName) {
    const dir = join(profileDir, profileName);
    mkdirSync(dir, { recursive: true });
    // No --cpu-prof-name: tsx's loader thread writes a profile too, and one name would let it overwrite the main thread's.
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  return startServer(
    'typeplane',
    'src/cli/main.ts',
    ['serve', '--port', '0', '--data-dir', dataDir, '--types', typeFile, '--log-level', 'warn'],
    nodeArgs,
  );
}

/** CPU seconds (user, system) a process has used so far, from /proc; NaN where there is no /proc. */
function cpuSeconds(pid: number | undefined): { user: number; system: number } {
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
function diskWriteBytes(pid: number | undefined): number {
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
function machineUserSeconds(): number {
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

interface Reply {
  status: number;
  text: string;
}

/**
 * One keep-alive HTTP/1.1 connection, one request at a time. Deliberately minimal (answers must carry
 * Content-Length, as fastify's do) so that the load generator spends little CPU: node:http costs
 * several times more per request and saturated its core before the bare server did.
 */
class Connection {
  private socket: net.Socket | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly server: Server) {}

  request(method: string, path: string, body?: string): Promise<Reply> {
    if (this.pending) return Promise.reject(new Error('connection busy'));
    const socket = this.open();
    // Both servers get the token (the bare one ignores it), so both parse the same bytes.
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${this.server.host}:${this.server.port}\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n`;
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

interface PhaseResult {
  ok: number;
  failed: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  serverCpu: number;
  clientCpu: number;
  /** Bytes the server caused to be written to storage, per successful request. */
  diskBytesPerOk: number;
  /** Cores' worth of user-mode CPU used by other processes meanwhile. */
  otherCpu: number;
  firstFailure?: string;
  /** Every request's latency (ms), sorted. */
  latencies: number[];
}

/** Several phases of the same kind as one: their requests pooled. */
function pooled(results: PhaseResult[]): PhaseResult {
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
    clientCpu: sum((r) => r.clientCpu * r.seconds) / seconds,
    otherCpu: Math.max(...results.map((r) => r.otherCpu)),
    diskBytesPerOk: sum((r) => r.diskBytesPerOk * r.ok) / ok,
    latencies,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * `clients` loops, each issuing one request at a time for `seconds`; `op` answers undefined on
 * success or a description of the failure. Rate = successes / wall time until the last reply.
 */
async function phase(
  server: Server,
  seconds: number,
  op: (client: number, seq: number) => Promise<string | undefined>,
): Promise<PhaseResult> {
  const cpu0 = cpuSeconds(server.child.pid);
  const disk0 = diskWriteBytes(server.child.pid);
  const machine0 = machineUserSeconds();
  const client0 = process.cpuUsage();
  const { ok, failed, firstFailure, latencies, seconds: wall } = await closedLoop(CLIENTS, seconds, op);
  const client = process.cpuUsage(client0);
  const cpu1 = cpuSeconds(server.child.pid);
  const serverCpu = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / wall;
  const clientCpu = (client.user + client.system) / 1e6 / wall;
  const ownUser = (cpu1.user - cpu0.user + client.user / 1e6) / wall;
  return {
    ok,
    failed,
    seconds: wall,
    perSecond: ok / wall,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpu,
    clientCpu,
    otherCpu: Math.max(0, (machineUserSeconds() - machine0) / wall - ownUser),
    diskBytesPerOk: (diskWriteBytes(server.child.pid) - disk0) / ok,
    latencies,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function desired(name: string, seq: number): string {
  return JSON.stringify({
    desiredState: { Name: name, Size: 'M', Color: 'blue', Count: seq },
    clientToken: `tok-${name}`,
  });
}

/** A create that counts only when the answer is a SUCCESS ProgressEvent (with ?wait, or the bare server's synchronous insert). */
function createOp(
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

function readOp(conns: Connection[], names: string[]) {
  let x = 12345;
  return async (client: number): Promise<string | undefined> => {
    x = (x * 1103515245 + 12345) % 2147483648;
    const name = names[x % names.length]!;
    const reply = await conns[client]!.request('GET', `${TYPE_PATH}/${name}`);
    if (reply.status !== 200) return `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
    return undefined;
  };
}

function connections(server: Server): Connection[] {
  return Array.from({ length: CLIENTS }, () => new Connection(server));
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : 'n/a');

function describe(label: string, r: PhaseResult): void {
  console.log(
    `  ${label.padEnd(34)} ${fmt(r.perSecond).padStart(7)}/s  ok ${fmt(r.ok)} failed ${fmt(r.failed)}  p50 ${fmt(r.p50, 1)} ms p99 ${fmt(r.p99, 1)} ms  cpu server ${pct(r.serverCpu)} client ${pct(r.clientCpu)} other ${pct(r.otherCpu)}`,
  );
  if (r.firstFailure) console.log(`    first failure: ${r.firstFailure}`);
}

// ---- Throughput ------------------------------------------------------------------------------------

interface Throughput {
  tp: {
    createWait: PhaseResult;
    accepted: PhaseResult;
    drainSeconds: number;
    failedAfterDrain: boolean;
    read: PhaseResult;
  };
  bare: { create: PhaseResult; read: PhaseResult };
  /** Each round's typeplane/bare ratio. */
  createRatios: number[];
  readRatios: number[];
}

/** Every operation accepted is terminal once none is PENDING / IN_PROGRESS / CANCEL_IN_PROGRESS. */
async function drain(conn: Connection): Promise<{ seconds: number; failed: boolean }> {
  const start = performance.now();
  for (;;) {
    const reply = await conn.request(
      'GET',
      '/v1/requests?status=PENDING,IN_PROGRESS,CANCEL_IN_PROGRESS&maxResults=1',
    );
    if (reply.status !== 200) throw new Error(`listing active requests: HTTP ${reply.status} ${reply.text}`);
    if ((JSON.parse(reply.text) as { progressEvents: unknown[] }).progressEvents.length === 0) break;
    if (performance.now() - start > 300_000)
      throw new Error('accepted operations did not finish within 300 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - start) / 1000;
  const failedReply = await conn.request('GET', '/v1/requests?status=FAILED&maxResults=1');
  const failed = (JSON.parse(failedReply.text) as { progressEvents: unknown[] }).progressEvents.length > 0;
  return { seconds, failed };
}

/**
 * Both servers run side by side (the idle one costs nothing) and the phases alternate between them,
 * so that whatever else the machine does at the time weighs on both sides alike.
 */
async function throughput(typeFile: string): Promise<Throughput> {
  const tpServer = await startTypeplane(tempDir('typeplane-bench-api-'), typeFile, 'throughput');
  const bareDir = tempDir('typeplane-bench-bare-');
  const bareServer = await startServer('bare', 'bench/bare-server.ts', [
    '--db',
    join(bareDir, 'bare.db'),
    '--port',
    '0',
  ]);
  const tpConns = connections(tpServer);
  const bareConns = connections(bareServer);
  try {
    console.log(
      `typeplane on http://${tpServer.host}:${tpServer.port} (pid ${tpServer.child.pid}), bare on http://${bareServer.host}:${bareServer.port} (pid ${bareServer.child.pid})`,
    );
    const success = (s: string) => s === 'SUCCESS';
    for (const [server, conns] of [
      [tpServer, tpConns],
      [bareServer, bareConns],
    ] as const) {
      const warm: string[] = [];
      await phase(server, WARMUP_S, createOp(conns, 'w', '?wait=10', warm, success));
      await phase(server, WARMUP_S, readOp(conns, warm));
    }

    type Op = (client: number, seq: number) => Promise<string | undefined>;
    /** ROUNDS rounds of one phase on each server; who goes first alternates, so a drift in the machine's speed favours neither. */
    const interleaved = async (
      tpOp: (round: number) => Op,
      bareOp: (round: number) => Op,
      tpLabel: string,
      bareLabel: string,
    ) => {
      const rounds: { tp: PhaseResult; bare: PhaseResult }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const runs = { tp: undefined as PhaseResult | undefined, bare: undefined as PhaseResult | undefined };
        for (const side of round % 2 === 0 ? (['tp', 'bare'] as const) : (['bare', 'tp'] as const)) {
          const r = await phase(
            side === 'tp' ? tpServer : bareServer,
            DURATION_S,
            side === 'tp' ? tpOp(round) : bareOp(round),
          );
          describe(`${side === 'tp' ? `typeplane ${tpLabel}` : `bare ${bareLabel}`} #${round + 1}`, r);
          runs[side] = r;
        }
        rounds.push({ tp: runs.tp!, bare: runs.bare! });
      }
      return rounds;
    };
    const tpCreated: string[] = [];
    const bareCreated: string[] = [];
    const creates = await interleaved(
      (round) => createOp(tpConns, `c${round}-`, '?wait=10', tpCreated, success),
      (round) => createOp(bareConns, `c${round}-`, '?wait=10', bareCreated, success),
      'creates, ?wait=10, SUCCESS',
      'creates (one INSERT)',
    );
    const accepted = await phase(
      tpServer,
      DURATION_S,
      createOp(tpConns, 'n', '', undefined, () => true),
    );
    const drained = await drain(tpConns[0]!);
    describe('typeplane creates, no wait, 202', accepted);
    console.log(
      `    all accepted operations terminal ${fmt(drained.seconds, 2)} s after the load stopped${drained.failed ? ' (some FAILED!)' : ', none FAILED'}`,
    );
    const reads = await interleaved(
      () => readOp(tpConns, tpCreated),
      () => readOp(bareConns, bareCreated),
      'reads',
      'reads (one SELECT)',
    );
    const createWait = pooled(creates.map((r) => r.tp));
    const read = pooled(reads.map((r) => r.tp));
    const bareCreate = pooled(creates.map((r) => r.bare));
    const bareRead = pooled(reads.map((r) => r.bare));
    return {
      tp: { createWait, accepted, drainSeconds: drained.seconds, failedAfterDrain: drained.failed, read },
      bare: { create: bareCreate, read: bareRead },
      createRatios: creates.map((r) => r.tp.perSecond / r.bare.perSecond),
      readRatios: reads.map((r) => r.tp.perSecond / r.bare.perSecond),
    };
  } finally {
    for (const c of [...tpConns, ...bareConns]) c.close();
    await Promise.all([tpServer.stop(), bareServer.stop()]);
  }
}

// ---- List-page latency ----------------------------------------------------------------------------

interface ListResult {
  count: number;
  populateSeconds: number;
  early: { p50: number; p99: number };
  deep: { p50: number; p99: number };
}

const identifierAt = (i: number) => `r-${String(i).padStart(7, '0')}`;

/** Create the store's schema through the store itself, then fill `resources` and the state provider's `kv` in one transaction. */
async function populate(dataDir: string, count: number): Promise<number> {
  const t = performance.now();
  const path = join(dataDir, 'typeplane.db');
  await (await openSqliteStore(path)).close();
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const putResource = db.prepare(
      'INSERT INTO resources (type_name, identifier, properties_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    const putKv = db.prepare('INSERT INTO kv (namespace, key, value_json, written_by) VALUES (?, ?, ?, ?)');
    const now = new Date().toISOString();
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const name = identifierAt(i);
        const json = JSON.stringify({ Name: name, Size: 'M', Color: 'blue', Count: i });
        putResource.run(TYPE_NAME, name, json, now, now);
        putKv.run(TYPE_NAME, name, json, `populate-${i}`);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return (performance.now() - t) / 1000;
}

async function listLatency(typeFile: string, count: number): Promise<ListResult> {
  const dataDir = tempDir('typeplane-bench-list-');
  const populateSeconds = await populate(dataDir, count);
  const server = await startTypeplane(dataDir, typeFile, `list-${count}`);
  const conn = new Connection(server);
  try {
    // Cursors as the store issues them: after item 100 (the second page) and after the middle item.
    const positions = { early: 99, deep: Math.floor(count / 2) };
    const path = (after: number) =>
      `${TYPE_PATH}?maxResults=100&nextToken=${encodeCursor('resources', identifierAt(after))}`;
    const samples = { early: [] as number[], deep: [] as number[] };
    const once = async (which: 'early' | 'deep') => {
      const t = performance.now();
      const reply = await conn.request('GET', path(positions[which]));
      const ms = performance.now() - t;
      if (reply.status !== 200)
        throw new Error(`list page: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
      const body = JSON.parse(reply.text) as { resourceDescriptions: { identifier: string }[] };
      const first = body.resourceDescriptions[0]?.identifier;
      if (body.resourceDescriptions.length !== 100 || first !== identifierAt(positions[which] + 1)) {
        throw new Error(
          `list page after ${positions[which]}: ${body.resourceDescriptions.length} items starting at ${first}`,
        );
      }
      return ms;
    };
    for (let i = 0; i < 50; i++) {
      await once('early');
      await once('deep');
    }
    // Alternate so that both positions share whatever else the machine does.
    for (let i = 0; i < LIST_SAMPLES; i++) {
      samples.early.push(await once('early'));
      samples.deep.push(await once('deep'));
    }
    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
    };
    const result = { count, populateSeconds, early: stats(samples.early), deep: stats(samples.deep) };
    console.log(
      `  ${fmt(count).padStart(7)} resources (populated in ${fmt(populateSeconds, 1)} s): page after #100 p50 ${fmt(result.early.p50, 2)} ms p99 ${fmt(result.early.p99, 2)} ms; page after #${fmt(positions.deep)} p50 ${fmt(result.deep.p50, 2)} ms p99 ${fmt(result.deep.p99, 2)} ms`,
    );
    return result;
  } finally {
    conn.close();
    await server.stop();
  }
}

// ---- Run --------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const cores = availableParallelism();
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  const loadBefore = load();
  console.log(
    `API benchmark: ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${loadBefore}`,
  );
  console.log(
    `${CLIENTS} concurrent keep-alive clients, ${ROUNDS} rounds of ${DURATION_S} s phases after ${WARMUP_S} s warm-up; servers in child processes\n`,
  );
  const typeDir = tempDir('typeplane-bench-type-');
  const typeFile = join(typeDir, 'widget.json');
  writeFileSync(typeFile, JSON.stringify(TYPE_SCHEMA, null, 2));

  console.log(
    'throughput, Typeplane (state provider) and bare fastify + better-sqlite3, phases alternating:',
  );
  const { tp, bare, createRatios, readRatios } = await throughput(typeFile);
  console.log(
    `\nlist page latency (GET ${TYPE_PATH}?maxResults=100&nextToken=…, one client, ${LIST_SAMPLES} samples per position):`,
  );
  const small = await listLatency(typeFile, LIST_SMALL);
  const big = await listLatency(typeFile, LIST_BIG);

  const createRatio = median(createRatios);
  const readRatio = median(readRatios);
  const rounds = (ratios: number[]) => `(rounds ${ratios.map((r) => fmt(r, 2)).join(', ')})`;
  const p50Ratio = big.deep.p50 / small.deep.p50;
  const p99Ratio = big.deep.p99 / small.deep.p99;
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  const row = (label: string, a: string, b: string, c: string, d: string) =>
    console.log(`${label.padEnd(38)}${a.padStart(12)}${b.padStart(12)}${c.padStart(10)}  ${d}`);
  const both = (a: number, b: number, f: (n: number) => string) => `${f(a)} / ${f(b)}`;
  const ms = (n: number) => fmt(n, 1);

  console.log(
    `\n==== summary: ${cores} cores, Node ${process.version}, ${CLIENTS} clients, ${ROUNDS} rounds of ${DURATION_S} s phases, load average before ${loadBefore}, after ${load()} ====`,
  );
  row('throughput (rounds pooled)', 'typeplane', 'bare', 'ratio', "target: median of the rounds' ratios");
  row(
    'creates/s (SUCCESS, ?wait=10)',
    fmt(tp.createWait.perSecond),
    fmt(bare.create.perSecond),
    fmt(createRatio, 2),
    `>= 0.5 ${verdict(createRatio >= 0.5)} ${rounds(createRatios)}`,
  );
  row(
    'reads/s',
    fmt(tp.read.perSecond),
    fmt(bare.read.perSecond),
    fmt(readRatio, 2),
    `>= 0.5 ${verdict(readRatio >= 0.5)} ${rounds(readRatios)}`,
  );
  row(
    'creates accepted/s (202, no wait)',
    fmt(tp.accepted.perSecond),
    fmt(bare.create.perSecond),
    fmt(tp.accepted.perSecond / bare.create.perSecond, 2),
    '',
  );
  const effective = tp.accepted.ok / (tp.accepted.seconds + tp.drainSeconds);
  row(
    '  …all of them terminal after (s)',
    fmt(tp.drainSeconds, 2),
    '',
    '',
    `=> ${fmt(effective)} completed/s overall`,
  );
  row(
    'create latency p50 / p99 (ms)',
    both(tp.createWait.p50, tp.createWait.p99, ms),
    both(bare.create.p50, bare.create.p99, ms),
    '',
    '',
  );
  row(
    'read latency p50 / p99 (ms)',
    both(tp.read.p50, tp.read.p99, ms),
    both(bare.read.p50, bare.read.p99, ms),
    '',
    '',
  );
  row(
    'server CPU, creates / reads',
    both(tp.createWait.serverCpu, tp.read.serverCpu, pct),
    both(bare.create.serverCpu, bare.read.serverCpu, pct),
    '',
    '(100% = one core)',
  );
  // Steadier than rates on a shared VM: CPU time stolen by the host is not charged to the process.
  const us = (r: PhaseResult) => fmt((r.serverCpu / r.perSecond) * 1e6);
  row(
    'server CPU per create / read (us)',
    `${us(tp.createWait)} / ${us(tp.read)}`,
    `${us(bare.create)} / ${us(bare.read)}`,
    fmt(
      tp.createWait.serverCpu / tp.createWait.perSecond / (bare.create.serverCpu / bare.create.perSecond),
      2,
    ),
    '(ratio: creates, bare = 1)',
  );
  row(
    'load-generator CPU, creates / reads',
    both(tp.createWait.clientCpu, tp.read.clientCpu, pct),
    both(bare.create.clientCpu, bare.read.clientCpu, pct),
    '',
    '',
  );
  const kb = (n: number) => `${fmt(n / 1024, 1)} KiB`;
  row(
    'disk writes per create (server)',
    kb(tp.createWait.diskBytesPerOk),
    kb(bare.create.diskBytesPerOk),
    fmt(tp.createWait.diskBytesPerOk / bare.create.diskBytesPerOk, 1),
    '(WAL + checkpoints)',
  );
  const other = Math.max(
    ...[tp.createWait, tp.accepted, tp.read, bare.create, bare.read].map((r) => r.otherCpu),
  );
  row(
    "other processes' CPU, worst phase",
    pct(other),
    '',
    '',
    other > 0.2 ? 'BUSY machine: other processes competed, figures are noisy' : '(quiet machine)',
  );
  console.log('');
  row('list page, maxResults=100 (ms)', `${fmt(LIST_SMALL)}`, `${fmt(LIST_BIG)}`, 'ratio', 'target');
  row(
    '  early page (after #100) p50',
    fmt(small.early.p50, 2),
    fmt(big.early.p50, 2),
    fmt(big.early.p50 / small.early.p50, 2),
    '',
  );
  row(
    '  early page (after #100) p99',
    fmt(small.early.p99, 2),
    fmt(big.early.p99, 2),
    fmt(big.early.p99 / small.early.p99, 2),
    '',
  );
  row(
    '  middle page p50',
    fmt(small.deep.p50, 2),
    fmt(big.deep.p50, 2),
    fmt(p50Ratio, 2),
    `< 1.5 ${verdict(p50Ratio < 1.5)}`,
  );
  row(
    '  middle page p99',
    fmt(small.deep.p99, 2),
    fmt(big.deep.p99, 2),
    fmt(p99Ratio, 2),
    `< 1.5 ${verdict(p99Ratio < 1.5)}`,
  );
  row(
    `  middle / early page p50, ${fmt(LIST_BIG)}`,
    '',
    '',
    fmt(big.deep.p50 / big.early.p50, 2),
    '(1.0 = position does not matter)',
  );
  const failures = [tp.createWait, tp.accepted, tp.read, bare.create, bare.read].reduce(
    (n, r) => n + r.failed,
    0,
  );
  if (failures > 0 || tp.failedAfterDrain) {
    console.log(
      `\n${failures} requests failed${tp.failedAfterDrain ? '; some accepted operations FAILED' : ''}: the figures above are suspect`,
    );
    process.exitCode = 1;
  }
  if (PROFILE) console.log(`\nCPU profiles of the Typeplane servers (kept): ${profileDir}`);
}

try {
  await main();
} catch (e) {
  console.error(e);
  process.exitCode = 1;
} finally {
  cleanup();
}
