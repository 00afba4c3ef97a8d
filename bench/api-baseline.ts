/**
 * Benchmark (not a test): a change's creates beside another build's — or the same build's with other
 * node flags — as bench:api makes them (the state provider, a client token each, `?wait=10`, CLIENTS
 * clients per server). Both Typeplane servers are up at once, pinned together to one core, and take
 * the creates at the same time in PAIRS short slices (bench/paired.ts); ROUNDS rounds, each on a
 * fresh pair of servers. Prints, per round and over all slices, this build's server CPU per create
 * and creates/s against the baseline's (each thread's CPU time, to the nanosecond).
 *
 * Information, not issue #32's verdict (bench:api's, against a bare server). On a shared machine the
 * bare server's rate moved by two fifths between bench:api runs minutes apart, and the ratio with
 * it; side by side, a change of a tenth in CPU per create showed round after round.
 *
 *   npm run bench:api:baseline -- --baseline <another build's cli/main.js>
 *       [--node-args '<flags>'] [--baseline-node-args '<flags>'] [--postgres]
 *   (ROUNDS=4 PAIRS=40 SLICE_MS=200 CLIENTS=16 WARMUP_S=2; this build from dist/, built first; SRC=1: its sources)
 *   --baseline: without it, this build against itself (an A/A run: the bench's own bias, or flags
 *     against none with --node-args). A build elsewhere resolves its packages from its own folder:
 *     build it inside the checkout (`git stash; npx tsc -p tsconfig.build.json --outDir before; git
 *     stash pop`).
 *   --postgres: each server on a scratch database of its own at POSTGRES_URL (made and dropped here).
 *   --bare: against bench:api's bare server (fastify + better-sqlite3, one INSERT a create) instead of
 *     a build: #32's ratios measured this way, both servers on one core, where bench:api's turns of 5 s
 *     each met the machine's other tenants unevenly (its creates ratio moved from 0.42 to 0.77 between
 *     runs of one build). Still information: the verdict is bench:api's, whose servers are not pinned
 *     (a Typeplane server's helper threads there use the second core). SQLite only.
 */
import { writeFileSync } from 'node:fs';
import { relative, resolve, join } from 'node:path';
import pg from 'pg';
import {
  CLIENTS,
  TYPE_SCHEMA,
  TYPEPLANE_MAIN,
  connections,
  createOp,
  loadAverage,
  root,
  runMain,
  startServer,
  succeeded,
  tempDir,
  warmUp,
  type Server,
  type Sides,
} from './api-harness.js';
import {
  PAIRS,
  SLICE_MS,
  overallFigures,
  pairedSlices,
  refuseFailed,
  roundFigures,
  shareOneCore,
  type Slice,
} from './paired.js';
import { POSTGRES_URL, databaseUrl, dropDatabase, scratchDatabases } from './scratch-databases.js';

const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 4));

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith('--')) {
    console.error(`--${name} needs a value`);
    process.exit(2);
  }
  return value;
}

const baseline = option('baseline');
const thisArgs = (option('node-args') ?? '').split(' ').filter(Boolean);
const baselineArgs = (option('baseline-node-args') ?? '').split(' ').filter(Boolean);
const postgres = process.argv.includes('--postgres');
const againstBare = process.argv.includes('--bare');
if (againstBare && (postgres || baseline !== undefined)) {
  console.error('--bare compares this build with the bare SQLite server: without --baseline or --postgres');
  process.exit(2);
}
// startServer runs a script given relative to the checkout.
const baselineMain = againstBare
  ? 'bench/bare-server.ts'
  : baseline === undefined
    ? TYPEPLANE_MAIN
    : relative(root, resolve(baseline));

/** The sides as paired.ts names them: `tp` is this build, `bare` the baseline. */
const LABELS: Sides<string> = { tp: 'this build', bare: againstBare ? 'bare server' : 'baseline' };

async function round(typeFile: string, n: number, admin: pg.Client | undefined): Promise<Sides<Slice>[]> {
  const databases = admin && (await scratchDatabases(admin, 'tp_bench_ab', ['tp', 'bare'] as const));
  const start = (side: keyof Sides<string>, main: string, nodeArgs: string[]): Promise<Server> => {
    if (side === 'bare' && againstBare)
      return startServer(
        LABELS.bare,
        main,
        ['--db', join(tempDir('typeplane-bench-ab-bare-'), 'bare.db'), '--port', '0'],
        nodeArgs,
      );
    const database = databases && databaseUrl(databases[side]);
    return startServer(
      LABELS[side],
      main,
      [
        'serve',
        ...['--port', '0', '--data-dir', tempDir('typeplane-bench-ab-'), '--types', typeFile],
        ...['--log-level', 'warn', ...(database ? ['--database-url', database] : [])],
      ],
      nodeArgs,
    );
  };
  const servers: Sides<Server> = {
    tp: await start('tp', TYPEPLANE_MAIN, thisArgs),
    bare: await start('bare', baselineMain, baselineArgs),
  };
  const conns = { tp: connections(servers.tp), bare: connections(servers.bare) };
  try {
    const pinned = shareOneCore(servers);
    await Promise.all([warmUp(servers.tp, conns.tp), warmUp(servers.bare, conns.bare)]);
    const pairs = await pairedSlices(servers, {
      tp: (slice) => createOp(conns.tp, `r${n}s${slice}-`, '?wait=10', undefined, succeeded),
      bare: (slice) => createOp(conns.bare, `r${n}s${slice}-`, '?wait=10', undefined, succeeded),
    });
    refuseFailed(pairs, 'a create');
    console.log(`round ${n + 1}/${ROUNDS} (${pinned}): ${roundFigures(pairs, 'create')}`);
    return pairs;
  } finally {
    for (const c of [...conns.tp, ...conns.bare]) c.close();
    await Promise.all([servers.tp.stop(), servers.bare.stop()]);
    if (admin && databases) for (const name of Object.values(databases)) await dropDatabase(admin, name);
  }
}

async function main(): Promise<void> {
  const typeFile = join(tempDir('typeplane-bench-ab-types-'), 'widget.json');
  writeFileSync(typeFile, JSON.stringify(TYPE_SCHEMA, null, 2));
  const admin = postgres ? new pg.Client({ connectionString: POSTGRES_URL }) : undefined;
  await admin?.connect();
  console.log(
    `creates side by side: this build (${TYPEPLANE_MAIN}${thisArgs.length ? ` ${thisArgs.join(' ')}` : ''}) against ` +
      `${againstBare ? 'the bare server (bench/bare-server.ts)' : baseline === undefined ? 'itself' : baselineMain}${baselineArgs.length ? ` ${baselineArgs.join(' ')}` : ''}, ` +
      `${postgres ? 'each on a PostgreSQL database of its own' : 'SQLite'}; ${ROUNDS} rounds of ${PAIRS} slices of ${SLICE_MS} ms, ` +
      `${CLIENTS} clients per server; load average ${loadAverage()}\n`,
  );
  const rounds: Sides<Slice>[][] = [];
  try {
    for (let n = 0; n < ROUNDS; n++) rounds.push(await round(typeFile, n, admin));
  } finally {
    await admin?.end();
  }
  console.log(
    `\nthis build / ${LABELS.bare} over all ${rounds.flat().length} slices (information; #32's verdict is bench:api's):\n` +
      overallFigures(rounds, 'create'),
  );
}

await runMain(main);
