/**
 * Random and mutated requests against a live server, shared by the fuzz test
 * (`test/security/fuzz.test.ts`) and the benchmark (`bench/fuzz.ts`).
 *
 * fast-check generates batches of requests: a valid request for some route (creates, patches, puts,
 * deletes, reads, lists, requests, types, tokens), then maybe one mutation of it: wrong types, extra
 * or missing keys, `__proto__`/`constructor` keys, deep nesting, huge strings, broken JSON, wrong
 * content types, random methods, odd path segments and query strings, unicode, binary, missing or
 * bad tokens. Each batch is sent with bounded concurrency over keep-alive connections, and every
 * answer is judged: no 5xx, and every refusal in the contract's error shape with a catalogued code
 * and a status the API documents.
 *
 * Generators for the classes of attack a tenant holds: JSON Patch documents of `copy`/`move`/`add`
 * on the resource's own paths (copy bombs), tokens scoped by globs built to backtrack against long
 * names, long strings against patterns of a thousand instructions, YAML type documents of anchors and
 * aliases, lone surrogates and NFD spellings in strings, and references from a writer scoped to one
 * type to resources of a type it cannot see (always 403). With access keys, one request in nine
 * is a Cloud Control request (POST /): an operation with members valid or not, as JSON or not, signed
 * as it is sent by a writer's key, a key scoped to one type, a wrong secret, or unsigned; judged by
 * AWS's statuses and error shape. A third of those are well-formed requests of the scoped key naming
 * a type out of its scope, tallied by operation ({@link FuzzReport.outOfScope}) so that a run shows
 * each operation refused. {@link startWatchdog} watches the server
 * meanwhile: an event-loop delay over 200 ms or an RSS over 1 GB fails the run like a 5xx.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { ERROR_CODES, isErrorCode } from '../../src/errors.js';
import { signedHeaders } from '../helpers/cloudcontrol.js';
import { measureLoopHolds } from '../helpers/loop-hold.js';
import { FUZZ_NOECHO_SECRET, stackRequests } from './fuzz-stacks.js';

export const WIDGET = 'Test::Fuzz::Widget';
export const PAIR = 'Test::Fuzz::Pair';
/** A manifest type: '/' in its name. */
export const QUEUE = 'Typeplane.Messaging/queues';
/** Strings checked against patterns whose cost is program size × length. */
export const BITS = 'Test::Fuzz::Bits';
/** Refers to widgets; a writer token reaches this type only. */
export const LINK = 'Test::Fuzz::Link';
const TYPES = [WIDGET, PAIR, QUEUE] as const;
type TypeName = (typeof TYPES)[number];

const widgetSchema = {
  typeName: WIDGET,
  description: 'A widget the fuzz test creates, changes and deletes.',
  properties: {
    Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' },
    Size: { type: 'string', enum: ['S', 'M', 'L'], default: 'S' },
    Color: { type: 'string', maxLength: 64 },
    Count: { type: 'integer', minimum: 0, maximum: 1000 },
    Secret: { type: 'string' },
    Labels: { type: 'array', maxItems: 20, items: { type: 'string', pattern: '^[a-z]*$' } },
    Nested: {
      type: 'object',
      additionalProperties: false,
      properties: {
        Inner: {
          type: 'object',
          additionalProperties: false,
          properties: { Deep: { type: 'string' }, When: { type: 'string', format: 'date-time' } },
        },
      },
    },
    Tags: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['Key'],
        properties: { Key: { type: 'string', minLength: 1 }, Value: { type: 'string' } },
      },
    },
    Id: { type: 'string' },
    /** Free-form, as a policy document is: a patch may copy anything into it. */
    Doc: { type: 'object' },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  readOnlyProperties: ['/properties/Id'],
  writeOnlyProperties: ['/properties/Secret'],
};

const pairSchema = {
  typeName: PAIR,
  description: 'A resource with a compound identifier (region and key).',
  properties: {
    Region: { type: 'string', enum: ['eu', 'us'] },
    Key: { type: 'string', pattern: '^[a-z0-9]+$' },
    Value: { type: 'string' },
    Meta: {
      type: 'object',
      patternProperties: { '^x-[a-z]+$': { type: 'string' } },
      additionalProperties: false,
    },
    Url: { type: 'string', format: 'uri' },
  },
  additionalProperties: false,
  required: ['Region', 'Key'],
  primaryIdentifier: ['/properties/Region', '/properties/Key'],
  createOnlyProperties: ['/properties/Region', '/properties/Key'],
};

const bitsSchema = {
  typeName: BITS,
  description: 'Strings checked against patterns of about a thousand RE2 instructions.',
  properties: {
    Name: { type: 'string' },
    One: { type: 'string', pattern: '1[01]{1000}2' },
    Four: { type: 'string', allOf: [1, 2, 3, 4].map((n) => ({ pattern: `${n}[01]{1000}2` })) },
    Many: { type: 'array', items: { type: 'string', pattern: '1[01]{1000}2' } },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
};

const linkSchema = {
  typeName: LINK,
  description: 'A link to a widget.',
  properties: {
    Name: { type: 'string' },
    Widget: { type: 'string', relationshipRef: { typeName: WIDGET, propertyPath: '/properties/Name' } },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
};

/** The type documents to register before fuzzing, with their content types. */
export function fuzzTypeDocuments(): { body: string; contentType: string }[] {
  return [
    { body: JSON.stringify(widgetSchema), contentType: 'application/json' },
    { body: JSON.stringify(pairSchema), contentType: 'application/json' },
    { body: JSON.stringify(bitsSchema), contentType: 'application/json' },
    { body: JSON.stringify(linkSchema), contentType: 'application/json' },
    {
      body: readFileSync(new URL('../../examples/queues.yaml', import.meta.url), 'utf8'),
      contentType: 'application/yaml',
    },
  ];
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Which template and mutation made it, for the report. */
  kind: string;
  /** The only statuses a right answer may have, when the request alone decides it. */
  expect?: number[];
  /** A 202 must carry an operation that already FAILED. */
  mustFail?: boolean;
  /** The Cloud Control exception (`__type`) a refusal must be, when the request alone decides it. */
  expectType?: string;
  /** A Cloud Control request, signed as it is sent (its time must be now) with these keys. */
  sign?: { keys: 'writer' | 'scoped' | 'wrong-secret'; operation: string };
  /** The Cloud Control operation, when a key scoped to {@link LINK} sends it naming another type. */
  outOfScope?: string;
  /** Text the answer may not hold: the NoEcho value unless the request itself carries it, and what lies out of scope. */
  forbidden?: string[];
}

/** Access key pairs for the Cloud Control requests (see {@link fuzzAwsKeys}). */
export interface FuzzAwsKeys {
  /** A writer's, of every type. */
  writer: { accessKeyId: string; secretAccessKey: string };
  /** A writer's, scoped to {@link LINK}. */
  scoped: { accessKeyId: string; secretAccessKey: string };
}

/** Statuses the API documents; 5xx never comes from a request alone. */
const DOCUMENTED_STATUSES = new Set([200, 201, 202, 204, 400, 401, 403, 404, 409, 413, 414, 415, 429, 431]);
/** Refusals of the transport rather than the contract, all InvalidRequest. */
const TRANSPORT_STATUSES = new Set([413, 414, 415, 431]);

// ---------------------------------------------------------------------------------------------
// Valid requests

/** Any code points, lone surrogates included (cheaper to build than fast-check's binary strings). */
const anyText = (maxLength: number, minLength = 0) =>
  fc
    .array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0x10ffff })), {
      minLength,
      maxLength,
    })
    .map((codes) => String.fromCodePoint(...codes));

const names = fc.constantFrom(...Array.from({ length: 40 }, (_, i) => `n${i}`));
const lower = fc.stringMatching(/^[a-z]{0,8}$/);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const clientToken = maybe(fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/));

