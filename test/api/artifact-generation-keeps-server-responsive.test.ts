/**
 * Making artifacts never holds a server's event loop: with the whole AWS corpus registered (1,489
 * types; on one thread their OpenAPI document takes over a second to generate — 1.1 s on an idle
 * 2-core machine, 3.5 s on a busy one — and the stack template about half that),
 * a `typeplane serve` process answers /healthz within 500 ms throughout: while they are generated, a
 * burst of scoped readers asks for more artifacts than the generator queue holds, one token asks past
 * its share, and readers cycle through more artifacts than the cache keeps. What is served — in br,
 * gzip or no coding — is byte for byte what the generators make of the registered types; made again
 * after eviction, it is the same again. A burst past the queue is answered 503, a token past its
 * share 429, each with Retry-After.
 */
import { test, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  generateBicep,
  generateOpenApi,
  manifestEditorSchema,
  propertiesSchemaFileName,
  stackTemplateSchema,
  typePropertiesSchema,
} from '../../src/codegen/index.js';
import { validateDocument, type ResourceType } from '../../src/schema/index.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';
import { spawnServer, tempDir } from '../helpers/service.js';

const skip = corpusSkip();
const READERS = 10;
const HEALTHZ_BOUND_MS = 500;
/** The server's artifact cache. */
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Polls /healthz every 20 ms from a process of its own (this one is busy decoding), printing when
 * each poll started (ms since the epoch) and how long it took.
 */
