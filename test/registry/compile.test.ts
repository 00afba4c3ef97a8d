import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileType, MAX_VALIDATOR_SOURCE } from '../../src/registry/index.js';
import { TypeplaneError } from '../../src/errors.js';
import type { Model } from '../../src/model/index.js';
import { thing, thingDocument, typeOf } from './fixtures.js';

const compiled = compileType(thing);
const pointers = (details: { pointer?: string }[]) => details.map((d) => d.pointer);

test('a valid desired state has no problems', () => {
  const model: Model = {
    Name: 'alpha',
    Size: 'L',
    Tags: [{ Key: 'k', Value: 'v' }],
    Config: { Mode: 'fast' },
  };
  assert.deepEqual(compiled.validateInput(model), []);
});

test('validateInput applies defaults in place, nested too', () => {
  const model: Model = { Name: 'alpha', Config: { Mode: 'safe' } };
  assert.deepEqual(compiled.validateInput(model), []);
  assert.equal(model.Size, 'M');
  assert.equal(model.Region, 'eu-west-1');
  assert.deepEqual(model.Config, { Mode: 'safe', Retries: 3 });
  // A value given is kept.
  const sized: Model = { Name: 'alpha', Size: 'XL' };
  compiled.validateInput(sized);
  assert.equal(sized.Size, 'XL');
});

test('problems carry the instance pointer and a readable message', () => {
  const details = compiled.validateInput({
    Size: 'XXL',
    Nope: 1,
    Count: -1,
    Tags: [{ Value: 'v' }],
    Config: { Mode: 'x' },
  });
  const byPointer = new Map(details.map((d) => [d.pointer, d.message]));
  assert.equal(byPointer.get('/Size'), 'must be one of S, M, L, XL');
  assert.match(byPointer.get('/Name') ?? '', /required property 'Name' is missing/);
  assert.match(byPointer.get('/Nope') ?? '', /'Nope' is not a declared property/);
  assert.match(byPointer.get('/Count') ?? '', /must be >= 0/);
  assert.match(byPointer.get('/Tags/0/Key') ?? '', /required property 'Key'/);
  assert.equal(byPointer.get('/Config/Mode'), 'must be one of fast, safe');
});

test('type errors name the expected type', () => {
  const details = compiled.validateInput({ Name: 'alpha', Count: 'three' });
  assert.deepEqual(details, [{ pointer: '/Count', message: 'must be integer' }]);
});

test('patterns run on RE2: (?s) works', () => {
  assert.deepEqual(compiled.validateInput({ Name: 'alpha', Notes: 'start\nmiddle\nend' }), []);
  const details = compiled.validateInput({ Name: 'alpha', Notes: 'middle' });
  assert.deepEqual(pointers(details), ['/Notes']);
  assert.match(details[0]!.message, /must match pattern/);
  assert.deepEqual(pointers(compiled.validateInput({ Name: 'Not-Lower' })), ['/Name']);
});

test('a pattern that backtracks catastrophically elsewhere runs in linear time', () => {
  const started = performance.now();
  const details = compiled.validateInput({ Name: 'alpha', Slow: 'a'.repeat(5000) + 'b' });
  const elapsed = performance.now() - started;
  assert.deepEqual(pointers(details), ['/Slow']);
  assert.ok(elapsed < 1000, `took ${elapsed} ms`);
  assert.deepEqual(compiled.validateInput({ Name: 'alpha', Slow: 'a'.repeat(5000) }), []);
});

test('known formats are enforced; unknown ones are ignored', () => {
  assert.deepEqual(
    compiled.validateInput({ Name: 'alpha', Created: '2024-05-01T10:00:00Z', Stamp: 'whenever', Big: 42 }),
    [],
  );
  const details = compiled.validateInput({ Name: 'alpha', Created: 'yesterday' });
  assert.deepEqual(pointers(details), ['/Created']);
  assert.match(details[0]!.message, /date-time/);
});

