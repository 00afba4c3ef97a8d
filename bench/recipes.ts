/**
 * Recipes benchmark (not a test): what making resources through a recipe costs over making the same
 * resources directly, each side on a fresh `typeplane serve` child process (SQLite), in one run; and
 * what checking a large recipe at registration costs. Prints figures, ratios and verdicts:
 *
 * - 200 instances of the Radius sample type (MyCompany.Resources/postgresDatabases) through a
 *   two-resource recipe (a database and a login that references it, both served by the state
 *   provider: record-backed, so the recipe's own overhead shows whole) against the same 400 resources
 *   created directly, with the same properties; 32 clients at once on both sides, each create waited
 *   for (`?wait=`); a direct client makes the database, then its login, as the recipe's order does.
 *   Target ≤ 1.3× (moonshot 1.1×).
 * - the registration type-check of a generated 50-resource recipe: POST /v1/recipes/check over HTTP
 *   and Recipes.check in this process. Target < 200 ms.
 *
 *   npm run bench:recipes -- [--instances 200] [--rounds 3] [--checks 20] [--dist]
 *   SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npm run bench:recipes   (profiles the servers)
 *
 * Each figure is the median of its rounds; the two sides alternate which goes first.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { generateToken } from '../src/auth/index.js';
import { startService } from '../src/service.js';
import { BOX, BOX_TYPE, LOGIN, LOGIN_TYPE, RECIPE, SAMPLE_TYPE } from '../test/recipes/fixtures.js';
import { client, cpuSecondsOf, flag, fmt, numberArg, removeAtExit, startServer } from './harness.js';

const INSTANCES = numberArg('instances', 200);
const ROUNDS = numberArg('rounds', 3);
const CHECKS = numberArg('checks', 20);
const CHECK_RESOURCES = 50;
/** As the stacks benchmark drives direct creates: 32 clients, each waiting for its create. */
const CONCURRENCY = 32;
const useDist = flag('dist');
const SAMPLE_MANIFEST_FILE = fileURLToPath(
  new URL('../test/fixtures/radius/radius-design-postgresDatabases.yaml', import.meta.url),
);

const instance = (i: number) => `i${String(i).padStart(5, '0')}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The lower types and the sample type registered at start; no recipe yet. */
async function fresh() {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-bench-recipes-'));
  removeAtExit(dir);
  const files = [join(dir, 'database.json'), join(dir, 'login.json')];
  writeFileSync(files[0]!, BOX);
  writeFileSync(files[1]!, LOGIN);
  const server = await startServer(join(dir, 'data'), ['--types', ...files, SAMPLE_MANIFEST_FILE], useDist);
  return { server, api: client(server, CONCURRENCY + 2) };
}

type Api = Awaited<ReturnType<typeof fresh>>['api'];

/** Wall ms of `fn`, and the CPU ms the server used meanwhile (what the recipe path costs it, load aside). */
async function measured(
  pid: number | undefined,
  fn: () => Promise<void>,
): Promise<{ ms: number; cpuMs: number }> {
  const cpu = cpuSecondsOf(pid);
  const start = performance.now();
  await fn();
  return { ms: performance.now() - start, cpuMs: (cpuSecondsOf(pid) - cpu) * 1000 };
}

/** `count` jobs, `CONCURRENCY` at a time. */
async function pool(count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await job(i);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function create(api: Api, typeName: string, desiredState: Record<string, unknown>): Promise<void> {
  const r = await api.call('POST', `/v1/resources/${encodeURIComponent(typeName)}?wait=60`, { desiredState });
  if (r.body?.progressEvent?.operationStatus !== 'SUCCESS')
    throw new Error(`create ${typeName}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
}

/** What the recipe makes for instance `i`, made directly: the same properties, the same order. */
async function directPair(api: Api, i: number): Promise<void> {
  const name = instance(i);
  await create(api, BOX_TYPE, {
    Name: `${name}_db`,
    Size: 'L',
    // The recipe's password is generated per instance, as here.
    Password: randomBytes(24).toString('base64url'),
    Host: 'default.db.internal',
  });
  await create(api, LOGIN_TYPE, { User: `${name}_user`, Database: `${name}_db` });
}

async function register(api: Api): Promise<void> {
  const r = await api.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
}

