/**
 * Benchmark (not a test): the resource API over HTTP against a bare fastify + better-sqlite3 server
 * doing the least the same API shape needs, in one run; then list-page latency at 1k and at 200k
 * stored resources. Prints figures.
 *
 *   npm run bench:api            (ROUNDS=3 DURATION_S=5 CLIENTS=16 WARMUP_S=2 LIST_SAMPLES=1000 LIST_BIG=200000;
 *                                 NO_CLIENT_TOKENS=1: creates without client tokens)
 *   PROFILE=1 npm run bench:api  (also writes --cpu-prof profiles of each Typeplane server to a temp folder;
 *                                  the main thread's is the largest file; with SRC=1 tsx's loader thread writes one too)
 *   SRC=1 npm run bench:api      (the Typeplane server runs its sources through tsx, not dist/ as built,
 *                                  which the script builds first and the package ships)
 *
 * This process is the load generator (one keep-alive connection per client, a minimal HTTP/1.1 client); each
 * server runs in a child process so that it has a core of its own on a 2-core machine. The CPU that
 * each side used is printed, so a saturated load generator shows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store/index.js';
import { encodeCursor } from '../src/store/cursor.js';
import {
  CLIENTS,
  DURATION_S,
  TYPEPLANE_MAIN,
  ROUNDS,
  WARMUP_S,
  TYPE_NAME,
  TYPE_PATH,
  TYPE_SCHEMA,
  Connection,
  connections,
  createOp,
  createRounds,
  describe,
  fmt,
  kernelRow,
  latencyRows,
  loadAverage,
  otherCpuRow,
  phase,
  pooled,
  quantile,
  readRounds,
  row,
  runMain,
  shareRow,
  startServer,
  targetRow,
  tempDir,
  verdict,
  warmUp,
  type PhaseResult,
  type Sides,
  type Server,
} from './api-harness.js';

const LIST_SAMPLES = Number(process.env.LIST_SAMPLES ?? 1000);
const LIST_BIG = Number(process.env.LIST_BIG ?? 200_000);
// The list phase reads the page after item 100 and the one after the middle item, each of 100 items.
if (!Number.isInteger(LIST_BIG) || LIST_BIG < 400) {
  console.error(
    `LIST_BIG=${process.env.LIST_BIG}: give a whole number of at least 400 (the middle page must be full)`,
  );
  process.exit(2);
}
const LIST_SMALL = 1_000;
const PROFILE = process.env.PROFILE === '1';
const profileDir = join(tmpdir(), `typeplane-bench-api-profiles-${process.pid}`);

function startTypeplane(dataDir: string, typeFile: string, profileName?: string): Promise<Server> {
  const nodeArgs: string[] = [];
  if (PROFILE && profileName) {
    const dir = join(profileDir, profileName);
    mkdirSync(dir, { recursive: true });
    // No --cpu-prof-name: with SRC=1 tsx's loader thread writes a profile too, and one name would let it overwrite the main thread's.
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  return startServer(
    'typeplane',
    TYPEPLANE_MAIN,
    [
      'serve',
      ...['--port', '0', '--data-dir', dataDir, '--types', typeFile, '--log-level', 'warn'],
      // TYPEPLANE_ARGS: more serve flags, e.g. '--fairness off' to see what fairness costs.
      ...(process.env.TYPEPLANE_ARGS ?? '').split(' ').filter(Boolean),
    ],
    nodeArgs,
  );
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
  /** Each round's server CPU per create and disk bytes per create, typeplane / bare. */
  cpuRatios: number[];
  diskRatios: number[];
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
 * Creates and reads on both servers, phases alternating, each round on a fresh pair of servers (about
 * one Node process in five spends its life a fifth slower on reads, in Node's own process.nextTick: a
 * pair for the whole run let one such process decide every round); then, on the last pair, creates
 * answered 202 on Typeplane's.
 */