test('patternProperties maps use the RE2 engine for their keys', () => {
  assert.deepEqual(compiled.validateInput({ Name: 'alpha', Labels: { env: 'prod' } }), []);
  assert.deepEqual(pointers(compiled.validateInput({ Name: 'alpha', Labels: { Env1: 'prod' } })), [
    '/Labels/Env1',
  ]);
});

test('validateOutput ignores required (nested too) and applies no defaults', () => {
  const model: Model = { Tags: [{ Value: 'v' }], Config: { Retries: 2 }, Items: [{ Name: 'i' }], Choice: {} };
  assert.deepEqual(compiled.validateOutput(model), []);
  assert.equal(model.Size, undefined, 'no default applied');
  assert.ok(
    compiled.validateInput(structuredClone(model)).length > 0,
    'input validation still requires them',
  );
});

test('validateOutput still checks the shape', () => {
  const details = compiled.validateOutput({ Size: 'XXL', Extra: true, Tags: [{ Key: 5 }] });
  assert.deepEqual(pointers(details).sort(), ['/Extra', '/Size', '/Tags/0/Key']);
});

test('oneOf branches told apart by required do not all fail output validation', () => {
  assert.deepEqual(compiled.validateOutput({ Choice: { A: 'a' } }), []);
  assert.deepEqual(compiled.validateOutput({ Choice: { A: 'a', B: 'b' } }), []);
  assert.ok(compiled.validateInput({ Name: 'alpha', Choice: { A: 'a', B: 'b' } }).length > 0);
});

test('output relaxation does not touch the type schema', () => {
  compiled.validateOutput({});
  assert.deepEqual(thing.schema.required, ['Name']);
  assert.ok(Array.isArray((thing.schema.properties as Record<string, { oneOf?: unknown }>).Choice!.oneOf));
});

test('compiled validators are cached per type object', () => {
  assert.equal(compileType(thing), compiled);
  const copy = { ...thing };
  assert.notEqual(compileType(copy), compiled);
});

test('a schema ajv cannot compile is an InvalidTypeConfiguration', () => {
  const broken = { ...thing, schema: { ...thing.schema, properties: { Name: { type: 'strin' } } } };
  assert.throws(
    () => compileType(broken),
    (e: unknown) =>
      e instanceof TypeplaneError &&
      e.code === 'InvalidTypeConfiguration' &&
      /Acme::Test::Thing/.test(e.message),
  );
  const badRef = {
    ...thing,
    schema: { ...thing.schema, properties: { Name: { $ref: '#/definitions/Missing' } } },
  };
  assert.throws(
    () => compileType(badRef),
    (e: unknown) =>
      e instanceof TypeplaneError && e.code === 'InvalidTypeConfiguration' && /Missing/.test(e.message),
  );
});

test('a pattern RE2 cannot compile is an InvalidTypeConfiguration', () => {
  const lookahead = {
    ...thing,
    schema: { ...thing.schema, properties: { Name: { type: 'string', pattern: '^(?=a)a$' } } },
  };
  assert.throws(
    () => compileType(lookahead),
    (e: unknown) =>
      e instanceof TypeplaneError && e.code === 'InvalidTypeConfiguration' && /RE2/.test(e.message),
  );
});

test('a schema whose validator would be too large is refused', () => {
  // Defaults are written into the generated code, so one huge default is enough to exceed the bound.
  const big = typeOf({
    ...thingDocument,
    typeName: 'Acme::Test::Huge',
    properties: {
      ...thingDocument.properties,
      Blob: { type: 'string', default: 'x'.repeat(MAX_VALIDATOR_SOURCE + 1) },
    },
  });
  assert.throws(
    () => compileType(big),
    (e: unknown) =>
      e instanceof TypeplaneError && e.code === 'InvalidTypeConfiguration' && /too large/.test(e.message),
  );
});

test('many problems are capped', () => {
  const tags = Array.from({ length: 300 }, () => ({ Value: 1 }));
  const details = compiled.validateInput({ Name: 'alpha', Tags: tags });
  assert.equal(details.length, 101);
  assert.match(details.at(-1)!.message, /^and \d+ more problems$/);
});