const widgetState = fc.record(
  {
    Name: names,
    Size: fc.constantFrom('S', 'M', 'L'),
    Color: lower,
    Count: fc.integer({ min: 0, max: 1000 }),
    Secret: lower,
    Labels: fc.array(lower, { maxLength: 4 }),
    Nested: fc.record({ Inner: fc.record({ Deep: fc.string({ maxLength: 10 }) }, { requiredKeys: [] }) }),
    Tags: fc.array(
      fc.record({ Key: fc.stringMatching(/^[A-Za-z]{1,6}$/), Value: lower }, { requiredKeys: ['Key'] }),
      {
        maxLength: 3,
      },
    ),
  },
  { requiredKeys: ['Name'] },
);
const pairState = fc.record(
  {
    Region: fc.constantFrom('eu', 'us'),
    Key: names.map((n) => n.slice(1)),
    Value: fc.string({ maxLength: 12 }),
    Meta: fc.dictionary(fc.stringMatching(/^x-[a-z]{1,5}$/), lower, { maxKeys: 3 }),
    Url: fc.constantFrom('https://example.com/a', 'http://h/', 'urn:x:y'),
  },
  { requiredKeys: ['Region', 'Key'] },
);
const queueState = fc.record(
  {
    name: names,
    fifo: fc.boolean(),
    retentionHours: fc.integer({ min: 1, max: 336 }),
    labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), lower, { maxKeys: 3 }),
    deadLetterQueue: fc.option(lower, { nil: null }),
  },
  { requiredKeys: ['name'] },
);

const stateOf: Record<TypeName, fc.Arbitrary<Record<string, unknown>>> = {
  [WIDGET]: widgetState,
  [PAIR]: pairState,
  [QUEUE]: queueState,
};

const identifierOf = (type: TypeName, state: Record<string, unknown>): string =>
  type === PAIR ? `${String(state.Region)}|${String(state.Key)}` : String(state.Name ?? state.name);

const identifier: Record<TypeName, fc.Arbitrary<string>> = {
  [WIDGET]: names,
  [PAIR]: fc.tuple(fc.constantFrom('eu', 'us'), names).map(([r, n]) => `${r}|${n.slice(1)}`),
  [QUEUE]: names,
};

const patchOps: Record<TypeName, fc.Arbitrary<unknown[]>> = {
  [WIDGET]: fc.array(
    fc.oneof(
      lower.map((v) => ({ op: 'replace', path: '/Color', value: v })),
      lower.map((v) => ({ op: 'add', path: '/Labels/-', value: v })),
      fc.constant({ op: 'remove', path: '/Labels/0' }),
      fc.integer({ min: 0, max: 1000 }).map((v) => ({ op: 'add', path: '/Count', value: v })),
      fc.constant({ op: 'copy', from: '/Color', path: '/Secret' }),
      fc.constant({ op: 'test', path: '/Size', value: 'S' }),
      lower.map((v) => ({ op: 'add', path: '/Nested', value: { Inner: { Deep: v } } })),
      fc.constant({ op: 'replace', path: '/Name', value: 'renamed' }),
    ),
    { minLength: 1, maxLength: 4 },
  ),
  [PAIR]: fc.array(
    fc.oneof(
      lower.map((v) => ({ op: 'replace', path: '/Value', value: v })),
      lower.map((v) => ({ op: 'add', path: '/Meta/x-a', value: v })),
      fc.constant({ op: 'remove', path: '/Meta' }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  [QUEUE]: fc.array(
    fc.oneof(
      fc.boolean().map((v) => ({ op: 'replace', path: '/fifo', value: v })),
      fc.integer({ min: 0, max: 400 }).map((v) => ({ op: 'replace', path: '/retentionHours', value: v })),
      lower.map((v) => ({ op: 'add', path: '/labels/a', value: v })),
      fc.constant({ op: 'add', path: '/deadLetterQueue', value: null }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
};

/** A request before encoding: its body is a value (sent as JSON) or raw text. */
export interface Template {
  kind: string;
  method: string;
  segments: string[];
  /** The path's segments as sent, when a mutation chose them (already percent-encoded). */
  encoded?: string[];
  query: [string, string][];
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  /** Sent with the scoped token of this index (see {@link fuzzTokenSpecs}) instead of the admin's. */
  scoped?: number;
  /** The only statuses a right answer may have, as long as no mutation changed the request. */
  expect?: number[];
  /** A 202 must carry an operation that already FAILED. */
  mustFail?: boolean;
  /** The Cloud Control exception (`__type`) a refusal must be, when the request alone decides it. */
  expectType?: string;
  /** A Cloud Control request, signed as it is sent (its time must be now) with these keys. */
  sign?: { keys: 'writer' | 'scoped' | 'wrong-secret'; operation: string };
  /** Text the answer may not hold (what lies outside the caller's scope). */
  forbidden?: string[];
}

// ---------------------------------------------------------------------------------------------
// Attacks a tenant holds

const globPart = fc.constantFrom('*', 'a', 'Aa', '::', 'Test', 'Fuzz', 'W', '/', 'b', 'Zz', '.');
const randomGlobs = fc.array(
  fc.array(globPart, { minLength: 1, maxLength: 14 }).map((parts) => parts.join('').slice(0, 256)),
  { minLength: 1, maxLength: 4 },
);

/**
 * Tokens a run creates before it starts, in this order: a writer that reaches only {@link LINK}
 * (index 0), readers and a writer scoped by globs built to backtrack, and readers with random globs.
 */
export function fuzzTokenSpecs(seed: number): { role: string; types: string[] }[] {
  return [
    { role: 'writer', types: [LINK] },
    { role: 'reader', types: ['Aa::*::*::*::*Zz'] },
    { role: 'reader', types: ['*a*a*a*a*a*a*a*a*a*b'] },
    { role: 'writer', types: ['Test::*::*::*Widget', 'AWS::*::*::*Bucket'] },
    ...fc.sample(randomGlobs, { numRuns: 8, seed }).map((types) => ({ role: 'reader', types })),
  ];
}

/** Links {@link fuzzSetup} makes (without a widget), for the scoped writer to try to point elsewhere. */
export const FUZZ_LINKS = ['link0', 'link1', 'link2'];

/**
 * What a run needs on the server before it starts: the fuzz types registered, the tokens of
 * {@link fuzzTokenSpecs} (answered in that order), and the links of {@link FUZZ_LINKS}.
 */
export async function fuzzSetup(
  call: (
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<{ status: number; body: any }>,
  seed: number,
): Promise<string[]> {
  for (const doc of fuzzTypeDocuments()) {
    const res = await call('POST', '/v1/types', doc.body, { 'content-type': doc.contentType });
    if (res.status !== 201) throw new Error(`registering a fuzz type failed: ${JSON.stringify(res.body)}`);
  }
  const tokens: string[] = [];
  for (const spec of fuzzTokenSpecs(seed)) {
    const res = await call('POST', '/v1/tokens', spec);
    if (res.status !== 201) throw new Error(`a fuzz token was refused: ${JSON.stringify(res.body)}`);
    tokens.push(res.body.token as string);
  }
  for (const name of FUZZ_LINKS) {
    const res = await call('POST', `/v1/resources/${encodeURIComponent(LINK)}?wait=10`, {
      desiredState: { Name: name },
    });
    if (res.body?.progressEvent?.operationStatus !== 'SUCCESS')
      throw new Error(`a fuzz link was not created: ${JSON.stringify(res.body)}`);
  }
  return tokens;
}

/** Access key pairs for the Cloud Control requests: a writer's, and a writer's scoped to {@link LINK}. */
export async function fuzzAwsKeys(
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>,
): Promise<FuzzAwsKeys> {
  const make = async (types?: string[]) => {
    const res = await call('POST', '/v1/tokens', {
      role: 'writer',
      awsKeys: true,
      ...(types ? { types } : {}),
    });
    if (res.status !== 201) throw new Error(`fuzz access keys were refused: ${JSON.stringify(res.body)}`);
    return {
      accessKeyId: res.body.accessKeyId as string,
      secretAccessKey: res.body.secretAccessKey as string,
    };
  };
  return { writer: await make(), scoped: await make([LINK]) };
}

/** A long name for a glob to match: repeats of a part, up to the path limit. */
const longName = fc
  .tuple(fc.constantFrom('a', 'Aa::', 'a::', 'Test::', 'S3::', 'ab', '*'), fc.integer({ min: 50, max: 4000 }))
  .map(([part, length]) => part.repeat(Math.ceil(length / part.length)).slice(0, length));

/** Bits for the patterns of {@link BITS}: mostly short, sometimes long enough to pass the budget. */
const bitString = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 2000 }) },
      { weight: 3, arbitrary: fc.integer({ min: 2000, max: 20_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 400_000 }) },
    ),
    fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  )
  .map(([length, seed]) => {
    let bits = '1';
    let x = seed | 1;
    while (bits.length < length) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      bits += (x >>> 0).toString(2).slice(1);
    }
    return `${bits.slice(0, length)}2`;
  });

/** A YAML type document with an anchored list aliased again and again. */
const aliasedYaml = fc
  .tuple(
    fc.oneof(
      { weight: 9, arbitrary: fc.integer({ min: 1, max: 5000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 5000, max: 250_000 }) },
    ),
    fc.integer({ min: 1, max: 130 }),
    fc.boolean(),
  )
  .map(([items, aliases, flow]) => {
    const list = flow
      ? `[${Array(items).fill('x').join(',')}]`
      : `\n${Array(items).fill('  - x').join('\n')}`;
    const uses = Array.from({ length: aliases }, (_, i) => `  k${i}: *a`).join('\n');
    return `typeName: Test::Fuzz::Aliases\ndescription: anchors\nbig: &a ${list}\nmore:\n${uses}\n`;
  });

/** Copy, move and add on the widget's own paths: a patch that may double its document each time. */
const patchBomb = fc.array(
  fc.oneof(
    fc.nat({ max: 30 }).map((i) => ({ op: 'copy', from: '/Doc', path: `/Doc/c${i}` })),
    fc.constant({ op: 'copy', from: '/Doc', path: '/Doc/again' }),
    fc.nat({ max: 30 }).map((i) => ({ op: 'move', from: `/Doc/c${i}`, path: `/Doc/m${i}` })),
    fc.integer({ min: 1, max: 5000 }).map((n) => ({ op: 'add', path: '/Doc', value: { s: 'x'.repeat(n) } })),
    fc.constant({ op: 'add', path: '/Doc/l', value: [] }),
    fc.constant({ op: 'copy', from: '/Doc', path: '/Doc/l/-' }),
    fc.constant({ op: 'copy', from: '/Labels', path: '/Doc/labels' }),
  ),
  { minLength: 1, maxLength: 60 },
);

const attacks: fc.Arbitrary<Template> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(names, patchBomb).map<Template>(([id, ops]) => ({
      kind: 'patch-bomb',
      method: 'PATCH',
      segments: ['v1', 'resources', WIDGET, id],
      query: [],
      body: { patchDocument: ops },
      expect: [202, 400, 404, 409],
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(longName, fc.constantFrom('types', 'resources', 'resource'), fc.nat())
      .map<Template>(([name, route, scoped]) => ({
        kind: 'glob-probe',
        method: 'GET',
        segments:
          route === 'types'
            ? ['v1', 'types', name]
            : route === 'resources'
              ? ['v1', 'resources', name]
              : ['v1', 'resources', name, 'x'],
        query: [],
        scoped: 1 + (scoped % 11),
        expect: [400, 403, 404, 414],
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(names, bitString, fc.constantFrom('One', 'Four', 'Many'), fc.integer({ min: 1, max: 300 }))
      .map<Template>(([name, bits, member, count]) => ({
        kind: 'pattern-long',
        method: 'POST',
        segments: ['v1', 'resources', BITS],
        query: [],
        body: {
          desiredState: {
            Name: name,
            [member]: member === 'Many' ? Array(count).fill(bits.slice(-Math.min(bits.length, 4000))) : bits,
          },
        },
        // 413: many long strings may pass the 1 MB body limit.
        expect: [202, 400, 409, 413],
      })),
  },
  {
    weight: 1,
    arbitrary: aliasedYaml.map<Template>((yaml) => ({
      kind: 'yaml-alias',
      method: 'POST',
      segments: ['v1', 'types'],
      query: [],
      rawBody: yaml,
      contentType: 'application/yaml',
      expect: [400],
    })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(names, names, fc.boolean()).map<Template>(([name, widget, patch]) =>
      patch
        ? {
            kind: 'ref-scope',
            method: 'PATCH',
            segments: ['v1', 'resources', LINK, FUZZ_LINKS[name.length % FUZZ_LINKS.length]!],
            query: [],
            body: { patchDocument: [{ op: 'add', path: '/Widget', value: widget }] },
            scoped: 0,
            // The scoped writer may delete links (other requests do); a patch of a missing one is an
            // operation that fails NotFound at once, never one that begins.
            expect: [403, 202],
            mustFail: true,
          }
        : {
            kind: 'ref-scope',
            method: 'POST',
            segments: ['v1', 'resources', LINK],
            query: [],
            body: { desiredState: { Name: name, Widget: widget } },
            scoped: 0,
            expect: [403],
          },
    ),
  },
);

const typeName = fc.constantFrom(...TYPES);
const waitQuery = fc.oneof(
  { weight: 30, arbitrary: fc.constant<[string, string][]>([]) },
  { weight: 5, arbitrary: fc.constant<[string, string][]>([['wait', '0']]) },
  { weight: 1, arbitrary: fc.constant<[string, string][]>([['wait', '1']]) },
);
/** Stands for the token of an operation started recently in the run (filled in when sent). */
export const RECENT_TOKEN = '@recent';
const requestToken = fc.oneof(
  { weight: 3, arbitrary: fc.constant(RECENT_TOKEN) },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constantFrom('nope', '00000000-0000-0000-0000-000000000000') },
);
const forgedNextToken = fc
  .oneof(
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ resources: v })),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ operations: v })),
    fc.string({ maxLength: 20 }),
  )
  .map((s) => Buffer.from(s).toString('base64url'));