/** One instance through the recipe; its binding must be filled, or the figure means nothing. */
async function throughRecipe(api: Api, i: number): Promise<void> {
  const name = instance(i);
  const r = await api.call('POST', `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}?wait=60`, {
    desiredState: { name, size: 'L' },
  });
  const event = r.body?.progressEvent;
  if (event?.operationStatus !== 'SUCCESS')
    throw new Error(`instance ${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  if (i === 0) {
    const read = await api.call('GET', `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}/${name}`);
    const props = read.body?.resourceDescription?.properties ?? read.body?.properties;
    if (props?.status?.binding?.username !== `${name}_user`)
      throw new Error(`instance ${name} has no binding: ${JSON.stringify(read.body).slice(0, 500)}`);
  }
}

/** A recipe of `count` resources (databases and their logins, in pairs) reading the instance's context. */
function largeRecipe(count: number): string {
  const resources: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const pair = Math.floor(i / 2);
    resources[i % 2 === 0 ? `Database${pair}` : `Login${pair}`] =
      i % 2 === 0
        ? {
            Type: BOX_TYPE,
            Properties: {
              Name: { 'Fn::Sub': `\${context.resource.name}_db${pair}` },
              Size: { 'Fn::GetAtt': ['context', 'resource.properties.size'] },
              Password: { Ref: 'Password' },
              Host: { 'Fn::Sub': `\${context.environment.name}.db${pair}.internal` },
            },
          }
        : {
            Type: LOGIN_TYPE,
            Properties: {
              User: { 'Fn::Sub': `\${context.resource.name}_user${pair}` },
              Database: { Ref: `Database${pair}` },
            },
          };
  }
  return JSON.stringify(
    {
      Metadata: { 'Typeplane::Recipe': { GeneratedSecrets: ['Password'] } },
      Parameters: { Password: { Type: 'String', NoEcho: true } },
      Resources: resources,
      Outputs: {
        result: {
          Value: {
            values: {
              'status.binding.hostname': { 'Fn::GetAtt': ['Database0', 'Host'] },
              'status.binding.username': { Ref: 'Login0' },
              'status.binding.secret': { 'Fn::Sub': '${Database0}/password' },
            },
          },
        },
      },
    },
    null,
    2,
  );
}

/** Median ms of `CHECKS` calls of `fn`, after two unmeasured ones (the first loads code). */
async function medianOf(fn: () => Promise<void>): Promise<number> {
  await fn();
  await fn();
  const times: number[] = [];
  for (let k = 0; k < CHECKS; k++) times.push((await measured(undefined, fn)).ms);
  return median(times);
}

async function checkOverHttp(text: string): Promise<number> {
  const { server, api } = await fresh();
  try {
    return await medianOf(async () => {
      const r = await api.call('POST', '/v1/recipes/check', { typeName: SAMPLE_TYPE, template: text });
      if (r.status !== 200 || r.body?.valid !== true)
        throw new Error(`check: ${r.status} ${JSON.stringify(r.body).slice(0, 1000)}`);
    });
  } finally {
    api.close();
    await server.stop();
  }
}

async function checkInProcess(text: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-bench-recipes-'));
  removeAtExit(dir);
  const files = [join(dir, 'database.json'), join(dir, 'login.json')];
  writeFileSync(files[0]!, BOX);
  writeFileSync(files[1]!, LOGIN);
  const service = await startService({
    dataDir: join(dir, 'data'),
    port: 0,
    logger: pino({ level: 'silent' }),
    adminToken: generateToken(),
    types: [...files, SAMPLE_MANIFEST_FILE],
  });
  try {
    return await medianOf(async () => {
      const r = await service.recipes.check({ typeName: SAMPLE_TYPE, template: text });
      if (!r.valid) throw new Error(`check: ${JSON.stringify(r.diagnostics).slice(0, 1000)}`);
    });
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `recipes benchmark: ${INSTANCES} instances through a two-resource recipe against ${INSTANCES * 2} direct creates, ${ROUNDS} rounds, concurrency ${CONCURRENCY}${useDist ? ', dist/' : ''}`,
  );
  const rows = { direct: [] as number[], recipe: [] as number[], ratio: [] as number[] };
  const cpu = { direct: [] as number[], recipe: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    let direct = { ms: 0, cpuMs: 0 };
    let recipe = { ms: 0, cpuMs: 0 };
    const sides = [
      async () => {
        const { server, api } = await fresh();
        direct = await measured(server.child.pid, () => pool(INSTANCES, (i) => directPair(api, i)));
        api.close();
        await server.stop();
      },
      async () => {
        const { server, api } = await fresh();
        await register(api);
        recipe = await measured(server.child.pid, () => pool(INSTANCES, (i) => throughRecipe(api, i)));
        api.close();
        await server.stop();
      },
    ];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
    rows.direct.push(direct.ms);
    rows.recipe.push(recipe.ms);
    rows.ratio.push(recipe.ms / direct.ms);
    cpu.direct.push(direct.cpuMs);
    cpu.recipe.push(recipe.cpuMs);
    console.log(
      `round ${round + 1}/${ROUNDS}: direct ${fmt(direct.ms)} ms (server CPU ${fmt(direct.cpuMs)} ms), recipe ${fmt(recipe.ms)} ms (server CPU ${fmt(recipe.cpuMs)} ms), ratio ${fmt(recipe.ms / direct.ms, 2)}x`,
    );
  }

  const text = largeRecipe(CHECK_RESOURCES);
  const http = await checkOverHttp(text);
  const inProcess = await checkInProcess(text);

  const ratio = median(rows.ratio);
  console.log('');
  console.log(
    `${INSTANCES * 2} direct creates (${INSTANCES} databases, each then its login), ${CONCURRENCY} at a time: ${fmt(median(rows.direct))} ms`,
  );
  console.log(
    `${INSTANCES} instances through the two-resource recipe, ${CONCURRENCY} at a time:          ${fmt(median(rows.recipe))} ms`,
  );
  console.log(
    `server CPU per instance: direct (its two creates) ${fmt(median(cpu.direct) / INSTANCES, 2)} ms, through the recipe ${fmt(median(cpu.recipe) / INSTANCES, 2)} ms (${fmt(median(cpu.recipe) / median(cpu.direct), 2)}x)`,
  );
  console.log(
    `ratio (median of the rounds' ratios): ${fmt(ratio, 2)}x   ${ratio <= 1.1 ? 'MEETS the moonshot' : ratio <= 1.3 ? 'MEETS the target' : 'MISSES the target'}: target ≤ 1.3× (moonshot 1.1×)`,
  );
  console.log(
    `registration type-check of a ${CHECK_RESOURCES}-resource recipe, median of ${CHECKS}: POST /v1/recipes/check ${fmt(http, 1)} ms, in process ${fmt(inProcess, 1)} ms   ${Math.max(http, inProcess) < 200 ? 'MEETS' : 'MISSES'} the target: < 200 ms`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
