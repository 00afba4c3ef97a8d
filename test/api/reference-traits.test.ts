/**
 * The references trait as the modelling traits define it: `ids` keys name identifiers of the
 * referenced type, members hold strings, `rel` and `service` are accepted; a reference to a type that
 * is not registered is a registration warning and is neither checked nor recorded until it is.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { settle, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const enc = encodeURIComponent;

const schema = (
  typeName: string,
  properties: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  typeName,
  description: `${typeName} for tests.`,
  properties,
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  ...extra,
});

const DB = 'Test::Ref::Db';
const LATER = 'Test::Ref::Later';

before(async () => {
  svc = await startTestService();
  const db = schema(
    DB,
    { Name: { type: 'string' }, Arn: { type: 'string' }, Engine: { type: 'string' } },
    {
      additionalIdentifiers: [['/properties/Arn']],
    },
  );
  assert.equal((await svc.call('POST', '/v1/types', db)).status, 201);
});
after(() => svc.close());

test('an ids key that is not an identifier of the referenced type is refused, naming it', async () => {
  const res = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::Ref::ByEngine',
      { Name: { type: 'string' }, DbEngine: { type: 'string' } },
      {
        traits: { references: [{ typeName: DB, ids: { Engine: '/properties/DbEngine' } }] },
      },
    ),
  );
  assert.equal(res.status, 400);
  assert.match(res.body.message, /by \/properties\/Engine, which is not one of its identifiers/);
  // An additional identifier is an identifier.
  const byArn = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::Ref::ByArn',
      { Name: { type: 'string' }, DbArn: { type: 'string' } },
      {
        traits: { references: [{ typeName: DB, ids: { Arn: '/properties/DbArn' } }] },
      },
    ),
  );
  assert.equal(byArn.status, 201, JSON.stringify(byArn.body));
});

test('a member that is not a string is refused', async () => {
  const res = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::Ref::Numeric',
      { Name: { type: 'string' }, DbName: { type: 'integer' } },
      {
        traits: { references: [{ typeName: DB, ids: { Name: '/properties/DbName' } }] },
      },
    ),
  );
  assert.equal(res.status, 400);
  assert.match(res.body.message, /DbName .* must be a string property \(it is integer\)/);
});

test('rel and service are accepted and shown with the type', async () => {
  const res = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::Ref::App',
      { Name: { type: 'string' }, Db: { type: 'string' } },
      {
        traits: {
          references: [
            {
              typeName: DB,
              ids: { Name: '/properties/Db' },
              rel: 'storage',
              service: 'acme.data#DataService',
            },
          ],
        },
      },
    ),
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const type = await svc.call('GET', `/v1/types/${enc('Test::Ref::App')}`);
  assert.equal(type.body.traits.references[0].rel, 'storage');
  assert.equal(type.body.traits.references[0].service, 'acme.data#DataService');
  const manifest = [
    'namespace: Test.Refs',
    'types:',
    '  apps:',
    '    description: An app.',
    '    x-typeplane-references:',
    `      - { typeName: '${DB}', ids: { Name: /properties/db }, rel: storage, service: data }`,
    '    apiVersions:',
    "      '2025-01-01':",
    '        schema:',
    '          type: object',
    '          properties:',
    '            db: { type: string }',
  ].join('\n');
  const reg = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/yaml' },
    body: manifest,
  });
  assert.equal(reg.status, 201, await reg.clone().text());
});

test('a reference to a type not registered is a warning; it is not enforced until that type is registered', async () => {
  const reg = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::Ref::Early',
      { Name: { type: 'string' }, Target: { type: 'string' } },
      {
        traits: { references: [{ typeName: LATER, ids: { Name: '/properties/Target' } }] },
      },
    ),
  );
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  const warnings = (reg.body.warnings ?? []) as { message: string }[];
  assert.ok(
    warnings.some((w) => /Test::Ref::Later, which is not registered/.test(w.message)),
    JSON.stringify(warnings),
  );
  const T = enc('Test::Ref::Early');
  const early = await svc.call('POST', `/v1/resources/${T}?wait=5`, {
    desiredState: { Name: 'e1', Target: 'x' },
  });
  assert.equal(early.status, 202, JSON.stringify(early.body));
  assert.equal((await settle(svc, early.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const refs = await svc.call('GET', `/v1/resources/${T}/e1/references`);
  assert.deepEqual(refs.body.references, [], 'not recorded');
  // Once the type is registered, the reference is checked.
  assert.equal(
    (await svc.call('POST', '/v1/types', schema(LATER, { Name: { type: 'string' } }))).status,
    201,
  );
  const late = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'e2', Target: 'missing' },
  });
  assert.equal(late.status, 400);
  assert.match(late.body.message, /Test::Ref::Later missing, which does not exist/);
});
