/**
 * Benchmark (not a test): creates/s and reads/s through the Cloud Control API (AWS JSON 1.0, every
 * request signed with SigV4) against the native API (bearer tokens), on the same server in the same
 * run. Prints each side's figures and the Cloud Control/native ratios (target: at least 0.8).
 *
 *   npm run bench:cloudcontrol   (builds dist/ first; ROUNDS=5 DURATION_S=3 CLIENTS=16 WARMUP_S=2 SLICE_S=0.5)
 *
 * The server runs in a child process from dist/ (`typeplane serve`, SQLite), as `npm start` and the
 * installed package run it; this process is the load generator, one keep-alive connection per client,
 * the same HTTP client for both APIs. The server is pinned to a core of its own and the load generator
 * to the others (PIN=0 leaves both to the scheduler), as a client on another machine would leave the
 * server's CPU alone: unpinned, on two cores, the load generator's work (more for a signed POST than
 * for a GET) and the scheduler's choices move each phase by up to a third and the verdict with them.
 * Requests are prepared before each phase for both APIs alike (native paths and bodies; Cloud Control
 * bodies signed, each with its own signature, within the five minutes the server accepts them):
 * signing is then no part of the load. Creates are sent through Node's HTTP client. Reads are run
 * twice: through Node's HTTP client, and under a lean load (prepared requests written as bytes on raw
 * connections, answers read no further than their status and length). Node's client spends more CPU
 * on a read than the server does, and more on a signed POST than on a GET: with a core of its own it
 * is the limit of the native reads, and on a shared machine it takes CPU from the server. Under the
 * lean load the client's work per request is small and alike for both APIs and the server is the
 * limit, so the verdict on reads is the lean load's; Node's client's figure is printed beside it. Each
 * line says how much of a core the server and the load generator used: the one near 100% is the
 * limit. On loopback the server's CPU also holds the kernel's work of sending each answer to the
 * client, about alike for both APIs.
 * The same pairs are also run with every Cloud Control request signed in the loop, as an SDK signs
 * it (the signing key derived once a day, as SDKs cache it), and printed beside: that figure
 * includes the load generator's signing.
 * The server's CPU per request (from /proc) is printed for every phase. Phases alternate between the
 * two APIs in slices of SLICE_S, and each ratio is the median of ROUNDS rounds', so a burst of other
 * work on a shared machine moves one round, not the verdict.
 */
import { createHmac, hash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  WIDGET_SCHEMA,
  WIDGET_TYPE,
  cpuSecondsOf,
  fmt,
  pinApart,
  quantile,
  removeAtExit,
  startServer,
  type Server,
} from './harness.js';
import { closedLoop } from './closed-loop.js';
import { HmacSha256Key } from '../src/cloudcontrol/index.js';

const DURATION_S = Number(process.env.DURATION_S ?? 3);
// Five rounds: on a 2-core virtual machine one phase in four or five runs a quarter off the others.
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 5));
const WARMUP_S = Number(process.env.WARMUP_S ?? 2);
const CLIENTS = Number(process.env.CLIENTS ?? 16);
const TARGET = 0.8;
/** Creates made ready before a phase (more than one phase can send), and reads for a sample of the names. */
const CREATE_POOL = Number(process.env.CREATE_POOL ?? 60_000);
const READ_SAMPLE = 20_000;
const TYPE_PATH = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;

// ---- The HTTP client and the SigV4 signer -------------------------------------------------------------

let server: Server;
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

/** One call with the headers given (the same client for both APIs). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  const sent =
    body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url, { method, path, agent, headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hex = (data: string) => hash('sha256', data, 'hex');
const REGION = 'us-east-1';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
const SIGNED_HEADERS = 'content-type;host;x-amz-date;x-amz-target';
let signingDay = '';
let signingKey: HmacSha256Key | undefined;
let second = -1;
let amzDate = '';

/**
 * The headers of a Cloud Control request, signed with SigV4 over content-type, host, x-amz-date and
 * x-amz-target: the real algorithm and a fresh signature per request, computed leanly (the time text
 * made once a second, the signing key derived once a day, one-shot hashes) so that what the client
 * spends on signing weighs as little as it can on the shared machine.
 */