const templates: fc.Arbitrary<Template> = fc.oneof(
  {
    weight: 6,
    arbitrary: typeName.chain((type) =>
      fc
        .record({
          state: stateOf[type],
          clientToken,
          query: waitQuery,
        })
        .map(({ state, clientToken, query }) => ({
          kind: 'create',
          method: 'POST',
          segments: ['v1', 'resources', type],
          query,
          body: { desiredState: state, ...(clientToken ? { clientToken } : {}) },
        })),
    ),
  },
  {
    weight: 4,
    arbitrary: typeName.chain((type) =>
      fc
        .record({ id: identifier[type], ops: patchOps[type], clientToken })
        .map(({ id, ops, clientToken }) => ({
          kind: 'patch',
          method: 'PATCH',
          segments: ['v1', 'resources', type, id],
          query: [],
          body: { patchDocument: ops, ...(clientToken ? { clientToken } : {}) },
        })),
    ),
  },
  {
    weight: 2,
    arbitrary: typeName.chain((type) =>
      stateOf[type].map((state) => ({
        kind: 'put',
        method: 'PUT',
        segments: ['v1', 'resources', type, identifierOf(type, state)],
        query: [],
        body: { desiredState: state },
      })),
    ),
  },
  {
    weight: 3,
    arbitrary: typeName.chain((type) =>
      fc.record({ id: identifier[type], clientToken }).map(({ id, clientToken }) => ({
        kind: 'delete',
        method: 'DELETE',
        segments: ['v1', 'resources', type, id],
        query: [],
        ...(clientToken ? { body: { clientToken } } : {}),
      })),
    ),
  },
  {
    weight: 4,
    arbitrary: typeName.chain((type) =>
      fc.record({ id: identifier[type], refs: fc.boolean() }).map(({ id, refs }) => ({
        kind: refs ? 'references' : 'read',
        method: 'GET',
        segments: ['v1', 'resources', type, id, ...(refs ? ['references'] : [])],
        query: [],
      })),
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        type: typeName,
        maxResults: maybe(
          fc.oneof(fc.integer({ min: -5, max: 1100 }).map(String), fc.string({ maxLength: 6 })),
        ),
        nextToken: maybe(forgedNextToken),
      })
      .map(({ type, maxResults, nextToken }) => ({
        kind: 'list',
        method: 'GET',
        segments: ['v1', 'resources', type],
        query: [
          ...(maxResults !== undefined ? [['maxResults', maxResults] as [string, string]] : []),
          ...(nextToken !== undefined ? [['nextToken', nextToken] as [string, string]] : []),
        ],
      })),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        token: requestToken,
        cancel: fc.boolean(),
        list: fc.boolean(),
        status: maybe(fc.constantFrom('PENDING,SUCCESS', 'FAILED', 'DONE', 'IN_PROGRESS')),
        operation: maybe(fc.constantFrom('CREATE', 'DELETE,UPDATE', 'EXPLODE')),
        // Mostly small pages: a full page of operations is the costliest answer there is.
        maxResults: fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: 1, max: 5 }).map(String) },
          { weight: 1, arbitrary: fc.integer({ min: -1, max: 1001 }).map(String) },
        ),
      })
      .map(({ token, cancel, list, status, operation, maxResults }) =>
        list
          ? {
              kind: 'requests-list',
              method: 'GET',
              segments: ['v1', 'requests'],
              query: [
                ...(status ? [['status', status] as [string, string]] : []),
                ...(operation ? [['operation', operation] as [string, string]] : []),
                ...(maxResults ? [['maxResults', maxResults] as [string, string]] : []),
              ],
            }
          : cancel
            ? { kind: 'cancel', method: 'POST', segments: ['v1', 'requests', token, 'cancel'], query: [] }
            : { kind: 'request', method: 'GET', segments: ['v1', 'requests', token], query: [] },
      ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constant<Template>({ kind: 'types-list', method: 'GET', segments: ['v1', 'types'], query: [] }),
      typeName.map<Template>((t) => ({
        kind: 'type-read',
        method: 'GET',
        segments: ['v1', 'types', t],
        query: [],
      })),
      // Deregistering is refused while resources exist; when none do, the type goes (and is re-registered below).
      typeName.map<Template>((t) => ({
        kind: 'type-delete',
        method: 'DELETE',
        segments: ['v1', 'types', t],
        query: [],
      })),
      fc
        // Not the link type's: a mutation can leave its document valid JSON with its reference
        // pointed at a property that is not the widget's identifier (seed 400607776 made
        // "/properties/Namke"), which makes the reference documentation only, and the scoped
        // writer's links then rightly begin: the ref-scope requests' 403 holds for the link type
        // as registered before the run.
        .constantFrom(...fuzzTypeDocuments().filter((doc) => !doc.body.includes(`"typeName":"${LINK}"`)), {
          body: '',
          contentType: 'application/yaml',
        })
        .map<Template>((doc) => ({
          kind: 'type-register',
          method: 'POST',
          segments: ['v1', 'types'],
          query: [],
          rawBody: doc.body,
          contentType: doc.contentType,
        })),
      fc.jsonValue({ maxDepth: 3 }).map<Template>((value) => ({
        kind: 'type-register-random',
        method: 'POST',
        segments: ['v1', 'types'],
        query: [],
        body: value,
      })),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constant<Template>({ kind: 'healthz', method: 'GET', segments: ['healthz'], query: [] }),
      fc.constant<Template>({ kind: 'tokens-list', method: 'GET', segments: ['v1', 'tokens'], query: [] }),
      fc.constantFrom('reader', 'writer', 'root', 7).map<Template>((role) => ({
        kind: 'token-create',
        method: 'POST',
        segments: ['v1', 'tokens'],
        query: [],
        body: { role },
      })),
      fc.uuid().map<Template>((id) => ({
        kind: 'token-revoke',
        method: 'DELETE',
        segments: ['v1', 'tokens', id],
        query: [],
      })),
      fc
        .array(fc.string({ maxLength: 8 }), { maxLength: 5 })
        .map<Template>((segments) => ({ kind: 'random-path', method: 'GET', segments, query: [] })),
    ),
  },
);

