/**
 * Benchmark (not a test): what a type's consumers get, for the whole AWS corpus.
 *
 * 1. Generation, in this process: Bicep extension types, the OpenAPI document, the JSON Schemas (each
 *    type's properties and the stack template) and TypeScript for all 1,489 corpus types, each the
 *    median of ROUNDS passes, against the baseline of validating the same corpus (what `typeplane
 *    validate` does) measured in the same run. Every Bicep extension is read back with
 *    `@azure/bicep-types` (every index entry resolves), so a generator error cannot pass unseen.
 * 2. Serving, from a `typeplane serve` child process with the corpus registered: request latency
 *    (p50/p99, time to the last byte over a keep-alive connection) of the served artifacts — the first
 *    request (generated), repeated ones (cached; as is and in `br`), conditional ones (304) and the
 *    first after a registration (generated again) — against the baseline of reading one type
 *    (`GET /v1/types/…`). While an artifact is generated, /healthz is polled on a connection of its
 *    own: its slowest answer is how long the server's event loop was held (generation runs on
 *    generator threads; on the event loop it would be the generation time of part 1).
 *
 *   npm run bench:artifacts -- [--rounds 3] [--requests 50] [--dist]
 */
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CrossFileTypeReference, readIndexJson, readTypesJson, TypeBaseKind } from '@azure/bicep-types';
import {
  generateBicep,
  generateOpenApi,
  generateTypeScript,
  stackTemplateSchema,
  typePropertiesSchema,
} from '../src/codegen/index.js';
import { validateDocument, type ResourceType } from '../src/schema/index.js';
import { client, flag, fmt, numberArg, quantile, removeAtExit, startServer } from './harness.js';