async function throughput(typeFile: string): Promise<Throughput> {
  const creates: Sides<PhaseResult>[] = [];
  const reads: Sides<PhaseResult>[] = [];
  let accepted: PhaseResult | undefined;
  let drained = { seconds: 0, failed: false };
  for (let round = 0; round < ROUNDS; round++) {
    const tpServer = await startTypeplane(tempDir('typeplane-bench-api-'), typeFile, 'throughput');
    const bareDir = tempDir('typeplane-bench-bare-');
    const bareServer = await startServer('bare', 'bench/bare-server.ts', [
      '--db',
      join(bareDir, 'bare.db'),
      '--port',
      '0',
    ]);
    const servers = { tp: tpServer, bare: bareServer };
    const tpConns = connections(tpServer);
    const bareConns = connections(bareServer);
    try {
      console.log(
        `round ${round + 1}/${ROUNDS}: typeplane on http://${tpServer.host}:${tpServer.port} (pid ${tpServer.child.pid}), bare on http://${bareServer.host}:${bareServer.port} (pid ${bareServer.child.pid})`,
      );
      await warmUp(tpServer, tpConns);
      await warmUp(bareServer, bareConns);
      const conns = { tp: tpConns, bare: bareConns };
      const created = { tp: [] as string[], bare: [] as string[] };
      creates.push(...(await createRounds(servers, conns, created, [round])));
      if (round === ROUNDS - 1) {
        accepted = await phase(
          tpServer,
          DURATION_S,
          createOp(tpConns, 'n', '', undefined, () => true),
        );
        drained = await drain(tpConns[0]!);
        describe('typeplane creates, no wait, 202', accepted);
        console.log(
          `    all accepted operations terminal ${fmt(drained.seconds, 2)} s after the load stopped${drained.failed ? ' (some FAILED!)' : ', none FAILED'}`,
        );
      }
      reads.push(...(await readRounds(servers, conns, created, [round])));
    } finally {
      for (const c of [...tpConns, ...bareConns]) c.close();
      await Promise.all([tpServer.stop(), bareServer.stop()]);
    }
  }
  const createWait = pooled(creates.map((r) => r.tp));
  const read = pooled(reads.map((r) => r.tp));
  const bareCreate = pooled(creates.map((r) => r.bare));
  const bareRead = pooled(reads.map((r) => r.bare));
  return {
    tp: {
      createWait,
      accepted: accepted!,
      drainSeconds: drained.seconds,
      failedAfterDrain: drained.failed,
      read,
    },
    bare: { create: bareCreate, read: bareRead },
    createRatios: creates.map((r) => r.tp.perSecond / r.bare.perSecond),
    readRatios: reads.map((r) => r.tp.perSecond / r.bare.perSecond),
    cpuRatios: creates.map((r) => cpuPerOk(r.tp) / cpuPerOk(r.bare)),
    diskRatios: creates.map((r) => r.tp.diskBytesPerOk / r.bare.diskBytesPerOk),
  };
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

/** Server CPU seconds per successful request. */
function cpuPerOk(r: PhaseResult): number {
  return r.serverCpu / r.perSecond;
}

// ---- Run --------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const cores = availableParallelism();
  const load = loadAverage;
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
  const { tp, bare, createRatios, readRatios, cpuRatios, diskRatios } = await throughput(typeFile);
  console.log(
    `\nlist page latency (GET ${TYPE_PATH}?maxResults=100&nextToken=…, one client, ${LIST_SAMPLES} samples per position):`,
  );
  const small = await listLatency(typeFile, LIST_SMALL);
  const big = await listLatency(typeFile, LIST_BIG);

  const p50Ratio = big.deep.p50 / small.deep.p50;
  const p99Ratio = big.deep.p99 / small.deep.p99;

  console.log(
    `\n==== summary: ${cores} cores, Node ${process.version}, ${CLIENTS} clients, ${ROUNDS} rounds of ${DURATION_S} s phases, load average before ${loadBefore}, after ${load()} ====`,
  );
  row('throughput (rounds pooled)', 'typeplane', 'bare', 'ratio', "target: median of the rounds' ratios");
  targetRow(
    'creates/s (SUCCESS, ?wait=10)',
    fmt(tp.createWait.perSecond),
    fmt(bare.create.perSecond),
    createRatios,
    {
      text: '>= 0.8',
      met: (r) => r >= 0.8,
      moonshot: '>= 1.0',
    },
  );
  targetRow('reads/s', fmt(tp.read.perSecond), fmt(bare.read.perSecond), readRatios, {
    text: '>= 0.9',
    met: (r) => r >= 0.9,
    moonshot: '>= 1.0',
  });
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
  const tpPair = { create: tp.createWait, read: tp.read };
  latencyRows(tpPair, bare);
  shareRow('server CPU, creates / reads', tpPair, bare, (r) => r.serverCpu, '(100% = one core)');
  // Steadier than rates on a shared VM: CPU time stolen by the host is not charged to the process.
  const us = (r: PhaseResult) => fmt(cpuPerOk(r) * 1e6);
  targetRow(
    'server CPU per create / read (us)',
    `${us(tp.createWait)} / ${us(tp.read)}`,
    `${us(bare.create)} / ${us(bare.read)}`,
    cpuRatios,
    { text: 'creates: <= 1.3', met: (r) => r <= 1.3, moonshot: '<= 1.0' },
  );
  kernelRow(tpPair, bare);
  shareRow('load-generator CPU, creates / reads', tpPair, bare, (r) => r.clientCpu);
  const kb = (n: number) => `${fmt(n / 1024, 1)} KiB`;
  targetRow(
    'disk writes per create (server)',
    kb(tp.createWait.diskBytesPerOk),
    kb(bare.create.diskBytesPerOk),
    diskRatios,
    { text: '<= 1.5', met: (r) => r <= 1.5, moonshot: '<= 1.2; WAL + checkpoints' },
  );
  otherCpuRow([tp.createWait, tp.accepted, tp.read, bare.create, bare.read]);
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

await runMain(main);