// ---------------------------------------------------------------------------------------------
// Mutations

type Mutation = (t: Template) => Template;

/** Every place in a JSON value where a member or item sits, as its parent and key. */
function slots(root: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const found: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        found.push([node, i]);
        walk(item);
      });
    } else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) {
        found.push([node as Record<string, unknown>, k]);
        walk(v);
      }
    }
  };
  walk(root);
  return found;
}

/** Mutates the body value at the `pick`-th slot (the whole body when there is none). */
const atSlot =
  (pick: number, change: (old: unknown) => unknown): Mutation =>
  (t) => {
    const body = structuredClone(t.body ?? {});
    const all = slots(body);
    if (all.length === 0) return { ...t, body: change(body) };
    const [parent, key] = all[pick % all.length]!;
    (parent as Record<string | number, unknown>)[key] = change(
      (parent as Record<string | number, unknown>)[key],
    );
    return { ...t, body };
  };

const nest = (depth: number, inner: unknown): unknown => {
  let value = inner;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

/** Characters that make identifiers and type names interesting. */
const oddSegment = fc.oneof(
  fc.constantFrom(
    '%00',
    '%7C',
    '%2F',
    '..',
    '%2E%2E',
    '%ff',
    '%',
    '%E0%A4%A',
    '%c0%af',
    '|',
    'a%7Cb%7Cc',
    '%F0%9F%92%A9',
    '~',
    ':',
  ),
  anyText(12).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, 'x'))),
  fc.integer({ min: 100, max: 5000 }).map((n) => 'a'.repeat(n)),
  fc
    .uint8Array({ maxLength: 8 })
    .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
);

const specialKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '',
    'Name',
    '\u0000',
  ),
  anyText(6),
);

const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, true, -1, 1e308, 0.5, '', [], {}, 'x'.repeat(300)),
  anyText(20),
);

const contentTypes = fc.constantFrom(
  'text/plain',
  'application/yaml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/octet-stream',
  'application/json, text/plain',
  '',
);

/** Words whose NFD spelling differs from their NFC one. */
const composed = fc.constantFrom('caf\u00e9', '\u00c5ngstr\u00f6m', '\u00f1ame', 'n\u00e9-1');
const loneSurrogate = fc.constantFrom('\ud800', '\udc00', '\udbff\udbff', 'x\udfff');

const methods = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE');

