/**
 * A read (`GET /v1/resources/{type}/{id}`) of a type whose provider reads from the record is answered
 * with the recorded JSON text spliced in, unparsed, when that text is the answer as it stands (no
 * write-only property in the type, no null in the model); otherwise the model is parsed, stripped and
 * serialised. Either way the bytes are those the serialiser makes of
 * `{ typeName, identifier, properties }`: checked here on models whose JSON text is easy to get wrong
 * (escapes, integer-like keys, exponents, nested nulls), with write-only values never answered and a
 * scoped token learning nothing of another type.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.js';

const PLAIN = 'Acme::Answers::Plain';
const SECRETIVE = 'Acme::Answers::Secretive';
let svc: TestService;

const schema = (typeName: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    typeName,
    description: 'a type for read answers',
    additionalProperties: false,
    properties: {
      Name: { type: 'string' },
      Alias: { type: 'string' },
      Any: {},
      Nested: { type: 'object' },
      N: { type: ['number', 'null'] },
      Password: { type: 'string' },
    },
    primaryIdentifier: ['/properties/Name'],
    additionalIdentifiers: [['/properties/Alias']],
    ...extra,
  });

before(async () => {
  svc = await startTestService();
  for (const doc of [schema(PLAIN), schema(SECRETIVE, { writeOnlyProperties: ['/properties/Password'] })]) {
    const r = await svc.call('POST', '/v1/types', doc);
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
});
after(() => svc.close());

async function create(typeName: string, desiredState: Record<string, unknown>): Promise<void> {
  const r = await svc.call('POST', `/v1/resources/${typeName}?wait=10`, { desiredState });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal((r.body as any).progressEvent.operationStatus, 'SUCCESS', JSON.stringify(r.body));
}

/** The answer's bytes and headers, as a client receives them. */
async function readRaw(typeName: string, identifier: string, token = svc.token) {
  const res = await fetch(
    `${svc.url}/v1/resources/${encodeURIComponent(typeName)}/${encodeURIComponent(identifier)}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  const text = await res.text();
  return {
    status: res.status,
    text,
    type: res.headers.get('content-type'),
    length: Number(res.headers.get('content-length')),
  };
}

const MODELS: Record<string, unknown>[] = [
  { Name: 'plain' },
  { Name: 'escapes/é', Any: 'quote " backslash \\ line\u2028sep 😀 tab\t nul-word null' },
  { Name: 'keys', Nested: { b: 1, '2': 'two', a: [1, { '10': true, '9': false }], '1': {} } },
  { Name: 'numbers', N: 1e21, Any: [-0.5, 0, 123456789012, 1e-7, true, false, [], {}] },
];

test('a model without nulls comes back as the serialiser would write it, byte for byte', async () => {
  for (const model of MODELS) {
    await create(PLAIN, model);
    const read = await readRaw(PLAIN, model.Name as string);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.type, 'application/json; charset=utf-8');
    assert.equal(
      read.text,
      JSON.stringify({ typeName: PLAIN, identifier: model.Name, properties: model }),
      `the answer for ${String(model.Name)}`,
    );
    assert.equal(read.length, Buffer.byteLength(read.text));
  }
});

test('nulls are left out of the answer, at every depth', async () => {
  await create(PLAIN, { Name: 'nulls', N: null, Nested: { k: null, list: [1, null, 2], deep: { z: null } } });
  const read = await readRaw(PLAIN, 'nulls');
  assert.equal(read.status, 200, read.text);
  assert.equal(
    read.text,
    JSON.stringify({
      typeName: PLAIN,
      identifier: 'nulls',
      properties: { Name: 'nulls', Nested: { list: [1, 2], deep: {} } },
    }),
  );
});

test('a write-only value is never answered; a read by an additional identifier answers the primary one', async () => {
  await create(SECRETIVE, { Name: 'locked', Alias: 'lock-alias', Password: 'hunter2-not-to-be-seen' });
  await create(PLAIN, { Name: 'aliased', Alias: 'other-name' });
  for (const [typeName, identifier, expected] of [
    [SECRETIVE, 'locked', { Name: 'locked', Alias: 'lock-alias' }],
    [SECRETIVE, 'lock-alias', { Name: 'locked', Alias: 'lock-alias' }],
    [PLAIN, 'other-name', { Name: 'aliased', Alias: 'other-name' }],
  ] as const) {
    const read = await readRaw(typeName, identifier);
    assert.equal(read.status, 200, read.text);
    assert.ok(!read.text.includes('hunter2'), read.text);
    assert.equal(read.text, JSON.stringify({ typeName, identifier: expected.Name, properties: expected }));
  }
});

test('a missing resource is 404 NotFound; a token scoped to another type is refused before any read', async () => {
  const missing = await readRaw(PLAIN, 'nowhere');
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.text).errorCode, 'NotFound');

  const scoped = await svc.call('POST', '/v1/tokens', {
    role: 'reader',
    types: [SECRETIVE],
    description: 'reads one type',
  });
  assert.equal(scoped.status, 201, JSON.stringify(scoped.body));
  const token = (scoped.body as { token: string }).token;
  assert.equal((await readRaw(SECRETIVE, 'locked', token)).status, 200);
  for (const identifier of ['plain', 'nowhere']) {
    const refused = await readRaw(PLAIN, identifier, token);
    assert.equal(refused.status, 403, refused.text);
    assert.ok(!refused.text.includes('"properties"'), refused.text);
  }
});
