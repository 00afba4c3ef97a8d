/**
 * Stacks benchmark (not a test): what deploying through a stack costs over creating the same
 * resources directly, each side on a fresh `typeplane serve` child process (state provider, SQLite),
 * measured in the same run. Prints figures and ratios:
 *
 * - plan of a 1,000-resource template (a new stack: all Add; an existing one: Modify and NoChange);
 * - deploy of 1,000 independent resources against 1,000 direct API creates at the same concurrency
 *   (the stack runs 32 operations at once; 32 clients each create and wait, `?wait=`);
 * - a chain of 100 resources, each depending on the one before, against 100 direct creates one
 *   after another: the stack's overhead per resource.
 *
 * Each server first serves `--warmup` resources (3,000 by default) unmeasured, as the measured side
 * would, with other names: the direct side that many creates, the stack side a stack of that many
 * (planned, deployed, deleted). A server measured cold runs its first requests in code not yet
 * compiled, which weighs most on the side whose work is spread over fewer calls (see
 * bench/recipes.ts); `--warmup 0` measures cold.
 *
 *   npm run bench:stacks -- [--resources 1000] [--chain 100] [--rounds 3] [--warmup 3000] [--dist]
 *
 * Each figure is the median of its rounds; the two sides of a comparison alternate which goes first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  WIDGET_SCHEMA,
  WIDGET_TYPE,
  client,
  flag,
  fmt,
  numberArg,
  removeAtExit,
  startServer,
} from './harness.js';

const RESOURCES = numberArg('resources', 1000);
const CHAIN = numberArg('chain', 100);
const ROUNDS = numberArg('rounds', 3);
/** Made first on each fresh server, unmeasured: the figures are a warm server's. */
const WARMUP = numberArg('warmup', 3000, { zero: true });
/** The stacks' default: most engine operations one deployment runs at once. */
const CONCURRENCY = 32;
const useDist = flag('dist');

const name = (i: number) => `r${String(i).padStart(5, '0')}`;
/** Warm-up resources are numbered from here (direct creates) and from STACK_WARM_FROM (stacks): never the measured ones' names. */
const WARM_FROM = 50_000;
const STACK_WARM_FROM = 70_000;

function template(
  count: number,
  options: { chain?: boolean; color?: (i: number) => string; from?: number } = {},
): string {
  const resources: Record<string, unknown> = {};
  for (let i = options.from ?? 0; i < (options.from ?? 0) + count; i++)
    resources[name(i).toUpperCase()] = {
      Type: WIDGET_TYPE,
      ...(options.chain && i > (options.from ?? 0) ? { DependsOn: name(i - 1).toUpperCase() } : {}),
      Properties: { Name: name(i), Color: options.color?.(i) ?? 'red', Count: i },
    };
  return JSON.stringify({ Resources: resources });
}

async function fresh() {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-bench-stacks-'));
  removeAtExit(dir);
  const schema = join(dir, 'widget.json');
  writeFileSync(schema, JSON.stringify(WIDGET_SCHEMA));
  const server = await startServer(join(dir, 'data'), ['--types', schema], useDist);
  return { server, api: client(server, CONCURRENCY + 2) };
}