const POLLER = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const poll = () => {
  const start = performance.now();
  http.get(process.argv[1] + '/healthz', { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      const ms = (performance.now() - start).toFixed(1);
      console.log(Date.now() + ' ' + (res.statusCode === 200 ? ms : 'status ' + res.statusCode));
      setTimeout(poll, 20);
    });
  }).on('error', (e) => { console.log('error ' + e.message); setTimeout(poll, 20); });
};
poll();
`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** As sent (still coded). */
  raw: Buffer;
  /** Decoded. */
  body: Buffer;
}

let server: Awaited<ReturnType<typeof spawnServer>>;
let poller: ChildProcess;
const latencies: string[] = [];
/** When each test began, to tell where a slow /healthz fell. */
const phases: { name: string; at: number }[] = [];
let types: ResourceType[];
/** Each artifact's path and what the generators make of it. */
let expected: [string, Buffer][];
/** How long generating the OpenAPI document took on this process's one thread. */
let openapiMs: number;
const readers: string[] = [];
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function get(path: string, token: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(server.url + path, { agent, headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const coding = res.headers['content-encoding'];
          const body =
            coding === 'br' ? brotliDecompressSync(raw) : coding === 'gzip' ? gunzipSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, body });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function post(path: string, body: string): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: await res.json() };
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const json = (value: unknown) => Buffer.from(JSON.stringify(value) + '\n');

before(async () => {
  if (skip) return;
  const files = readdirSync(AWS_CORPUS)
    .filter((f) => f.endsWith('.json'))
    .sort();
  // The server registers the corpus as it starts (the quickest way in); this process reads the same
  // documents meanwhile, on the other core.
  const starting = spawnServer(tempDir(), ['--types', AWS_CORPUS]);
  types = [];
  for (const file of files) {
    const result = validateDocument(readFileSync(AWS_CORPUS + file, 'utf8'), { file });
    // As the store keeps them: JSON, listed by type name.
    types.push(...result.types.map((t) => JSON.parse(JSON.stringify(t)) as ResourceType));
  }
  types.sort((a, b) => (a.typeName < b.typeName ? -1 : 1));
  server = await starting;
  const listed = await get('/v1/types', server.token);
  assert.equal(listed.status, 200, listed.body.toString());
  assert.equal((JSON.parse(listed.body.toString()) as { types: unknown[] }).types.length, types.length);

  // Readers whose scopes differ (each leaves out the services of a few initials), so each has its
  // own artifacts, all of them large; every one reaches AWS::S3.
  const initials = [...new Set(types.map((t) => t.typeName.split('::')[1]!.slice(0, 1)))].sort();
  for (let k = 0; k < READERS; k++) {
    const globs = [...initials.filter((_, i) => i % READERS !== k).map((p) => `AWS::${p}*`), 'AWS::S3::*'];
    const made = await post('/v1/tokens', JSON.stringify({ role: 'reader', types: globs }));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    readers.push(made.body.token);
  }

  // What the generators make of the same types, here (before the polling starts: this process's
  // work competes for the same cores).
  const started = performance.now();
  const openapi = json(generateOpenApi(types, { version: 'v1' }));
  openapiMs = performance.now() - started;
  const connect = generateBicep(types.filter((t) => t.typeName.startsWith('AWS::Connect::')))[0]!;
  const queue = types.find((t) => t.typeName === 'AWS::Batch::JobQueue')!;
  expected = [
    ['/v1/openapi.json', openapi],
    ['/v1/artifacts/json-schema/stack-template.json', json(stackTemplateSchema(types))],
    ['/v1/artifacts/bicep/AWS.Connect/types.json', Buffer.from(connect.files['types.json'])],
    ['/v1/artifacts/bicep/aws.connect/index.md', Buffer.from(connect.files['index.md'])],
    [`/v1/artifacts/json-schema/${propertiesSchemaFileName(queue)}`, json(typePropertiesSchema(queue))],
    ['/v1/artifacts/json-schema/manifest.json', json(manifestEditorSchema())],
  ];

  poller = spawn(process.execPath, ['-e', POLLER, server.url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let pending = '';
  poller.stdout!.on('data', (d: Buffer) => {
    const lines = (pending + d.toString()).split('\n');
    pending = lines.pop()!;
    latencies.push(...lines);
  });
});

beforeEach((t) => phases.push({ name: t.name, at: Date.now() }));

after(() => {
  agent.destroy();
  poller?.kill();
  server?.child.kill();
});

test('served artifacts are byte for byte what the generators make, in every coding', { skip }, async (t) => {
  for (const [path, bytes] of expected) {
    const started = performance.now();
    assert.equal((await get(path, server.token)).status, 200);
    t.diagnostic(`${path}: made in ${(performance.now() - started).toFixed(0)} ms`);
    let etag: string | undefined;
    for (const [accept, coding] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['identity', undefined],
      ['', undefined],
    ] as const) {
      const answer = await get(path, server.token, accept ? { 'accept-encoding': accept } : {});
      assert.equal(answer.status, 200, `${path} (${accept})`);
      assert.equal(answer.headers['content-encoding'], coding, `${path} (${accept})`);
      assert.match(String(answer.headers.vary), /accept-encoding/i);
      assert.ok(answer.body.equals(bytes), `${path} (${accept}) is not what the generator makes`);
      if (coding) assert.ok(answer.raw.length < bytes.length / 2, `${path} is compressed`);
      // One ETag for the artifact, whatever its coding; a conditional request in any coding is 304.
      etag ??= answer.headers.etag;
      assert.equal(answer.headers.etag, etag);
      const again = await get(path, server.token, { 'if-none-match': etag!, 'accept-encoding': accept });
      assert.equal(again.status, 304);
      assert.equal(again.raw.length, 0);
    }
  }
});

test(
  'a burst past the generator queue is answered 503 with Retry-After; the rest are served',
  { skip },
  async () => {
    // One reader's large ones first: they hold the threads for seconds while the rest arrive.
    const large = ['/v1/openapi.json', '/v1/artifacts/json-schema/stack-template.json'];
    // Then small ones, each reader's own (one ETag rule): the meta-schemas and AWS::S3's Bicep files.
    const small = [
      '/v1/artifacts/json-schema/manifest.json',
      '/v1/artifacts/json-schema/resource-schema.json',
      '/v1/artifacts/bicep/AWS.S3/index.json',
      '/v1/artifacts/bicep/AWS.S3/types.json',
    ];
    const first = large.map((path) => get(path, readers[0]!));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Four jobs a token at most: the first reader has two already.
    const then = readers.flatMap((token, k) => small.slice(k === 0 ? 2 : 0).map((path) => get(path, token)));
    const answers = await Promise.all([...first, ...then]);
    const statuses = answers.map((a) => a.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 503),
      `statuses: ${statuses.join(' ')}`,
    );
    // 32 wait in the queue and one or two run: of 40, six or seven are refused.
    const refused = answers.filter((a) => a.status === 503);
    assert.ok(refused.length >= 6 && refused.length <= 7, `statuses: ${statuses.join(' ')}`);
    for (const answer of refused) {
      assert.match(String(answer.headers['retry-after']), /^[1-9][0-9]*$/);
      assert.equal(answer.headers.etag, undefined);
      const error = JSON.parse(answer.body.toString());
      assert.equal(error.errorCode, 'Throttling');
      assert.match(error.message, /waiting to be generated/);
    }
  },
);

test("one token's jobs past its share are answered 429 with Retry-After", { skip }, async () => {
  // A new type changes every artifact of the admin token: nothing of it is cached.
  const added = await post(
    '/v1/types',
    JSON.stringify({
      typeName: 'Test::Artifacts::Thing',
      description: 'A type registered so that the artifacts change.',
      properties: { Name: { type: 'string' } },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    }),
  );
  assert.equal(added.status, 201);
  const large = ['/v1/openapi.json', '/v1/artifacts/json-schema/stack-template.json'];
  const small = ['Connect', 'Cognito', 'CloudFront', 'Batch', 'Backup', 'AppStream'].map(
    (namespace) => `/v1/artifacts/bicep/AWS.${namespace}/types.json`,
  );
  const first = large.map((path) => get(path, server.token));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const answers = await Promise.all([...first, ...small.map((path) => get(path, server.token))]);
  const statuses = answers.map((a) => a.status);
  // The two large ones and two more are the token's four; the others come while those wait.
  assert.equal(statuses.filter((s) => s === 200).length, 4, `statuses: ${statuses.join(' ')}`);
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(refused.length, 4, `statuses: ${statuses.join(' ')}`);
  for (const answer of refused) {
    assert.match(String(answer.headers['retry-after']), /^[1-9][0-9]*$/);
    const error = JSON.parse(answer.body.toString());
    assert.equal(error.errorCode, 'Throttling');
    assert.match(error.message, /this token has 4 artifacts being generated/);
  }
  const again = small[answers.slice(2).findIndex((a) => a.status === 429)]!;
  // Once answered, the share is free again.
  assert.equal((await get(again, server.token)).status, 200);
});

test('artifacts evicted from the cache are made again, the same bytes', { skip }, async () => {
  const paths = ['/v1/openapi.json', '/v1/artifacts/json-schema/stack-template.json'];
  const round = () =>
    Promise.all(
      // Three readers' OpenAPI documents and stack templates: about 80 MB.
      readers.slice(0, 3).map(async (token) => {
        const digests: string[] = [];
        let bytes = 0;
        for (const path of paths) {
          const answer = await get(path, token, { 'accept-encoding': 'br' });
          assert.equal(answer.status, 200, `${path}: ${answer.body.toString().slice(0, 300)}`);
          digests.push(sha(answer.body));
          bytes += answer.body.length;
        }
        return { digests, bytes };
      }),
    );
  const first = await round();
  const total = first.reduce((n, r) => n + r.bytes, 0);
  // More than the cache holds, uncompressed alone: some were made again in the second round.
  assert.ok(total > CACHE_BYTES, `the readers' artifacts are ${total} bytes`);
  const second = await round();
  assert.deepEqual(
    second.map((r) => r.digests),
    first.map((r) => r.digests),
  );
  // Each reader's artifacts are its own.
  assert.equal(new Set(first.map((r) => r.digests[0])).size, 3);
});

