/**
 * Benchmark (not a test): a change's recipe instances beside another build's, as bench:api:baseline
 * does creates (bench/paired.ts). Both servers are up at once, pinned together to one core, and take
 * instances of the Radius sample type through the two-resource recipe of test/recipes (a database and
 * its login, state provider: bench:recipes' `state` pair) at the same time, in PAIRS short slices;
 * ROUNDS rounds, each on a fresh pair of servers (which starts first alternating by round), both
 * warmed at once on that core (WARMUP_S). Prints, per round and over all slices,
 * this build's server CPU per instance and instances/s against the baseline's: the median of the
 * slices' ratios, with their spread and the 95% confidence interval of that median.
 *
 * Information for a change of the recipe path, not issue #31's verdict (bench:recipes', against the
 * same resources made directly). bench:recipes' own --baseline takes turns in slices, each server on
 * the core the scheduler picks: the same build against itself gave 0.91× (rounds 0.62–1.34×) at 200
 * instances and 0.97× at 1,000, and a change showed as 0.93–1.09× round by round, too loose to tell
 * a change of a few percent. Here one build against itself read 0.997× over 4 rounds (slices' 95% CI
 * 0.980–1.007; rounds 0.957–1.012). Each round's fresh pair of servers carries a few percent of its
 * own, more than the slices' interval says (see paired.ts overallFigures): the rounds are printed
 * beside it. A change of 2% or less is not told apart from that: one measured 0.982× and 0.978× in
 * two runs as a hack, then 0.997× and 1.000× as written.
 *
 *   npm run bench:recipes:baseline -- --baseline <another build's cli/main.js>
 *   (ROUNDS=4 PAIRS=40 SLICE_MS=200 CLIENTS=16 WARMUP_S=16; this build from dist/, built first; SRC=1: its sources)
 *   WARMUP_S was 4: the recipe side was still growing warm then (see bench/recipes.ts); --direct read
 *   1.323 after 4 s and 1.108 after 16 s, in one hour.
 *   --baseline: without it, this build against itself (an A/A run: the bench's own bias). A build
 *     elsewhere resolves its packages from its own folder: build it inside the checkout (`git stash;
 *     npx tsc -p tsconfig.build.json --outDir before; git stash pop`).
 *   --direct: instead of a baseline, this build making the same two resources directly (bench:recipes'
 *     direct side: the database, then the login naming it, a generated password each): #31's ratio
 *     in CPU per instance (one instance against one pair of creates) and instances/s, measured the
 *     paired way. Still information: the verdict is bench:recipes'.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative, resolve } from 'node:path';
import { BOX, BOX_TYPE, LOGIN, LOGIN_TYPE, RECIPE, SAMPLE_TYPE } from '../test/recipes/fixtures.js';
import {
  CLIENTS,
  TYPEPLANE_MAIN,
  connections,
  loadAverage,
  root,
  runMain,
  startServer,
  tempDir,
  type Connection,
  type Op,
  type Server,
  type Sides,
} from './api-harness.js';
import { closedLoop } from './closed-loop.js';
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
import { stringArg } from './harness.js';

const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 4));
/** Seconds of instances each server makes before a round's slices (16: some 10,000 each, see the usage). */
const WARMUP_S = Math.max(0, Number(process.env.WARMUP_S ?? 16));
const SAMPLE_MANIFEST_FILE = fileURLToPath(
  new URL('../test/fixtures/radius/radius-design-postgresDatabases.yaml', import.meta.url),
);
const PATH = `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}?wait=60`;

const baseline = stringArg('baseline');
const direct = process.argv.includes('--direct');
if (direct && baseline !== undefined) {
  console.error('--direct compares this build with itself making the resources directly: without --baseline');
  process.exit(2);
}
// startServer runs a script given relative to the checkout.
const baselineMain = baseline === undefined ? TYPEPLANE_MAIN : relative(root, resolve(baseline));

/** The sides as paired.ts names them: `tp` is this build, `bare` the baseline (or the direct creates). */
const LABELS: Sides<string> = direct
  ? { tp: 'through the recipe', bare: 'direct' }
  : { tp: 'this build', bare: 'baseline' };

/**
 * An instance through the recipe for each call, named from `prefix`, the client and its sequence
 * (lower case: the recipe names its database and login after it); a failure unless SUCCESS.
 */