type Api = Awaited<ReturnType<typeof fresh>>['api'];

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** `count` direct creates, `workers` at a time, each waiting for its operation to succeed. */
async function directCreates(api: Api, count: number, workers: number, from = 0): Promise<void> {
  let next = from;
  const worker = async () => {
    for (let i = next++; i < from + count; i = next++) {
      const r = await api.call('POST', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}?wait=60`, {
        desiredState: { Name: name(i), Color: 'red', Count: i },
      });
      if (r.body?.progressEvent?.operationStatus !== 'SUCCESS')
        throw new Error(`direct create ${i}: ${JSON.stringify(r.body)}`);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}

async function deployStack(api: Api, stack: string, text: string, expected: string): Promise<void> {
  const r = await api.call('PUT', `/v1/stacks/${stack}?wait=300`, { template: text });
  if (r.body?.stack?.status !== expected)
    throw new Error(`stack ${stack}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
}

function plan(api: Api, stack: string, text: string): Promise<number> {
  return timed(async () => {
    const r = await api.call('POST', `/v1/stacks/${stack}/plans`, { template: text });
    if (r.status !== 201) throw new Error(`plan: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  });
}

/**
 * The stack side's warm-up: stacks of WARMUP resources in all (at most 1,000 each, under the template's
 * limit) planned, deployed, planned again and deleted, then a short chain.
 */
async function warmStacks(api: Api): Promise<void> {
  for (let from = 0; from < WARMUP; from += 1000) {
    const count = Math.min(1000, WARMUP - from);
    const stack = `warm${from / 1000}`;
    const warm = template(count, { from: STACK_WARM_FROM + from });
    await plan(api, stack, warm);
    await deployStack(api, stack, warm, 'CREATE_COMPLETE');
    await plan(api, stack, template(count, { from: STACK_WARM_FROM + from, color: () => 'blue' }));
    await removeStack(api, stack);
  }
  await deployStack(
    api,
    'warmchain',
    template(20, { from: STACK_WARM_FROM, chain: true }),
    'CREATE_COMPLETE',
  );
  await removeStack(api, 'warmchain');
}

/** Delete a stack and wait for it, or fail. */
async function removeStack(api: Api, stack: string): Promise<void> {
  const r = await api.call('DELETE', `/v1/stacks/${stack}?wait=300`);
  if (r.status >= 300) throw new Error(`deleting stack ${stack}: ${r.status} ${JSON.stringify(r.body)}`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  console.log(
    `stacks benchmark: ${RESOURCES} independent resources, a chain of ${CHAIN}, ${ROUNDS} rounds, concurrency ${CONCURRENCY}, warm-up ${WARMUP}${useDist ? ', dist/' : ''}`,
  );
  const independent = template(RESOURCES);
  const recolored = template(RESOURCES, { color: (i) => (i % 2 === 0 ? 'blue' : 'red') });
  const chain = template(CHAIN, { chain: true });
  const rows = {
    direct: [] as number[],
    stack: [] as number[],
    planNew: [] as number[],
    planUpdate: [] as number[],
  };
  const chains = { direct: [] as number[], stack: [] as number[] };

  for (let round = 0; round < ROUNDS; round++) {
    const sides = [
      async () => {
        const { server, api } = await fresh();
        if (WARMUP > 0) await directCreates(api, WARMUP, CONCURRENCY, WARM_FROM);
        rows.direct.push(await timed(() => directCreates(api, RESOURCES, CONCURRENCY)));
        api.close();
        await server.stop();
      },
      async () => {
        const { server, api } = await fresh();
        if (WARMUP > 0) await warmStacks(api);
        rows.planNew.push(await plan(api, 'many', independent));
        rows.stack.push(await timed(() => deployStack(api, 'many', independent, 'CREATE_COMPLETE')));
        rows.planUpdate.push(await plan(api, 'many', recolored));
        api.close();
        await server.stop();
      },
    ];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
    // The chain sides: direct creates one after another, on a server of their own.
    const { server, api } = await fresh();
    if (WARMUP > 0) {
      await directCreates(api, WARMUP, CONCURRENCY, WARM_FROM);
      await warmStacks(api);
    }
    const sequential = async () => chains.direct.push(await timed(() => directCreates(api, CHAIN, 1)));
    const stacked = async () =>
      chains.stack.push(await timed(() => deployStack(api, 'chain', chain, 'CREATE_COMPLETE')));
    // One server for both chain sides: what the first made is deleted before the second runs.
    if (round % 2 === 0) {
      await stacked();
      await api.call('DELETE', '/v1/stacks/chain?wait=300');
      await sequential();
    } else {
      await sequential();
      for (let i = 0; i < CHAIN; i++)
        await api.call('DELETE', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/${name(i)}?wait=60`);
      await stacked();
    }
    api.close();
    await server.stop();
    console.log(`round ${round + 1}/${ROUNDS} done`);
  }
  const direct = median(rows.direct);
  const stack = median(rows.stack);
  const chainStack = median(chains.stack);
  const chainBase = median(chains.direct);
  const overhead = (chainStack - chainBase) / CHAIN;
  console.log('');
  console.log(
    `plan, ${RESOURCES} resources, new stack (all Add):        ${fmt(median(rows.planNew))} ms   (target < 1,000 ms)`,
  );
  console.log(
    `plan, ${RESOURCES} resources, half Modify, half NoChange: ${fmt(median(rows.planUpdate))} ms   (target < 1,000 ms)`,
  );
  console.log(`${RESOURCES} direct API creates, ${CONCURRENCY} at a time:         ${fmt(direct)} ms`);
  console.log(
    `stack deploy of the same ${RESOURCES} resources:            ${fmt(stack)} ms   ratio ${fmt(stack / direct, 2)}x (target <= 1.5x)`,
  );
  console.log(
    `${CHAIN} direct creates one after another:            ${fmt(chainBase)} ms   (${fmt(chainBase / CHAIN, 2)} ms each)`,
  );
  console.log(
    `stack deploy of a chain of ${CHAIN}:                      ${fmt(chainStack)} ms   (${fmt(chainStack / CHAIN, 2)} ms each)`,
  );
  console.log(
    `stack time per chained resource, engine and handler included: ${fmt(chainStack / CHAIN, 2)} ms, so the stack's own overhead is at most that (target < 5 ms)`,
  );
  console.log(`  against a direct create waited for over HTTP: ${fmt(overhead, 2)} ms per resource`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