const mutations: fc.Arbitrary<{ name: string; apply: Mutation }> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({ name: 'valid', apply: (t: Template) => t }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.nat(), wrongValue)
      .map(([pick, v]) => ({ name: 'wrong-value', apply: atSlot(pick, () => v) })),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.nat(), specialKey, wrongValue).map(([pick, key, v]) => ({
      name: 'extra-key',
      apply: atSlot(pick, (old) =>
        typeof old === 'object' && old !== null && !Array.isArray(old)
          ? Object.defineProperty({ ...old }, key, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            })
          : Object.defineProperty({}, key, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            }),
      ),
    })),
  },
  {
    weight: 2,
    arbitrary: fc.nat().map((pick) => ({
      name: 'missing-key',
      apply: (t: Template) => {
        const body = structuredClone(t.body ?? {});
        const all = slots(body).filter(([parent]) => !Array.isArray(parent));
        if (all.length > 0) {
          const [parent, key] = all[pick % all.length]!;
          delete (parent as Record<string, unknown>)[key as string];
        }
        return { ...t, body };
      },
    })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom('proto', 'constructor', 'escaped')).map(([pick, how]) => ({
      name: `prototype-key-${how}`,
      apply: (t: Template) => {
        const text = JSON.stringify(t.body ?? {});
        const key =
          how === 'proto'
            ? '"__proto__":{"polluted":"yes"}'
            : how === 'constructor'
              ? '"constructor":{"prototype":{"polluted":"yes"}}'
              : '"\\u005f_proto__":{"polluted":"yes"}';
        // Into the n-th object of the body.
        const opens = [...text.matchAll(/\{/g)].map((m) => m.index);
        const at = opens.length === 0 ? -1 : opens[pick % opens.length]!;
        const rawBody =
          at < 0
            ? `{${key}}`
            : `${text.slice(0, at + 1)}${key}${text[at + 1] === '}' ? '' : ','}${text.slice(at + 1)}`;
        return { ...t, rawBody };
      },
    })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 10, max: 160 })).map(([pick, depth]) => ({
      name: depth > 98 ? 'deep-nesting-over' : 'deep-nesting',
      apply: atSlot(pick, (old) => nest(depth, old)),
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.oneof(
          { weight: 40, arbitrary: fc.integer({ min: 1000, max: 20_000 }) },
          { weight: 4, arbitrary: fc.integer({ min: 20_000, max: 200_000 }) },
          // Over the 1 MB body limit: 413.
          { weight: 1, arbitrary: fc.integer({ min: 1_000_000, max: 1_100_000 }) },
        ),
      )
      .map(([pick, size]) => ({
        name: size > 1_000_000 ? 'huge-string-over' : 'huge-string',
        apply: atSlot(pick, () => 'x'.repeat(size)),
      })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), anyText(30, 1)).map(([pick, s]) => ({
      name: 'unicode',
      apply: atSlot(pick, () => s),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), composed).map(([pick, word]) => ({
      name: 'nfd',
      apply: atSlot(pick, (old) => (typeof old === 'string' ? `${old}${word}` : word).normalize('NFD')),
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), loneSurrogate).map(([pick, lone]) => ({
      name: 'surrogate',
      apply: atSlot(pick, (old) => (typeof old === 'string' ? `${old}${lone}` : lone)),
    })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.nat(),
        fc.constantFrom('truncate', 'insert', 'delete', 'trailing', 'empty', 'nan'),
        fc.string({ maxLength: 3 }),
      )
      .map(([pick, how, s]) => ({
        name: `bad-json-${how}`,
        apply: (t: Template) => {
          const text = t.rawBody ?? JSON.stringify(t.body ?? {});
          const at = pick % (text.length + 1);
          const rawBody =
            how === 'truncate'
              ? text.slice(0, at)
              : how === 'insert'
                ? text.slice(0, at) + (s || '{') + text.slice(at)
                : how === 'delete'
                  ? text.slice(0, at) + text.slice(at + 1)
                  : how === 'trailing'
                    ? `${text},`
                    : how === 'empty'
                      ? ''
                      : text.replace(/\d+/, 'NaN');
          return { ...t, rawBody };
        },
      })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({
      name: 'binary-body',
      apply: (t: Template) => ({ ...t, rawBody: Buffer.from(bytes).toString('latin1') }),
    })),
  },
  {
    weight: 2,
    arbitrary: contentTypes.map((contentType) => ({
      name: 'content-type',
      apply: (t: Template) => ({ ...t, contentType }),
    })),
  },
  {
    weight: 2,
    arbitrary: methods.map((method) => ({ name: 'method', apply: (t: Template) => ({ ...t, method }) })),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.nat(), oddSegment, fc.boolean()).map(([pick, segment, append]) => ({
      name: append ? 'path-extra' : 'path-odd',
      apply: (t: Template) => {
        const encoded = t.segments.map(encodeURIComponent);
        if (append || encoded.length === 0) encoded.push(segment);
        else encoded[pick % encoded.length] = segment;
        return { ...t, encoded };
      },
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom(
            'maxResults',
            'nextToken',
            'wait',
            'status',
            'operation',
            'x',
            '__proto__',
            'maxResults[]',
          ),
          fc.oneof(fc.string({ maxLength: 10 }), forgedNextToken, fc.integer().map(String), fc.constant('')),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((extra) => ({ name: 'query', apply: (t: Template) => ({ ...t, query: [...t.query, ...extra] }) })),
  },
);

/** Authorization as sent: the admin token mostly, sometimes none or a bad one. */
const authorization = fc.oneof(
  { weight: 30, arbitrary: fc.constant<'admin' | 'none' | string>('admin') },
  { weight: 1, arbitrary: fc.constant('none') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('Bearer nope', 'Bearer ', 'Basic YTpi', 'bearer  x y', 'Bearer tp_0000'),
  },
);

const extraHeaders = fc.oneof(
  { weight: 200, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 10,
    arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{0,140}$/).map((v) => ({ 'x-client-token': v })),
  },
  // Over Node's header size limit: 431, and the connection closes.
  { weight: 1, arbitrary: fc.constant({ 'x-padding': 'p'.repeat(20_000) }) },
  { weight: 5, arbitrary: fc.constant({ 'x-request-id': 'caller-chosen' }) },
);

/**
 * Requests for a server whose admin token is `token`; `scoped` are the tokens of
 * {@link fuzzTokenSpecs}, in order.
 */
// ---------------------------------------------------------------------------------------------
// Cloud Control (POST /, AWS JSON 1.0, SigV4)

const CC_OPERATIONS = [
  'CreateResource',
  'GetResource',
  'UpdateResource',
  'DeleteResource',
  'ListResources',
  'GetResourceRequestStatus',
  'ListResourceRequests',
  'CancelResourceRequest',
] as const;
/** Operations that name a type: a key scoped to {@link LINK} naming another is refused. */
const CC_TYPED = new Set([
  'CreateResource',
  'GetResource',
  'UpdateResource',
  'DeleteResource',
  'ListResources',
]);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A JSON document as a string member's value: well-formed, or text that is not JSON, or too large or deep. */
const jsonMember = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: anyText(40) },
    { weight: 1, arbitrary: fc.integer({ min: 101, max: 400 }).map((d) => '['.repeat(d) + ']'.repeat(d)) },
    {
      weight: 1,
      arbitrary: fc.constant(
        JSON.stringify({ __proto__: 1, Name: 'n1' }).replace('"Name"', '"__proto__":{"x":1},"Name"'),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 16_000, max: 70_000 }).map((n) => JSON.stringify({ Name: 'x'.repeat(n) })),
    },
  );

const ccType = fc.oneof(
  { weight: 6, arbitrary: typeName },
  { weight: 2, arbitrary: fc.constant(LINK) },
  { weight: 1, arbitrary: anyText(250) },
);

/** A member's value of the wrong kind. */
const ccWrongValue = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

/** Values for each member: mostly valid, now and then not. */
const CC_MEMBER_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  TypeName: ccType,
  Identifier: fc.oneof({ weight: 4, arbitrary: names }, { weight: 1, arbitrary: anyText(1100) }),
  DesiredState: jsonMember(typeName.chain((t) => stateOf[t])),
  PatchDocument: jsonMember(typeName.chain((t) => patchOps[t])),
  ClientToken: clientToken,
  MaxResults: fc.oneof(fc.integer({ min: -2, max: 120 }), fc.string({ maxLength: 4 })),
  NextToken: forgedNextToken,
  ResourceModel: jsonMember(fc.record({ Color: lower }, { requiredKeys: [] })),
  RequestToken: fc.oneof(
    { weight: 4, arbitrary: fc.constant(RECENT_TOKEN) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: anyText(140) },
  ),
  ResourceRequestStatusFilter: fc.record(
    {
      Operations: fc.array(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'READ', 'x'), { maxLength: 3 }),
      OperationStatuses: fc.array(fc.constantFrom('SUCCESS', 'FAILED', 'PENDING', 'nope'), {
        maxLength: 3,
      }),
    },
    { requiredKeys: [] },
  ),
  TypeVersionId: fc.constantFrom('1', '00000001', '2', '0', 'v1', '99999999999'),
  RoleArn: fc.constantFrom('arn:aws:iam::123456789012:role/x', 'arn:aws:iam::123456789012:role/y', ''),
};

/** The members each operation is sent with, and those it needs (the others are sent or not). */
const CC_MEMBERS: Record<string, { members: string[]; required: string[] }> = {
  CreateResource: {
    members: ['TypeName', 'DesiredState', 'ClientToken', 'TypeVersionId', 'RoleArn'],
    required: ['TypeName', 'DesiredState'],
  },
  GetResource: { members: ['TypeName', 'Identifier', 'TypeVersionId'], required: ['TypeName', 'Identifier'] },
  UpdateResource: {
    members: ['TypeName', 'Identifier', 'PatchDocument', 'ClientToken'],
    required: ['TypeName', 'Identifier', 'PatchDocument'],
  },
  DeleteResource: {
    members: ['TypeName', 'Identifier', 'ClientToken'],
    required: ['TypeName', 'Identifier'],
  },
  ListResources: {
    members: ['TypeName', 'MaxResults', 'NextToken', 'ResourceModel'],
    required: ['TypeName'],
  },
  GetResourceRequestStatus: { members: ['RequestToken'], required: ['RequestToken'] },
  ListResourceRequests: { members: ['MaxResults', 'NextToken', 'ResourceRequestStatusFilter'], required: [] },
  CancelResourceRequest: { members: ['RequestToken'], required: ['RequestToken'] },
};