function instanceOp(conns: Connection[], prefix: string): Op {
  return async (client, seq) => {
    const name = `${prefix}c${client}n${seq}`;
    const reply = await conns[client]!.request(
      'POST',
      PATH,
      JSON.stringify({ desiredState: { name, size: 'L' } }),
    );
    if (reply.status !== 202 || !reply.text.includes('"operationStatus":"SUCCESS"'))
      return `instance ${name}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
    return undefined;
  };
}

/** What the recipe makes for an instance, made directly for each call (one "instance" is both creates). */
function directOp(conns: Connection[], prefix: string): Op {
  const create = async (conn: Connection, typeName: string, desiredState: Record<string, unknown>) => {
    const reply = await conn.request(
      'POST',
      `/v1/resources/${encodeURIComponent(typeName)}?wait=60`,
      JSON.stringify({ desiredState }),
    );
    return reply.status === 202 && reply.text.includes('"operationStatus":"SUCCESS"')
      ? undefined
      : `${typeName}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
  };
  return async (client, seq) => {
    const name = `${prefix}c${client}n${seq}`;
    const conn = conns[client]!;
    return (
      (await create(conn, BOX_TYPE, {
        Name: `${name}_db`,
        Size: 'L',
        Password: randomBytes(24).toString('base64url'),
        Host: 'default.db.internal',
      })) ?? (await create(conn, LOGIN_TYPE, { User: `${name}_user`, Database: `${name}_db` }))
    );
  };
}

async function registerRecipe(conn: Connection): Promise<void> {
  const reply = await conn.request(
    'POST',
    '/v1/recipes',
    JSON.stringify({ typeName: SAMPLE_TYPE, template: RECIPE, file: 'recipe.yaml' }),
  );
  if (reply.status !== 201) throw new Error(`registering the recipe: HTTP ${reply.status} ${reply.text}`);
}

/** The baseline's instances, or the direct creates of one. */
const opOfBare = direct ? directOp : instanceOp;

async function round(typeFiles: string[], n: number): Promise<Sides<Slice>[]> {
  const start = (side: keyof Sides<string>, main: string): Promise<Server> =>
    startServer(LABELS[side], main, [
      'serve',
      ...['--port', '0', '--data-dir', tempDir('typeplane-bench-recipes-ab-'), '--types', ...typeFiles],
      ...['--log-level', 'warn'],
    ]);
  const order = n % 2 === 0 ? (['tp', 'bare'] as const) : (['bare', 'tp'] as const);
  const started: Partial<Sides<Server>> = {};
  for (const side of order) started[side] = await start(side, side === 'tp' ? TYPEPLANE_MAIN : baselineMain);
  const servers = started as Sides<Server>;
  const conns = { tp: connections(servers.tp), bare: connections(servers.bare) };
  try {
    await registerRecipe(conns.tp[0]!);
    if (!direct) await registerRecipe(conns.bare[0]!);
    const pinned = shareOneCore(servers);
    // Warmed at once, sharing the core as the slices will: neither waits idle while the other warms.
    const warmed = await Promise.all([
      closedLoop(CLIENTS, WARMUP_S, instanceOp(conns.tp, `w${n}`)),
      closedLoop(CLIENTS, WARMUP_S, opOfBare(conns.bare, `w${n}`)),
    ]);
    const cold = warmed.find((w) => w.firstFailure);
    if (cold) throw new Error(`warming: ${cold.firstFailure}`);
    const pairs = await pairedSlices(servers, {
      tp: (slice) => instanceOp(conns.tp, `r${n}s${slice}`),
      bare: (slice) => opOfBare(conns.bare, `r${n}s${slice}`),
    });
    refuseFailed(pairs, 'an instance');
    console.log(`round ${n + 1}/${ROUNDS} (${pinned}): ${roundFigures(pairs, 'instance')}`);
    return pairs;
  } finally {
    for (const c of [...conns.tp, ...conns.bare]) c.close();
    await Promise.all([servers.tp.stop(), servers.bare.stop()]);
  }
}

async function main(): Promise<void> {
  const dir = tempDir('typeplane-bench-recipes-ab-types-');
  const typeFiles = [join(dir, 'database.json'), join(dir, 'login.json')];
  writeFileSync(typeFiles[0]!, BOX);
  writeFileSync(typeFiles[1]!, LOGIN);
  typeFiles.push(SAMPLE_MANIFEST_FILE);
  console.log(
    `recipe instances side by side: this build (${TYPEPLANE_MAIN}) against ${direct ? 'the same resources made directly' : baseline === undefined ? 'itself' : baselineMain}, ` +
      `SQLite; ${ROUNDS} rounds of ${PAIRS} slices of ${SLICE_MS} ms after ${WARMUP_S} s of warm-up each, ` +
      `${CLIENTS} clients per server; load average ${loadAverage()}\n`,
  );
  const rounds: Sides<Slice>[][] = [];
  for (let n = 0; n < ROUNDS; n++) rounds.push(await round(typeFiles, n));
  console.log(
    `\n${LABELS.tp} / ${LABELS.bare} over all ${rounds.flat().length} slices (information; #31's verdict is bench:recipes'):\n` +
      overallFigures(rounds, 'instance'),
  );
}

await runMain(main);