function signed(keys: { accessKeyId: string; secretAccessKey: string }, operation: string, body: string) {
  const now = Math.floor(Date.now() / 1000);
  if (now !== second) {
    second = now;
    amzDate = new Date(now * 1000).toISOString().replace(/[-:]|\.\d{3}/g, '');
  }
  const day = amzDate.slice(0, 8);
  if (day !== signingDay || !signingKey) {
    signingDay = day;
    signingKey = new HmacSha256Key(
      [day, REGION, 'cloudcontrolapi', 'aws4_request'].reduce<Buffer | string>(
        (key, part) => createHmac('sha256', key).update(part).digest(),
        `AWS4${keys.secretAccessKey}`,
      ) as Buffer,
    );
  }
  const target = `CloudApiService.${operation}`;
  const canonical = `POST\n/\n\ncontent-type:${CONTENT_TYPE}\nhost:${server.url.host}\nx-amz-date:${amzDate}\nx-amz-target:${target}\n\n${SIGNED_HEADERS}\n${hex(body)}`;
  const scope = `${day}/${REGION}/cloudcontrolapi/aws4_request`;
  const signature = signingKey.hex(`AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${hex(canonical)}`);
  return {
    'content-type': CONTENT_TYPE,
    host: server.url.host,
    'x-amz-date': amzDate,
    'x-amz-target': target,
    authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${scope}, SignedHeaders=${SIGNED_HEADERS}, Signature=${signature}`,
  };
}

// ---- Phases ----------------------------------------------------------------------------------------

interface Phase {
  perSecond: number;
  ok: number;
  failed: number;
  p50: number;
  p99: number;
  serverCpu: number;
  clientCpu: number;
  firstFailure?: string;
  /** Sorted, in ms. */
  latencies: number[];
  /** Wall time, in seconds. */
  wall: number;
}

type Op = (client: number, seq: number) => Promise<string | undefined>;

async function phase(seconds: number, op: Op): Promise<Phase> {
  const cpu0 = cpuSecondsOf(server.child.pid);
  const client0 = process.cpuUsage();
  const { ok, failed, firstFailure, latencies, seconds: wall } = await closedLoop(CLIENTS, seconds, op);
  const client = process.cpuUsage(client0);
  return {
    perSecond: ok / wall,
    ok,
    failed,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpu: (cpuSecondsOf(server.child.pid) - cpu0) / wall,
    clientCpu: (client.user + client.system) / 1e6 / wall,
    ...(firstFailure === undefined ? {} : { firstFailure }),
    latencies,
    wall,
  };
}

/** Phases run in slices, as one: counts and times added, CPU weighed by each slice's time. */
function joined(parts: Phase[]): Phase {
  const wall = parts.reduce((sum, p) => sum + p.wall, 0);
  const ok = parts.reduce((sum, p) => sum + p.ok, 0);
  const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b);
  const firstFailure = parts.find((p) => p.firstFailure !== undefined)?.firstFailure;
  return {
    perSecond: ok / wall,
    ok,
    failed: parts.reduce((sum, p) => sum + p.failed, 0),
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    serverCpu: parts.reduce((sum, p) => sum + p.serverCpu * p.wall, 0) / wall,
    clientCpu: parts.reduce((sum, p) => sum + p.clientCpu * p.wall, 0) / wall,
    ...(firstFailure === undefined ? {} : { firstFailure }),
    latencies,
    wall,
  };
}

/** A request made ready to send: method, path, headers and body. */
interface Call {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A request as the bytes that go on the wire. */
function wireBytes(call: Call): Buffer {
  const headers: Record<string, string> = { host: server.url.host, ...call.headers };
  if (call.body !== undefined) headers['content-length'] = String(Buffer.byteLength(call.body));
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.from(`${call.method} ${call.path} HTTP/1.1\r\n${lines}\r\n${call.body ?? ''}`);
}

/**
 * One raw keep-alive connection of the lean load: writes a request's prepared bytes and reads no more
 * of the answer than its status and length (undefined for a 200, else the answer's start).
 */
function rawConnection(): { send(request: Buffer): Promise<string | undefined>; close(): void } {
  const socket = connect(Number(server.url.port), server.url.hostname);
  socket.setNoDelay(true);
  let pending = '';
  let waiting: { resolve(problem: string | undefined): void; reject(error: Error): void } | undefined;
  socket.on('error', (error) => waiting?.reject(error));
  socket.on('data', (data: Buffer) => {
    pending += data.toString('latin1');
    const headEnd = pending.indexOf('\r\n\r\n');
    if (headEnd < 0 || !waiting) return;
    const length = /\r\ncontent-length: *(\d+)/i.exec(pending.slice(0, headEnd));
    if (!length) return waiting.reject(new Error(`an answer without a length: ${pending.slice(0, 300)}`));
    if (pending.length < headEnd + 4 + Number(length[1])) return;
    const answer = pending;
    pending = '';
    const { resolve } = waiting;
    waiting = undefined;
    resolve(answer.startsWith('HTTP/1.1 200 ') ? undefined : answer.slice(0, 300));
  });
  return {
    send: (request) =>
      new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(request);
      }),
    close: () => socket.destroy(),
  };
}

/** How long each API runs at a time before the other takes over. */
const SLICE_S = Number(process.env.SLICE_S ?? 0.5);

type Pair = { native: Phase; cc: Phase };

/**
 * A phase of each API, `seconds` long each, run by turns in slices of SLICE_S in the order ABBA, so
 * that a change in the machine's speed within the pair (seen here to move a 3 s phase by a tenth or
 * more) weighs on both alike.
 */
async function pairOf(seconds: number, ops: { native: Op; cc: Op }): Promise<Pair> {
  const parts = { native: [] as Phase[], cc: [] as Phase[] };
  const slices = Math.max(1, Math.round(seconds / SLICE_S));
  for (let slice = 0; slice < slices; slice++)
    for (const api of slice % 2 === 0 ? (['native', 'cc'] as const) : (['cc', 'native'] as const))
      parts[api].push(await phase(seconds / slices, ops[api]));
  return { native: joined(parts.native), cc: joined(parts.cc) };
}

/**
 * The lean load of both APIs: CLIENTS raw connections each, each sending the next of its API's
 * `requests` (prepared bytes) once its last one is answered. The client then does the same small work
 * per request for both APIs, whatever their headers and bodies: what differs is the server's.
 */
async function leanPair(seconds: number, requests: { native: Buffer[]; cc: Buffer[] }): Promise<Pair> {
  const op = (prepared: Buffer[]): { op: Op; close(): void } => {
    const connections = Array.from({ length: CLIENTS }, rawConnection);
    let next = 0;
    return {
      op: (client) => connections[client]!.send(prepared[next++ % prepared.length]!),
      close: () => connections.forEach((connection) => connection.close()),
    };
  };
  const native = op(requests.native);
  const cc = op(requests.cc);
  try {
    return await pairOf(seconds, { native: native.op, cc: cc.op });
  } finally {
    native.close();
    cc.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : 'n/a');

function show(label: string, r: Phase): void {
  console.log(
    `  ${label.padEnd(30)} ${fmt(r.perSecond).padStart(7)}/s  ok ${fmt(r.ok)} failed ${fmt(r.failed)}  p50 ${fmt(r.p50, 1)} ms p99 ${fmt(r.p99, 1)} ms  cpu server ${pct(r.serverCpu)} (${fmt((r.serverCpu / r.perSecond) * 1e6)} µs a request) client ${pct(r.clientCpu)}`,
  );
  if (r.firstFailure) console.log(`    first failure: ${r.firstFailure}`);
}

async function main(): Promise<void> {
  console.log(
    `bench:cloudcontrol — ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${CLIENTS} clients, ${ROUNDS} rounds of ${DURATION_S} s`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-bench-cloudcontrol-'));
  removeAtExit(dir);
  writeFileSync(join(dir, 'widget.json'), JSON.stringify(WIDGET_SCHEMA));
  server = await startServer(join(dir, 'data'), ['--types', join(dir, 'widget.json')], true);
  const pinning =
    process.env.PIN === '0'
      ? {
          pinned: false,
          description: 'not pinned (PIN=0): the server and the load generator share the cores',
        }
      : pinApart(server);
  console.log(pinning.description);
  const made = await send(
    'POST',
    '/v1/tokens',
    { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    JSON.stringify({ role: 'writer', awsKeys: true }),
  );
  if (made.status !== 201) throw new Error(`creating keys: HTTP ${made.status} ${made.text}`);
  const keys = JSON.parse(made.text) as { token: string; accessKeyId: string; secretAccessKey: string };
  const bearer = { authorization: `Bearer ${keys.token}`, 'content-type': 'application/json' };

  const model = (name: string, seq: number) => ({ Name: name, Size: 'M', Color: 'blue', Count: seq });
  const statusOf = (text: string, key: string, status: string) =>
    (JSON.parse(text) as Record<string, { [k: string]: string }>)[key]?.[status];

  const nativeCreateCall = (name: string, seq: number): Call => ({
    method: 'POST',
    path: TYPE_PATH,
    headers: bearer,
    body: JSON.stringify({ desiredState: model(name, seq), clientToken: `tok-${name}` }),
  });
  const ccCreateCall = (name: string, seq: number): Call => {
    const body = JSON.stringify({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify(model(name, seq)),
      ClientToken: `tok-${name}`,
    });
    return { method: 'POST', path: '/', headers: signed(keys, 'CreateResource', body), body };
  };
  const nativeReadCall = (name: string): Call => ({
    method: 'GET',
    path: `${TYPE_PATH}/${name}`,
    headers: { authorization: bearer.authorization },
  });
  const ccReadCall = (name: string): Call => {
    const body = JSON.stringify({ TypeName: WIDGET_TYPE, Identifier: name });
    return { method: 'POST', path: '/', headers: signed(keys, 'GetResource', body), body };
  };
  const created = (native: boolean) => (r: { status: number; text: string }) => {
    if (r.status !== (native ? 202 : 200)) return `HTTP ${r.status}: ${r.text.slice(0, 300)}`;
    const status = native
      ? statusOf(r.text, 'progressEvent', 'operationStatus')
      : statusOf(r.text, 'ProgressEvent', 'OperationStatus');
    return status === 'SUCCESS' ? undefined : r.text.slice(0, 300);
  };
  const read = (r: { status: number; text: string }) =>
    r.status === 200 ? undefined : `HTTP ${r.status}: ${r.text.slice(0, 300)}`;

  /**
   * Creates of new names `prefix<n>`: made in the loop, or taken from `pool` requests made before the
   * phase (more than a phase can send; running out is a failure, not a silent reuse).
   */
  const createOp = (
    make: (name: string, seq: number) => Call,
    check: (r: { status: number; text: string }) => string | undefined,
    prefix: string,
    names: string[],
    prepared: boolean,
  ): Op => {
    const pool = prepared
      ? Array.from({ length: CREATE_POOL }, (_, n) => ({
          name: `${prefix}${n}`,
          call: make(`${prefix}${n}`, n),
        }))
      : [];
    let next = 0;
    return async () => {
      const n = next++;
      if (prepared && n >= pool.length)
        return `the ${CREATE_POOL} prepared creates ran out: raise CREATE_POOL`;
      const { name, call } = prepared ? pool[n]! : { name: `${prefix}${n}`, call: make(`${prefix}${n}`, n) };
      const r = await send(call.method, call.path, call.headers, call.body);
      const problem = check(r);
      if (problem === undefined) names.push(name);
      return problem;
    };
  };
  let x = 12345;
  const pick = <T>(items: readonly T[]) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return items[x % items.length]!;
  };
  /** Reads of names picked at random: made in the loop, or from requests made before the phase for a sample of the names. */
  const readOp = (make: (name: string) => Call, names: string[], prepared: boolean): Op => {
    const sample = prepared
      ? Array.from({ length: Math.min(READ_SAMPLE, names.length) }, () => make(pick(names)))
      : [];
    return async () => {
      const call = prepared ? pick(sample) : make(pick(names));
      return read(await send(call.method, call.path, call.headers, call.body));
    };
  };

  const warm: string[] = [];
  await phase(WARMUP_S, createOp(nativeCreateCall, created(true), 'w', warm, false));
  await phase(WARMUP_S, createOp(ccCreateCall, created(false), 'v', warm, false));
  await phase(WARMUP_S, readOp(ccReadCall, warm, true));
  await phase(WARMUP_S, readOp(nativeReadCall, warm, true));

  const results: Record<'creates' | 'reads' | 'createsSigned' | 'readsSigned' | 'readsLean', Pair[]> = {
    creates: [],
    reads: [],
    createsSigned: [],
    readsSigned: [],
    readsLean: [],
  };
  /** Prepared reads of a sample of `names`, as bytes for the lean load. */
  const leanReads = (make: (name: string) => Call, names: string[]) =>
    Array.from({ length: Math.min(READ_SAMPLE, names.length) }, () => wireBytes(make(pick(names))));
  for (let round = 0; round < ROUNDS; round++) {
    const names: string[] = [...warm];
    // Requests are prepared as each pair is made, just before it runs.
    for (const prepared of [true, false]) {
      const [creates, reads] = prepared
        ? (['creates', 'reads'] as const)
        : (['createsSigned', 'readsSigned'] as const);
      const tag = prepared ? '' : 's';
      results[creates].push(
        await pairOf(DURATION_S, {
          native: createOp(nativeCreateCall, created(true), `n${tag}${round}-`, names, prepared),
          cc: createOp(ccCreateCall, created(false), `c${tag}${round}-`, names, prepared),
        }),
      );
      results[reads].push(
        await pairOf(DURATION_S, {
          native: readOp(nativeReadCall, names, prepared),
          cc: readOp(ccReadCall, names, prepared),
        }),
      );
    }
    results.readsLean.push(
      await leanPair(DURATION_S, {
        native: leanReads(nativeReadCall, names),
        cc: leanReads(ccReadCall, names),
      }),
    );
    console.log(`round ${round + 1}`);
    show('native create (bearer)', results.creates[round]!.native);
    show('Cloud Control create (SigV4)', results.creates[round]!.cc);
    show('native read (bearer)', results.reads[round]!.native);
    show('Cloud Control read (SigV4)', results.reads[round]!.cc);
    console.log('  signed in the loop:');
    show('native create (bearer)', results.createsSigned[round]!.native);
    show('Cloud Control create (SigV4)', results.createsSigned[round]!.cc);
    show('native read (bearer)', results.readsSigned[round]!.native);
    show('Cloud Control read (SigV4)', results.readsSigned[round]!.cc);
    console.log('  lean load (prepared bytes on raw connections):');
    show('native read (bearer)', results.readsLean[round]!.native);
    show('Cloud Control read (SigV4)', results.readsLean[round]!.cc);
  }
  const ratio = (pairs: Pair[]) => median(pairs.map((r) => r.cc.perSecond / r.native.perSecond));
  const verdict = (r: number) => (r >= TARGET ? 'meets' : 'below');
  // Server CPU a request, native / Cloud Control: what a request costs the server, whatever else runs.
  const cpuRatio = (pairs: Pair[], side: 'serverCpu' | 'clientCpu' = 'serverCpu') =>
    median(pairs.map((r) => r.native[side] / r.native.perSecond / (r.cc[side] / r.cc.perSecond)));
  const spread = (pairs: Pair[]) => {
    const each = pairs.map((r) => r.cc.perSecond / r.native.perSecond);
    return `${fmt(Math.min(...each), 2)}-${fmt(Math.max(...each), 2)}`;
  };
  /** The median share of a core the server (or the load generator) used, native / Cloud Control. */
  const busy = (pairs: Pair[], side: 'serverCpu' | 'clientCpu' = 'serverCpu') =>
    `${pct(median(pairs.map((r) => r.native[side])))} / ${pct(median(pairs.map((r) => r.cc[side])))}`;
  const line = (label: string, pairs: Pair[]) => {
    const r = ratio(pairs);
    return `${label} ${fmt(r, 2)} (${verdict(r)} ${TARGET}; rounds ${spread(pairs)}; server CPU ${busy(pairs)}, load generator ${busy(pairs, 'clientCpu')})`;
  };
  // The verdict's loads are those under which the server, not the load generator, is the limit: creates
  // through Node's HTTP client, reads under the lean load (Node's client spends more on a read than
  // the server does, and its reads take a core of their own before the server's do).
  console.log(
    `\nCloud Control / native, median of ${ROUNDS} rounds, requests prepared, ${pinning.pinned ? 'the server on a core of its own' : 'the server and the load generator sharing the cores'}:`,
  );
  console.log(`  ${line('creates', results.creates)}`);
  console.log(`  ${line('reads (lean load)', results.readsLean)}`);
  console.log(
    `server CPU a request, native / Cloud Control (median): creates ${fmt(cpuRatio(results.creates), 2)}, reads ${fmt(cpuRatio(results.readsLean), 2)}`,
  );
  console.log('beside the verdict:');
  // Reads through Node's HTTP client: where the load generator is the limit, so is its figure.
  console.log(`  ${line("reads through Node's HTTP client", results.reads)}`);
  // Signing is real client work that any SigV4 client pays.
  console.log(
    `  signed in the loop (the load generator's signing included): creates ${fmt(ratio(results.createsSigned), 2)}, reads ${fmt(ratio(results.readsSigned), 2)}; the load generator's CPU a request, native / Cloud Control: creates ${fmt(cpuRatio(results.createsSigned, 'clientCpu'), 2)}, reads ${fmt(cpuRatio(results.readsSigned, 'clientCpu'), 2)}`,
  );
  console.log(
    `load average now ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (other work on the machine weighs on both sides)`,
  );
  agent.destroy();
  await server.stop();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
