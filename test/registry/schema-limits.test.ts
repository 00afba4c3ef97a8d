import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { TypeplaneError } from '../../src/errors.js';
import { compileType, SCHEMA_LIMITS, schemaLimitExceeded } from '../../src/registry/index.js';
import { loadTypes, type ResourceType } from '../../src/schema/index.js';
import { validateDocument } from '../../src/schema/validate.js';
import { startTestService } from '../helpers/service.js';
import { AWS_CORPUS as corpus, RADIUS_CORPUS, corpusSkip } from '../helpers/requirements.js';

function schemaWith(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    typeName: 'Test::Limits::Thing',
    description: 'A type for limit tests.',
    properties: { Name: { type: 'string' }, ...properties },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    ...extra,
  };
}

const typeOf = (schema: Record<string, unknown>) =>
  ({
    typeName: 'Test::Limits::Thing',
    schema,
    primaryIdentifier: ['/properties/Name'],
  }) as unknown as ResourceType;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Schemas each past one limit, built small so the refusal must come before ajv runs. */
const overLimit: [string, Record<string, unknown>, RegExp][] = [
  [
    'a huge enum',
    schemaWith({ E: { type: 'string', enum: range(100_000).map((i) => `v${i}`) } }),
    new RegExp(`enum of 100000 values; at most ${SCHEMA_LIMITS.maxEnumValues}`),
  ],
  [
    'many anyOf branches',
    schemaWith({ A: { anyOf: range(SCHEMA_LIMITS.maxBranches + 1).map((i) => ({ const: `c${i}` })) } }),
    new RegExp(`branches over ${SCHEMA_LIMITS.maxBranches}`),
  ],
  [
    'a wide schema',
    schemaWith(
      Object.fromEntries(range(SCHEMA_LIMITS.maxExpandedValues).map((i) => [`P${i}`, { type: 'string' }])),
    ),
    new RegExp(`more than ${SCHEMA_LIMITS.maxExpandedValues} values`),
  ],
  [
    'one definition referenced from many places',
    schemaWith(Object.fromEntries(range(300).map((i) => [`F${i}`, { $ref: '#/definitions/Leaf' }])), {
      definitions: {
        Leaf: {
          type: 'object',
          properties: Object.fromEntries(range(100).map((i) => [`q${i}`, { type: 'integer' }])),
        },
      },
    }),
    /once its references are resolved/,
  ],
  [
    'many patterns',
    schemaWith(
      Object.fromEntries(
        range(SCHEMA_LIMITS.maxPatterns + 1).map((i) => [`P${i}`, { type: 'string', pattern: `^x${i}$` }]),
      ),
    ),
    new RegExp(`more than ${SCHEMA_LIMITS.maxPatterns} patterns`),
  ],
  [
    'a huge pattern',
    schemaWith({ P: { type: 'string', pattern: '(a|b)'.repeat(100_000) } }),
    new RegExp(`at most ${SCHEMA_LIMITS.maxPatternLength}`),
  ],
  [
    'a huge patternProperties key',
    schemaWith({
      M: { type: 'object', patternProperties: { ['(a|b)'.repeat(100_000)]: { type: 'string' } } },
    }),
    new RegExp(`at most ${SCHEMA_LIMITS.maxPatternLength}`),
  ],
];

test('schemas past a compile limit are refused at once, naming the limit', () => {
  for (const [what, schema, message] of overLimit) {
    const started = performance.now();
    assert.throws(
      () => compileType(typeOf(schema)),
      (e: unknown) =>
        e instanceof TypeplaneError && e.code === 'InvalidTypeConfiguration' && message.test(e.message),
      what,
    );
    // ajv alone takes over 40 s on the enum; the limits answer before it runs.
    assert.ok(performance.now() - started < 1000, `${what} refused in ${performance.now() - started} ms`);
  }
});

test('references to definitions that hold references are counted once, as ajv compiles them', () => {
  // Each level refers twice to the next: inlined, 2^16 copies; compiled as functions, 17.
  const definitions: Record<string, unknown> = {};
  for (const k of range(16)) {
    definitions[`D${k}`] = {
      type: 'object',
      properties: { a: { $ref: `#/definitions/D${k + 1}` }, b: { $ref: `#/definitions/D${k + 1}` } },
    };
  }
  definitions.D16 = { type: 'object', properties: { x: { type: 'string' } } };
  const schema = schemaWith({ R: { $ref: '#/definitions/D0' } }, { definitions });
  assert.equal(schemaLimitExceeded(schema as never), undefined);
  assert.deepEqual(compileType(typeOf(schema)).validateInput({ Name: 'n', R: { a: { b: {} } } }), []);
});