test(`/healthz was answered within ${HEALTHZ_BOUND_MS} ms throughout`, { skip }, async (t) => {
  poller.kill();
  const polls = latencies.map((line) => line.split(' '));
  const failures = polls.filter(([, ms]) => !/^[0-9.]+$/.test(ms!));
  assert.deepEqual(failures, []);
  const times = polls.map(([, ms]) => Number(ms)).sort((a, b) => a - b);
  // Polled all along (the tests above take tens of seconds).
  assert.ok(times.length >= 100, `${times.length} polls`);
  const max = times.at(-1)!;
  t.diagnostic(
    `the OpenAPI document of ${types.length} types took ${openapiMs.toFixed(0)} ms to generate on one thread`,
  );
  t.diagnostic(
    `${times.length} polls: p50 ${times[Math.floor(times.length / 2)]} ms, p99 ${times[Math.floor(times.length * 0.99)]} ms, max ${max} ms`,
  );
  const slowest = polls
    .filter(([, ms]) => Number(ms) > HEALTHZ_BOUND_MS)
    .map(([at, ms]) => `${ms} ms during "${phases.findLast((p) => p.at <= Number(at))?.name}"`);
  assert.deepEqual(slowest, [], `/healthz took longer than ${HEALTHZ_BOUND_MS} ms`);
});
