/**
 * Benchmark (not a test): the resource API over HTTP with its state in PostgreSQL, against a bare
 * fastify + `pg` server doing one INSERT per create and one SELECT per read (bench/bare-pg-server.ts),
 * in one run, each round on a fresh pair of servers. Each server works in a scratch database of its
 * own, made for the round and dropped after, so that the CPU of its PostgreSQL backends (from /proc)
 * is told apart and printed per request beside the server's own: much of a create's cost lands there.
 *
 *   npm run bench:api:pg            (ROUNDS=3 DURATION_S=5 CLIENTS=16 WARMUP_S=2
 *                                     POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test: where the
 *                                     scratch databases are made; the role needs CREATEDB)
 *   PROFILE=1 npm run bench:api:pg  (also writes a --cpu-prof profile of the Typeplane server to a temp folder)
 *   SRC=1 npm run bench:api:pg      (the Typeplane server runs its sources through tsx, not dist/ as built)
 *
 * This process is the load generator; each server runs in a child process. PostgreSQL runs on this
 * machine too, so on 2 cores the servers, their backends and the load generator share them: the CPU
 * per request of each is the figure to judge a change by, the rates the one the target is set on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  CLIENTS,
  DURATION_S,
  ROUNDS,
  TYPE_SCHEMA,
  WARMUP_S,
  connections,
  createRounds,
  fmt,
  kernelRow,
  latencyRows,
  loadAverage,
  median,
  otherCpuRow,
  pooled,
  readRounds,
  roundsOf,
  row,
  runMain,
  shareRow,
  startServer,
  TYPEPLANE_MAIN,
  targetRow,
  tempDir,
  warmUp,
  type Pair,
  type PhaseResult,
  type Server,
} from './api-harness.js';
import { POSTGRES_URL, databaseUrl, dropDatabase, scratchDatabases } from './scratch-databases.js';

const PROFILE = process.env.PROFILE === '1';
const profileDir = join(tmpdir(), `typeplane-bench-api-pg-profiles-${process.pid}`);
/** Issue #32's target for both ratios. */
const TARGET = 0.7;
// ---- Scratch databases (bench/scratch-databases.ts): `tp_bench_pg_<pid>_<side>` -------------------

/** A connection to the database the scratch ones are made from; it also finds their backends. */
const admin = new pg.Client({ connectionString: POSTGRES_URL });

/** The pids of the backends connected to `database` now (this process's admin connection is elsewhere). */
function backendsOf(database: string): () => Promise<number[]> {
  return async () =>
    (
      await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`,
        [database],
      )
    ).rows.map((r) => r.pid);
}

// ---- Servers -------------------------------------------------------------------------------------------

async function startTypeplane(database: string, typeFile: string): Promise<Server> {
  const nodeArgs: string[] = [];
  if (PROFILE) {
    mkdirSync(profileDir, { recursive: true });
    // No --cpu-prof-name: with SRC=1 tsx's loader thread writes a profile too, and one name would let it overwrite the main thread's.
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profileDir);
  }
  const server = await startServer(
    'typeplane',
    TYPEPLANE_MAIN,
    [
      'serve',
      '--port',
      '0',
      '--data-dir',
      tempDir('typeplane-bench-api-pg-'),
      '--database-url',
      databaseUrl(database),
      '--types',
      typeFile,
      '--log-level',
      'warn',
      // TYPEPLANE_ARGS: more serve flags, as bench:api takes them.
      ...(process.env.TYPEPLANE_ARGS ?? '').split(' ').filter(Boolean),
    ],
    nodeArgs,
  );
  return { ...server, helpers: backendsOf(database) };
}

async function startBare(database: string): Promise<Server> {
  const server = await startServer('bare', 'bench/bare-pg-server.ts', [
    '--url',
    databaseUrl(database),
    '--port',
    '0',
  ]);
  return { ...server, helpers: backendsOf(database) };
}

// ---- Throughput ------------------------------------------------------------------------------------------

interface Throughput {
  tp: Pair;
  bare: Pair;
  /** Each round's typeplane/bare ratio of a figure. */
  ratios: Record<'creates' | 'reads' | 'serverCpu' | 'databaseCpu' | 'bothCpu', number[]>;
}

/** CPU seconds per successful request: the server's, its database backends', both. */
const CPU = {
  serverCpu: (r: PhaseResult) => r.serverCpu / r.perSecond,
  databaseCpu: (r: PhaseResult) => r.helperCpu! / r.perSecond,
  bothCpu: (r: PhaseResult) => (r.serverCpu + r.helperCpu!) / r.perSecond,
};

/**
 * Creates and reads on both servers, phases alternating, each round on a fresh pair of servers over
 * fresh databases (as bench:api: about one Node process in five spends its life a fifth slower, and a
 * pair for the whole run let one such process decide every round).
 */
async function throughput(typeFile: string): Promise<Throughput> {
  const creates: { tp: PhaseResult; bare: PhaseResult }[] = [];
  const reads: { tp: PhaseResult; bare: PhaseResult }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const databases = await scratchDatabases(admin, 'tp_bench_pg', ['tp', 'bare'] as const);
    try {
      const servers = {
        tp: await startTypeplane(databases.tp, typeFile),
        bare: await startBare(databases.bare),
      };
      const tpConns = connections(servers.tp);
      const bareConns = connections(servers.bare);
      try {
        console.log(
          `round ${round + 1}/${ROUNDS}: typeplane on http://${servers.tp.host}:${servers.tp.port} (pid ${servers.tp.child.pid}, database ${databases.tp}), bare on http://${servers.bare.host}:${servers.bare.port} (pid ${servers.bare.child.pid}, database ${databases.bare})`,
        );
        await warmUp(servers.tp, tpConns);
        await warmUp(servers.bare, bareConns);
        const conns = { tp: tpConns, bare: bareConns };
        const created = { tp: [] as string[], bare: [] as string[] };
        creates.push(...(await createRounds(servers, conns, created, [round])));
        reads.push(...(await readRounds(servers, conns, created, [round])));
      } finally {
        for (const c of [...tpConns, ...bareConns]) c.close();
        await Promise.all([servers.tp.stop(), servers.bare.stop()]);
      }
    } finally {
      for (const name of Object.values(databases)) await dropDatabase(admin, name);
    }
  }
  const ratio = (rounds: { tp: PhaseResult; bare: PhaseResult }[], of: (r: PhaseResult) => number) =>
    rounds.map((r) => of(r.tp) / of(r.bare));
  return {
    tp: { create: pooledOf(creates, 'tp'), read: pooledOf(reads, 'tp') },
    bare: { create: pooledOf(creates, 'bare'), read: pooledOf(reads, 'bare') },
    ratios: {
      creates: ratio(creates, (r) => r.perSecond),
      reads: ratio(reads, (r) => r.perSecond),
      serverCpu: ratio(creates, CPU.serverCpu),
      databaseCpu: ratio(creates, CPU.databaseCpu),
      bothCpu: ratio(creates, CPU.bothCpu),
    },
  };
}