/** The members of one operation, each present or not, valid or not. */
function ccMembers(operation: string): fc.Arbitrary<{ members: Record<string, unknown>; odd: boolean }> {
  const { members: own, required } = CC_MEMBERS[operation] ?? { members: ['TypeName'], required: [] };
  return fc
    .tuple(
      fc.record(Object.fromEntries(own.map((m) => [m, CC_MEMBER_VALUES[m]!])), { requiredKeys: required }),
      // Now and then a member of the wrong kind, or one the operation does not have.
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...own, 'Unknown', 'TypeName'), ccWrongValue) },
      ),
    )
    .map(([record, odd]) => ({ members: odd ? { ...record, [odd[0]]: odd[1] } : record, odd: odd !== null }));
}

/** Each operation's members, made once (the unknown operations are sent a type name). */
const CC_MEMBERS_OF = new Map(
  [...CC_OPERATIONS, 'NoSuchOperation', ''].map((operation) => [operation, ccMembers(operation)] as const),
);

type CcSigner = 'writer' | 'scoped' | 'wrong-secret' | 'none';
type CcForm = 'json' | 'truncated' | 'binary' | 'array' | 'empty';

/**
 * One Cloud Control request, with what its members, form and signer alone decide of its answer: a
 * key's scope refuses a type it does not reach (AccessDeniedException), a wrong secret
 * InvalidSignatureException, no signature MissingAuthenticationTokenException.
 */
function ccFuzzRequest(
  operation: string,
  signer: CcSigner,
  form: CcForm,
  members: Record<string, unknown>,
  odd: boolean,
): FuzzRequest {
  const json = JSON.stringify(members);
  const text =
    form === 'truncated'
      ? json.slice(0, Math.max(1, json.length - 3))
      : form === 'array'
        ? `[${json}]`
        : form === 'empty'
          ? ''
          : json;
  const body = form === 'binary' ? Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3]) : Buffer.from(text, 'utf8');
  const kind = `cc-${operation || 'none'}:${form}:${signer}`;
  const target = `CloudApiService.${operation}`;
  if (signer === 'none')
    return {
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target },
      body,
      kind,
      expect: [403],
      expectType: 'MissingAuthenticationTokenException',
    };
  const signedRequest: FuzzRequest = {
    method: 'POST',
    path: '/',
    headers: {},
    body,
    kind,
    sign: { keys: signer, operation },
  };
  if (signer === 'wrong-secret')
    return { ...signedRequest, expect: [400], expectType: 'InvalidSignatureException' };
  // A key scoped to LINK never gets an answer about another type; when the body and the members
  // read before the type's scope is checked are fine (a name of 1 to 196 characters, no U+0000),
  // the refusal is AccessDenied.
  const otherType = signer === 'scoped' && CC_TYPED.has(operation) && members.TypeName !== LINK;
  const plain =
    form === 'json' &&
    !odd &&
    // A lone surrogate in any member is refused as the body is read.
    !Object.values(members).some((v) => typeof v === 'string' && LONE_SURROGATE.test(v)) &&
    typeof members.TypeName === 'string' &&
    members.TypeName.length > 0 &&
    members.TypeName.length <= 196 &&
    !members.TypeName.includes('\u0000');
  if (!otherType) return signedRequest;
  return {
    ...signedRequest,
    expect: [400],
    ...(plain ? { expectType: 'AccessDeniedException', outOfScope: operation } : {}),
  };
}

/**
 * A Cloud Control request: one of the eight operations (or an unknown one) with members valid or not,
 * as JSON or as bytes that are not, signed by a writer's key, by the writer scoped to {@link LINK}, by
 * a wrong secret, or not at all ({@link ccFuzzRequest}).
 */
const ccRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...CC_OPERATIONS) },
      { weight: 1, arbitrary: fc.constantFrom('NoSuchOperation', '') },
    ),
    fc.constantFrom<CcSigner>('writer', 'writer', 'writer', 'scoped', 'wrong-secret', 'none'),
    fc.oneof(
      { weight: 12, arbitrary: fc.constant<CcForm>('json') },
      { weight: 1, arbitrary: fc.constantFrom<CcForm>('truncated', 'binary', 'array', 'empty') },
    ),
  )
  .chain(([operation, signer, form]) =>
    CC_MEMBERS_OF.get(operation)!.map(({ members, odd }) =>
      ccFuzzRequest(operation, signer, form, members, odd),
    ),
  );

/**
 * A well-formed request of each operation that names a type, signed by the key scoped to
 * {@link LINK} and naming another type: enough of them in every run that each operation's
 * refusal is seen (see {@link FuzzReport.outOfScope}).
 */
const ccScopeProbe: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...CC_TYPED).chain((operation) => {
  const { members: own, required } = CC_MEMBERS[operation]!;
  const values: Record<string, fc.Arbitrary<unknown>> = { ...CC_MEMBER_VALUES, TypeName: typeName };
  return fc
    .record(Object.fromEntries(own.map((m) => [m, values[m]!])), { requiredKeys: required })
    .map((members) => ccFuzzRequest(operation, 'scoped', 'json', members, false));
});

export function fuzzRequest(token: string, scoped: string[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fc.oneof(
        { weight: 18, arbitrary: templates },
        { weight: 2, arbitrary: attacks },
        { weight: 1, arbitrary: stackRequests(WIDGET) },
      ),
      mutations,
      authorization,
      extraHeaders,
    )
    .map(([template, mutation, auth, headers]) => {
      const t = mutation.apply(template);
      const path =
        '/' +
        (t.encoded ?? t.segments.map(encodeURIComponent)).join('/') +
        (t.query.length > 0
          ? `?${t.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`
          : '');
      const all: Record<string, string> = { ...headers };
      const as = t.scoped === undefined ? token : scoped[t.scoped % scoped.length];
      if (auth === 'admin') all.authorization = `Bearer ${as}`;
      else if (auth !== 'none') all.authorization = auth;
      // Only the request as the template made it, sent as it says, has a known answer.
      const expect =
        t.expect && mutation.name === 'valid' && auth === 'admin' && Object.keys(headers).length === 0
          ? t.expect
          : undefined;
      const text = t.rawBody ?? (t.body !== undefined ? JSON.stringify(t.body) : undefined);
      // A request as made may not be answered with what it may not see, nor with the NoEcho value
      // it sends; once mutated, it may be answered with its own text (a parse error quoting it).
      const forbidden = [...(t.forbidden ?? []), FUZZ_NOECHO_SECRET].filter(
        (s) => mutation.name === 'valid' || !text?.includes(s),
      );
      if (text !== undefined) all['content-type'] = t.contentType ?? 'application/json';
      else if (t.contentType) all['content-type'] = t.contentType;
      if (all['content-type'] === '') delete all['content-type'];
      return {
        method: t.method,
        path,
        headers: all,
        ...(text !== undefined
          ? { body: Buffer.from(text, mutation.name === 'binary-body' ? 'latin1' : 'utf8') }
          : {}),
        kind: `${template.kind}:${mutation.name}${auth === 'admin' ? '' : ':auth'}`,
        ...(expect ? { expect, ...(t.mustFail ? { mustFail: true } : {}) } : {}),
        forbidden,
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Sending and judging

export interface FuzzAnswer {
  status: number;
  body: string;
}

/**
 * Sends a request; one whose kept-alive connection the server had already closed (its idle timeout
 * passed while this side was busy: Node's documented race, `req.reusedSocket`) is sent once more on a
 * new connection, and `onResent` is told. A server that hangs up on a request itself still fails: the
 * second attempt, on a fresh connection, meets the same end.
 */
export async function send(
  agent: http.Agent,
  url: URL,
  request: FuzzRequest,
  onResent?: () => void,
): Promise<FuzzAnswer> {
  try {
    return await sendOnce(agent, url, request);
  } catch (e) {
    if (!(e as { reusedSocket?: boolean }).reusedSocket || (e as NodeJS.ErrnoException).code !== 'ECONNRESET')
      throw e;
    onResent?.();
    return sendOnce(false, url, request);
  }
}

function sendOnce(agent: http.Agent | false, url: URL, request: FuzzRequest): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        // Node frames a body of GET, HEAD, DELETE… only when told its length.
        headers: request.body
          ? { ...request.headers, 'content-length': String(request.body.length) }
          : request.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })));
    req.end(request.body);
  });
}