const ROUNDS = numberArg('rounds', 3);
const REQUESTS = numberArg('requests', 50);
const corpus = fileURLToPath(new URL('../../shared/corpus/aws-resource-schemas/', import.meta.url));
if (!existsSync(corpus)) {
  console.error(`corpus not found at ${corpus}`);
  process.exit(1);
}
const files = readdirSync(corpus).filter((f) => f.endsWith('.json'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median time of ROUNDS runs of `fn`, in ms, and its last result. */
function timed<T>(fn: () => T): { ms: number; result: T } {
  const times: number[] = [];
  let result!: T;
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    result = fn();
    times.push(performance.now() - t);
  }
  return { ms: median(times), result };
}

function validateCorpus(): ResourceType[] {
  const types: ResourceType[] = [];
  for (const file of files) {
    const result = validateDocument(readFileSync(corpus + file), { file });
    if (!result.valid) throw new Error(`${file} is not valid`);
    types.push(...result.types);
  }
  return types;
}

// --- 1. Generation -----------------------------------------------------------------------------------

const baseline = timed(validateCorpus);
const types = baseline.result;
const generators: [string, () => number][] = [
  ['Bicep extension types', () => generateBicep(types).reduce((n, e) => n + e.files['types.json'].length, 0)],
  ['OpenAPI document', () => JSON.stringify(generateOpenApi(types, { version: 'v1' })).length],
  [
    'JSON Schemas (properties, stack template)',
    () =>
      types.reduce((n, t) => n + JSON.stringify(typePropertiesSchema(t)).length, 0) +
      JSON.stringify(stackTemplateSchema(types)).length,
  ],
  ['TypeScript interfaces', () => generateTypeScript(types, [corpus]).length],
];

// Read every extension back: each index entry must name a ResourceType of types.json.
let resources = 0;
for (const extension of generateBicep(types)) {
  const all = readTypesJson(extension.files['types.json']);
  const index = readIndexJson(extension.files['index.json']);
  for (const [name, ref] of Object.entries(index.resources)) {
    const target = ref instanceof CrossFileTypeReference ? all[ref.index] : undefined;
    if (target?.type !== TypeBaseKind.ResourceType || target.name !== name)
      throw new Error(`index entry ${name} does not resolve to its ResourceType`);
    resources++;
  }
}
if (resources !== types.length) throw new Error(`${resources} Bicep resources for ${types.length} types`);

console.log(`Generation for the whole AWS corpus: ${fmt(types.length)} types, median of ${ROUNDS} passes\n`);
console.log(`  ${'validate (baseline)'.padEnd(44)} ${fmt(baseline.ms).padStart(7)} ms   1.00×`);
for (const [name, generate] of generators) {
  const { ms, result } = timed(generate);
  console.log(
    `  ${name.padEnd(44)} ${fmt(ms).padStart(7)} ms   ${fmt(ms / baseline.ms, 2)}×   (${fmt(result / 1e6, 1)} MB)`,
  );
}
console.log(
  `  every Bicep index entry resolves (${fmt(resources)} resources read with @azure/bicep-types)\n`,
);

// --- 2. Serving --------------------------------------------------------------------------------------

type Client = ReturnType<typeof client>;

async function series(api: Client, path: string, headers: Record<string, string> = {}) {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const r = await api.timed('GET', path, headers);
    if (r.status !== 200 && r.status !== 304) throw new Error(`${path}: ${r.status}`);
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const dir = mkdtempSync(join(tmpdir(), 'typeplane-artifacts-'));
removeAtExit(dir);
let t = performance.now();
// Registering 1,489 types at start takes a while on a busy machine.
const server = await startServer(dir, ['--types', corpus], flag('dist'), 600_000);
// One connection: each figure is one request's, not a queue's.
const api = client(server, 1);
const probe = client(server, 1);

/** `work`'s result, and the slowest /healthz answer while it ran. */
async function healthzDuring<T>(work: Promise<T>): Promise<{ result: T; healthzMs: number }> {
  let done = false;
  let slowest = 0;
  const polling = (async () => {
    while (!done) {
      slowest = Math.max(slowest, (await probe.timed('GET', '/healthz')).ms);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const result = await work.finally(() => (done = true));
  await polling;
  return { result, healthzMs: slowest };
}
console.log(
  `Serving, with the corpus registered (server started in ${fmt((performance.now() - t) / 1000, 1)} s), ${REQUESTS} requests each, one connection\n`,
);
try {
  const base = await series(api, `/v1/types/${encodeURIComponent('AWS::S3::Bucket')}`);
  const columns = ['first', '/healthz', 'p50', 'p99', 'br p50', 'br MB', '304 p50'];
  console.log(
    `  ${'GET /v1/types/AWS::S3::Bucket (baseline)'.padEnd(60)} ${columns.map((c) => c.padStart(9)).join(' ')}   p50 ratio, br`,
  );
  console.log(
    `  ${''.padEnd(60)} ${['', '', fmt(base.p50, 2), fmt(base.p99, 2), '', '', ''].map((c) => c.padStart(9)).join(' ')}   1.00×`,
  );
  const artifacts = [
    '/v1/openapi.json',
    '/v1/artifacts/bicep/AWS.S3/index.json',
    '/v1/artifacts/bicep/AWS.S3/types.json',
    '/v1/artifacts/bicep/AWS.EC2/types.json',
    '/v1/artifacts/json-schema/stack-template.json',
    '/v1/artifacts/json-schema/manifest.json',
  ];
  for (const path of artifacts) {
    const { result: first, healthzMs } = await healthzDuring(api.timed('GET', path));
    if (first.status !== 200 || !first.etag) throw new Error(`${path}: ${first.status}`);
    const warm = await series(api, path);
    const br = await series(api, path, { 'accept-encoding': 'br' });
    const brBytes = (await api.timed('GET', path, { 'accept-encoding': 'br' })).bytes;
    const conditional = await series(api, path, { 'if-none-match': first.etag });
    const figures = [first.ms, healthzMs, warm.p50, warm.p99, br.p50];
    console.log(
      `  ${`${path} (${fmt(first.bytes / 1e6, 2)} MB)`.padEnd(60)} ${[...figures.map((f) => fmt(f, 1)), fmt(brBytes / 1e6, 2), fmt(conditional.p50, 2)].map((c) => c.padStart(9)).join(' ')}   ${fmt(warm.p50 / base.p50, 1)}×, ${fmt(br.p50 / base.p50, 1)}×`,
    );
  }

  // A registration changes the OpenAPI document at once: the next request generates it again.
  const schema = JSON.stringify({
    typeName: 'Bench::Artifacts::Thing',
    description: 'A type registered while the artifacts are served.',
    properties: { Name: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  });
  const before = await api.timed('GET', '/v1/openapi.json');
  t = performance.now();
  const registered = await api.timed('POST', '/v1/types', {}, schema);
  if (registered.status !== 201) throw new Error(`registration: ${registered.status}`);
  const { result: after, healthzMs } = await healthzDuring(
    api.timed('GET', '/v1/openapi.json', { 'if-none-match': before.etag! }),
  );
  if (after.status !== 200 || after.etag === before.etag)
    throw new Error('the OpenAPI document did not change with the registration');
  console.log(
    `\n  after a registration, the first GET /v1/openapi.json (generated again): ${fmt(after.ms, 1)} ms, slowest /healthz meanwhile ${fmt(healthzMs, 1)} ms; registration to new document ${fmt(performance.now() - t, 1)} ms`,
  );
} finally {
  api.close();
  probe.close();
  await server.stop();
}