function pooledOf(rounds: { tp: PhaseResult; bare: PhaseResult }[], side: 'tp' | 'bare'): PhaseResult {
  return pooled(rounds.map((r) => r[side]));
}

// ---- Run --------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const cores = availableParallelism();
  const load = loadAverage;
  const loadBefore = load();
  await admin.connect();
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!;
  console.log(
    `API benchmark on PostgreSQL ${version.server_version} (${new URL(POSTGRES_URL).host}): ${cores} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, load average ${loadBefore}`,
  );
  console.log(
    `${CLIENTS} concurrent keep-alive clients, ${ROUNDS} rounds of ${DURATION_S} s phases after ${WARMUP_S} s warm-up; each round a fresh pair of servers in child processes, each on a scratch database of its own\n`,
  );
  const typeDir = tempDir('typeplane-bench-type-');
  const typeFile = join(typeDir, 'widget.json');
  writeFileSync(typeFile, JSON.stringify(TYPE_SCHEMA, null, 2));
  console.log('throughput, Typeplane (state provider) and bare fastify + pg, phases alternating:');
  summary(await throughput(typeFile), cores, loadBefore, load());
  if (PROFILE) console.log(`\nCPU profiles of the Typeplane server (kept): ${profileDir}`);
}

function summary(
  { tp, bare, ratios }: Throughput,
  cores: number,
  loadBefore: string,
  loadAfter: string,
): void {
  console.log(
    `\n==== summary: ${cores} cores, Node ${process.version}, ${CLIENTS} clients, ${ROUNDS} rounds of ${DURATION_S} s phases, load average before ${loadBefore}, after ${loadAfter} ====`,
  );
  row('throughput (rounds pooled)', 'typeplane', 'bare', 'ratio', "target: median of the rounds' ratios");
  const target = { text: `>= ${TARGET}`, met: (r: number) => r >= TARGET };
  targetRow(
    'creates/s (SUCCESS, ?wait=10)',
    fmt(tp.create.perSecond),
    fmt(bare.create.perSecond),
    ratios.creates,
    target,
  );
  targetRow('reads/s', fmt(tp.read.perSecond), fmt(bare.read.perSecond), ratios.reads, target);
  latencyRows(tp, bare);
  shareRow('server CPU, creates / reads', tp, bare, (r) => r.serverCpu, '(100% = one core)');
  shareRow('PostgreSQL backends, creates / reads', tp, bare, (r) => r.helperCpu!);
  // Steadier than rates on a shared VM: CPU time stolen by the host is not charged to the process.
  const us = (r: PhaseResult, of: (r: PhaseResult) => number) => fmt(of(r) * 1e6);
  for (const [label, key] of [
    ['server CPU per create / read (us)', 'serverCpu'],
    ['PostgreSQL CPU per create / read (us)', 'databaseCpu'],
    ['both per create / read (us)', 'bothCpu'],
  ] as const) {
    const of = CPU[key];
    row(
      label,
      `${us(tp.create, of)} / ${us(tp.read, of)}`,
      `${us(bare.create, of)} / ${us(bare.read, of)}`,
      fmt(median(ratios[key]), 2),
      `(creates, bare = 1) ${roundsOf(ratios[key])}`,
    );
  }
  kernelRow(tp, bare);
  shareRow('load-generator CPU, creates / reads', tp, bare, (r) => r.clientCpu);
  const phases = [tp.create, tp.read, bare.create, bare.read];
  otherCpuRow(phases);
  const failures = phases.reduce((n, r) => n + r.failed, 0);
  if (failures > 0) {
    console.log(`\n${failures} requests failed: the figures above are suspect`);
    process.exitCode = 1;
  }
}

await runMain(main, () => admin.end());