/** Operations started in the run, so that follows and cancels reach real ones. */
function remember(recent: string[], body: string): void {
  try {
    const answer = JSON.parse(body) as {
      progressEvent?: { requestToken?: unknown };
      ProgressEvent?: { RequestToken?: unknown };
    };
    const token = answer.progressEvent?.requestToken ?? answer.ProgressEvent?.RequestToken;
    if (typeof token !== 'string') return;
    recent.push(token);
    if (recent.length > 64) recent.shift();
  } catch {
    /* judged elsewhere */
  }
}

function withRecentToken(request: FuzzRequest, recent: string[]): FuzzRequest {
  const placeholder = encodeURIComponent(RECENT_TOKEN);
  const inBody = request.sign !== undefined && request.body?.includes(RECENT_TOKEN) === true;
  if (!request.path.includes(placeholder) && !inBody) return request;
  // The newest ones are likeliest to be still active.
  const token =
    recent[recent.length - 1 - (request.path.length % Math.min(8, recent.length || 1))] ?? 'none-yet';
  if (inBody)
    return { ...request, body: Buffer.from(request.body!.toString('utf8').replaceAll(RECENT_TOKEN, token)) };
  return { ...request, path: request.path.replace(placeholder, token) };
}

/** Why an answer breaks the contract, or `undefined`; and its tally key. */
export function judge(request: FuzzRequest, answer: FuzzAnswer): { key: string; violation?: string } {
  for (const text of request.forbidden ?? [FUZZ_NOECHO_SECRET])
    if (answer.body.includes(text))
      return {
        key: `${answer.status} leak`,
        violation: `${request.kind} answered ${answer.status} holding '${text}', which it may not see: ${answer.body.slice(0, 300)}`,
      };
  // POST / is the Cloud Control API: AWS's statuses, errors in AWS's shape, `{ __type, message }`.
  if (request.method === 'POST' && /^\/(\?|$)/.test(request.path)) return judgeCloudControl(request, answer);
  const { status } = answer;
  if (status >= 500) return { key: `${status}`, violation: `a ${status}: ${answer.body.slice(0, 300)}` };
  if (request.expect && !request.expect.includes(status))
    return {
      key: `${status}`,
      violation: `${request.kind} answered ${status}, not ${request.expect.join(' or ')}: ${answer.body.slice(0, 300)}`,
    };
  if (request.mustFail && status === 202 && !answer.body.includes('"operationStatus":"FAILED"'))
    return {
      key: `${status}`,
      violation: `${request.kind} began an operation: ${answer.body.slice(0, 300)}`,
    };
  if (!DOCUMENTED_STATUSES.has(status))
    return { key: `${status}`, violation: `status ${status} is not documented` };
  if (status < 400) return { key: `${status}` };
  if (request.method === 'HEAD') return { key: `${status} (HEAD)` };
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return {
      key: `${status}`,
      violation: `a ${status} whose body is not JSON: ${answer.body.slice(0, 200)}`,
    };
  }
  const { errorCode, message, details } = (body ?? {}) as Record<string, unknown>;
  const key = `${status} ${String(errorCode)}`;
  if (!isErrorCode(errorCode))
    return { key, violation: `errorCode ${JSON.stringify(errorCode)} is not in the catalogue` };
  if (typeof message !== 'string' || !Array.isArray(details))
    return { key, violation: `the error shape lacks message or details: ${answer.body.slice(0, 200)}` };
  const expected = ERROR_CODES[errorCode];
  const documented = errorCode === 'InvalidRequest' && TRANSPORT_STATUSES.has(status);
  if (status !== expected && !documented)
    return { key, violation: `${errorCode} came with status ${status}, not ${expected}` };
  return { key };
}

/** Statuses Cloud Control answers a request with (AWS's); 500 only for ConcurrentModificationException. */
const CC_STATUSES = new Set([200, 400, 403, 404, 405, 409, 413, 429]);

function judgeCloudControl(request: FuzzRequest, answer: FuzzAnswer): { key: string; violation?: string } {
  const { status } = answer;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return {
      key: `${status} cc`,
      violation: `a Cloud Control ${status} whose body is not JSON: ${answer.body.slice(0, 200)}`,
    };
  }
  if (status === 200) {
    if (request.expect && !request.expect.includes(200))
      return {
        key: '200 cc',
        violation: `${request.kind} answered 200, not ${request.expect.join(' or ')}: ${answer.body.slice(0, 300)}`,
      };
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return {
        key: '200 cc',
        violation: `a Cloud Control answer that is not an object: ${answer.body.slice(0, 200)}`,
      };
    return { key: '200 cc' };
  }
  const { __type: type, message } = (body ?? {}) as Record<string, unknown>;
  if (typeof type !== 'string' || !/^[A-Za-z]+$/.test(type) || typeof message !== 'string')
    return { key: `${status}`, violation: `not an AWS error shape: ${answer.body.slice(0, 200)}` };
  const key = `${status} ${type}`;
  if (!CC_STATUSES.has(status) && !(status === 500 && type === 'ConcurrentModificationException'))
    return { key, violation: `Cloud Control answered ${status} ${type}: ${String(message).slice(0, 300)}` };
  if (request.expect && !request.expect.includes(status))
    return {
      key,
      violation: `${request.kind} answered ${status} ${type}, not ${request.expect.join(' or ')}: ${String(message).slice(0, 300)}`,
    };
  if (request.expectType && type !== request.expectType)
    return {
      key,
      violation: `${request.kind} answered ${type}, not ${request.expectType}: ${String(message).slice(0, 300)}`,
    };
  return { key };
}

export interface FuzzReport {
  requests: number;
  durationMs: number;
  /** Answers by `status errorCode`. */
  tally: Record<string, number>;
  /** Requests by the template and mutation that made them. */
  kinds: Record<string, number>;
  /** The first violations found (at most 20), each with its request. */
  violations: string[];
  violationCount: number;
  /** The slowest answers (at most 10), each with its request, slowest first. */
  slowest: { ms: number; request: string }[];
  /**
   * The requests answered in {@link SLOW_ANSWER_MS} or more, with when each was sent and answered
   * (`Date.now()`, ms): a hold of the server's event loop long enough to fail the run delays every
   * answer in flight at least that long, so the request that held it is among these.
   */
  spans: FuzzSpan[];
  /**
   * Answers by `status errorCode` to the Cloud Control operations a key scoped to {@link LINK} sent
   * naming another type, by operation: each must be refused, whatever the others answer.
   */
  outOfScope: Record<string, Record<string, number>>;
  /** Requests sent again on a new connection: the server had closed their idle kept-alive one (see send). */
  resent: number;
}

/** Answers this slow are kept in {@link FuzzReport.spans}: half what the watchdog lets the loop be held. */
export const SLOW_ANSWER_MS = 100;

export interface FuzzSpan {
  sent: number;
  answered: number;
  request: string;
}

/**
 * The requests in flight from `from` to `to` (ms, `Date.now()`), earliest sent first: when the
 * server's event loop was held over that time, the request that held it is among them.
 */
export function inFlight(spans: FuzzSpan[], from: number, to: number): FuzzSpan[] {
  return spans.filter((s) => s.sent <= to && s.answered >= from).sort((a, b) => a.sent - b.sent);
}