test('a schema within the limits compiles', () => {
  const schema = schemaWith({
    E: { type: 'string', enum: range(SCHEMA_LIMITS.maxEnumValues).map((i) => `v${i}`) },
    A: { anyOf: range(100).map((i) => ({ const: `c${i}` })) },
    P: { type: 'string', pattern: 'x'.repeat(SCHEMA_LIMITS.maxPatternLength) },
  });
  assert.equal(schemaLimitExceeded(schema as never), undefined);
  const compiled = compileType(typeOf(schema));
  assert.deepEqual(compiled.validateInput({ Name: 'n', E: 'v4999', A: 'c99' }), []);
});

test('registering a schema past a limit is InvalidRequest naming the limit', async () => {
  const svc = await startTestService();
  try {
    const res = await svc.call(
      'POST',
      '/v1/types',
      schemaWith({ E: { type: 'string', enum: range(50_000).map((i) => `v${i}`) } }),
    );
    assert.equal(res.status, 400);
    assert.equal(res.body.errorCode, 'InvalidRequest');
    assert.match(res.body.message, new RegExp(`at most ${SCHEMA_LIMITS.maxEnumValues}`));
    assert.equal((await svc.call('GET', '/v1/types/Test%3A%3ALimits%3A%3AThing')).status, 404);
    const pattern = await svc.call(
      'POST',
      '/v1/types',
      schemaWith({ P: { type: 'string', pattern: 'a'.repeat(SCHEMA_LIMITS.maxPatternLength + 1) } }),
    );
    assert.equal(pattern.status, 400);
    assert.match(pattern.body.message, new RegExp(`at most ${SCHEMA_LIMITS.maxPatternLength}`));
  } finally {
    await svc.close();
  }
});

test(
  'every published AWS schema and Radius manifest is within the compile limits',
  { skip: corpusSkip() },
  async () => {
    const files = readdirSync(corpus).filter((f) => f.endsWith('.json'));
    assert.ok(files.length > 1000);
    for (const file of files) {
      const type = validateDocument(readFileSync(corpus + file), { file }).types[0];
      assert.ok(type, file);
      assert.equal(schemaLimitExceeded(type.schema), undefined, file);
    }
    const radius = await loadTypes([RADIUS_CORPUS]);
    assert.ok(radius.types.length > 10);
    for (const type of radius.types) assert.equal(schemaLimitExceeded(type.schema), undefined, type.typeName);
  },
);

test('formats stay linear on long hostile strings', () => {
  const formats = [
    'date-time',
    'date',
    'time',
    'uri',
    'uri-reference',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'uuid',
    'regex',
  ];
  const schema = schemaWith(Object.fromEntries(formats.map((f) => [f, { type: 'string', format: f }])));
  const compiled = compileType(typeOf(schema));
  // Quadratic work on this length would take seconds; linear work takes milliseconds, even on a busy machine.
  const n = 100_000;
  const hostile = [
    'a'.repeat(n),
    `${'a.'.repeat(n / 2)}!`,
    `${'1:'.repeat(n / 2)}x`,
    `http://${'a'.repeat(n)}!`,
    `${'a@'.repeat(n / 2)}`,
    `2020-01-01T${'0'.repeat(n)}`,
    `${'-'.repeat(n)}a`,
    `${'%'.repeat(n)}`,
  ];
  for (const format of formats) {
    for (const value of hostile) {
      const started = performance.now();
      compiled.validateInput({ Name: 'n', [format]: value });
      const ms = performance.now() - started;
      assert.ok(
        ms < 1500,
        `${format} took ${ms.toFixed(0)} ms on ${value.slice(0, 12)}… (${value.length} characters)`,
      );
    }
  }
});

test('patternProperties keys run on RE2 too: RE2-only syntax works, and matching stays linear', () => {
  const compiled = compileType(
    typeOf(
      schemaWith({
        // `(?i)` is RE2 syntax that JavaScript's RegExp refuses; `(a+)+$` backtracks catastrophically there.
        Meta: {
          type: 'object',
          patternProperties: { '(?i)^x-': { type: 'string' }, '(a+)+$': { type: 'integer' } },
        },
      }),
    ),
  );
  assert.deepEqual(compiled.validateInput({ Name: 'n', Meta: { 'X-Upper': 'ok' } }), []);
  assert.equal(compiled.validateInput({ Name: 'n', Meta: { 'x-a': 1 } }).length, 1);
  const started = performance.now();
  // A backtracking engine needs longer than the universe's age for this key; RE2 microseconds.
  compiled.validateInput({ Name: 'n', Meta: { [`${'a'.repeat(100)}!`]: 'x' } });
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
});