export interface FuzzOptions {
  url: string;
  token: string;
  /** The tokens {@link fuzzSetup} made, in order. */
  scoped: string[];
  /** Keys for Cloud Control requests ({@link fuzzAwsKeys}); without them none are sent. */
  awsKeys?: FuzzAwsKeys;
  requests: number;
  concurrency?: number;
  batchSize?: number;
  seed?: number;
  /** Called after each batch (progress). */
  onBatch?: (done: number) => void;
}

/** A Cloud Control request with its signature, made now (a signature holds for five minutes). */
function signed(request: FuzzRequest, options: FuzzOptions): FuzzRequest {
  if (!request.sign || !options.awsKeys) return request;
  const { writer, scoped } = options.awsKeys;
  const keys =
    request.sign.keys === 'scoped'
      ? scoped
      : request.sign.keys === 'writer'
        ? writer
        : { accessKeyId: writer.accessKeyId, secretAccessKey: `${writer.secretAccessKey.slice(1)}x` };
  const headers = signedHeaders({
    keys,
    url: options.url,
    operation: request.sign.operation,
    body: request.body ?? '',
  });
  return { ...request, headers: { ...request.headers, ...headers } };
}

/**
 * Sends `requests` generated requests in batches; fast-check drives the batches (its seed makes a
 * run reproducible). Never stops early: every violation is counted and the first ones kept.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const url = new URL(options.url);
  const batchSize = options.batchSize ?? 1000;
  const concurrency = options.concurrency ?? 16;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const report: FuzzReport = {
    requests: 0,
    durationMs: 0,
    tally: {},
    kinds: {},
    violations: [],
    violationCount: 0,
    slowest: [],
    spans: [],
    outOfScope: {},
    resent: 0,
  };
  const started = performance.now();
  const runs = Math.ceil(options.requests / batchSize);
  const recent: string[] = [];
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          options.awsKeys
            ? fc.oneof(
                { weight: 24, arbitrary: fuzzRequest(options.token, options.scoped) },
                { weight: 2, arbitrary: ccRequest },
                { weight: 1, arbitrary: ccScopeProbe },
              )
            : fuzzRequest(options.token, options.scoped),
          { minLength: batchSize, maxLength: batchSize },
        ),
        async (batch) => {
          const todo = batch.slice(0, options.requests - report.requests);
          let next = 0;
          const worker = async () => {
            while (next < todo.length) {
              const request = signed(withRecentToken(todo[next++]!, recent), options);
              report.kinds[request.kind] = (report.kinds[request.kind] ?? 0) + 1;
              let answer: FuzzAnswer;
              const sent = performance.now();
              const sentAt = Date.now();
              try {
                answer = await send(agent, url, request, () => report.resent++);
              } catch (e) {
                answer = { status: 0, body: `transport error: ${(e as Error).message}` };
              }
              const ms = performance.now() - sent;
              const described = `${request.kind} ${request.method} ${request.path.slice(0, 120)} (${request.body?.length ?? 0} bytes) -> ${answer.status}`;
              if (ms >= SLOW_ANSWER_MS)
                report.spans.push({ sent: sentAt, answered: Date.now(), request: described });
              if (report.slowest.length < 10 || ms > report.slowest.at(-1)!.ms) {
                report.slowest.push({ ms, request: described });
                report.slowest.sort((a, b) => b.ms - a.ms).splice(10);
              }
              if (answer.status === 202 || (answer.status === 200 && request.sign))
                remember(recent, answer.body);
              const verdict =
                answer.status === 0 ? { key: 'no answer', violation: answer.body } : judge(request, answer);
              report.tally[verdict.key] = (report.tally[verdict.key] ?? 0) + 1;
              if (request.outOfScope !== undefined) {
                const answers = (report.outOfScope[request.outOfScope] ??= {});
                answers[verdict.key] = (answers[verdict.key] ?? 0) + 1;
              }
              if (verdict.violation) {
                report.violationCount++;
                if (report.violations.length < 20)
                  report.violations.push(
                    `${verdict.violation}\n    request (${request.kind}): ${request.method} ${request.path.slice(0, 200)} ${request.body?.toString('utf8').slice(0, 300) ?? ''}`,
                  );
              }
            }
          };
          await Promise.all(Array.from({ length: concurrency }, worker));
          report.requests += todo.length;
          options.onBatch?.(report.requests);
        },
      ),
      { numRuns: runs, ...(options.seed !== undefined ? { seed: options.seed } : {}) },
    );
  } finally {
    agent.destroy();
  }
  report.durationMs = performance.now() - started;
  return report;
}

/** A run fails when the server's event loop stalls longer than this, or its RSS grows past this. */
export const WATCHDOG_LIMITS = { maxEventLoopDelayMs: 200, maxRssMb: 1024 } as const;

export interface WatchdogReport {
  /** The longest the event loop was held, in milliseconds of wall time (monitorEventLoopDelay). */
  worstDelayMs: number;
  /**
   * The most CPU time the server's thread spent between two turns of a 20 ms timer, in milliseconds:
   * the loop held by the server's own work, without the time a busy machine gave other processes.
   * Linux only (from /proc); `undefined` elsewhere.
   */
  worstBusyMs: number | undefined;
  /** When the loop was held {@link worstBusyMs} (`Date.now()`, ms), where that can be read. */
  worstBusyAt: { from: number; to: number } | undefined;
  peakRssMb: number;
  /** What passed {@link WATCHDOG_LIMITS}, as sentences (empty when nothing did). */
  problems: string[];
}

/**
 * Watches this process (the server's, in the test and the benchmark) from now until `stop()`: the
 * event loop's delay (monitorEventLoopDelay), the server thread's CPU time between turns of a 20 ms
 * timer, and the resident set size. On a machine shared by many processes the wall-time delay also
 * counts the time the scheduler gave others, so where the CPU time can be read it is what is held
 * to {@link WATCHDOG_LIMITS}; elsewhere the wall-time delay is.
 */
export function startWatchdog(): { stop(): WatchdogReport } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const holds = measureLoopHolds();
  let peakRss = process.memoryUsage.rss();
  const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100);
  return {
    stop() {
      const hold = holds.stop();
      clearInterval(rssSampler);
      delay.disable();
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      const worstDelayMs = delay.max / 1e6;
      const peakRssMb = peakRss / 1024 / 1024;
      const problems: string[] = [];
      const held = hold?.ms ?? worstDelayMs;
      if (held > WATCHDOG_LIMITS.maxEventLoopDelayMs)
        problems.push(
          `the event loop was held ${Math.round(held)} ms${hold === undefined ? '' : ' of CPU time'} (at most ${WATCHDOG_LIMITS.maxEventLoopDelayMs})`,
        );
      if (peakRssMb > WATCHDOG_LIMITS.maxRssMb)
        problems.push(`RSS reached ${Math.round(peakRssMb)} MB (at most ${WATCHDOG_LIMITS.maxRssMb})`);
      return {
        worstDelayMs,
        worstBusyMs: hold?.ms,
        worstBusyAt: hold && { from: hold.from, to: hold.to },
        peakRssMb,
        problems,
      };
    },
  };
}

/** The tally as aligned lines, most frequent first. */
export function formatTally(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${String(n).padStart(8)}  ${key}`)
    .join('\n');
}

/**
 * {@link runFuzz} in a worker thread: the server under test keeps the main thread (and its
 * `Object.prototype`, which the caller can then inspect) while requests are generated and sent
 * on another core.
 */
export function runFuzzInWorker(options: FuzzOptions): Promise<FuzzReport> {
  const { onBatch, ...data } = options;
  // A worker does not inherit the TypeScript loader: it registers tsx before loading the module.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./fuzz-worker.ts', import.meta.url).href);
  const worker = new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`, {
    eval: true,
    workerData: data,
  });
  return new Promise((resolve, reject) => {
    worker.on('message', (message: { progress?: number; report?: FuzzReport }) => {
      if (message.report) resolve(message.report);
      else if (message.progress !== undefined) onBatch?.(message.progress);
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the fuzz worker exited with ${code} before reporting`)));
  });
}
