import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const enc = encodeURIComponent;

const schema = (typeName: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      typeName,
      description: `${typeName} for tests.`,
      properties,
      additionalProperties: false,
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
      ...extra,
    },
    null,
    2,
  );

const DB = 'Test::Data::Db';
const APP = 'Test::App::Service';
const LOCKED = 'Test::App::Locked';
const TABLE = 'Test::Data::Table';
const REPORT = 'Test::App::Report';

before(async () => {
  svc = await startTestService();
  const docs = [
    schema(DB, { Name: { type: 'string' }, Engine: { type: 'string' } }),
    schema(APP, {
      Name: { type: 'string' },
      Database: { type: 'string', relationshipRef: { typeName: DB, propertyPath: '/properties/Name' } },
      Backups: {
        type: 'array',
        items: { type: 'string', relationshipRef: { typeName: DB, propertyPath: '/properties/Name' } },
      },
      Replicas: { type: 'integer' },
    }),
    schema(LOCKED, { Name: { type: 'string' }, Size: { type: 'string' } }, { traits: { noReplace: true } }),
    JSON.stringify({
      typeName: TABLE,
      description: 'A table, identified by its database and its name.',
      properties: { Db: { type: 'string' }, Table: { type: 'string' } },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Db', '/properties/Table'],
      createOnlyProperties: ['/properties/Db', '/properties/Table'],
    }),
    schema(
      REPORT,
      { Name: { type: 'string' }, SourceDb: { type: 'string' }, SourceTable: { type: 'string' } },
      {
        traits: {
          references: [
            { typeName: TABLE, ids: { Db: '/properties/SourceDb', Table: '/properties/SourceTable' } },
          ],
        },
      },
    ),
  ];
  for (const doc of docs) {
    const res = await svc.call('POST', '/v1/types', doc);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
});
after(() => svc.close());

const create = async (typeName: string, desiredState: Record<string, unknown>) =>
  svc.call('POST', `/v1/resources/${enc(typeName)}?wait=5`, { desiredState });

test('a reference to a resource that does not exist is InvalidRequest naming the member', async () => {
  const res = await create(APP, { Name: 'web', Database: 'missing' });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  assert.deepEqual(
    res.body.details.map((d: { pointer: string }) => d.pointer),
    ['/properties/Database'],
  );
});

test('references are recorded both ways and a referenced resource cannot be deleted', async () => {
  assert.equal((await create(DB, { Name: 'orders' })).body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal((await create(DB, { Name: 'archive' })).body.progressEvent.operationStatus, 'SUCCESS');
  const app = await create(APP, { Name: 'shop', Database: 'orders', Backups: ['archive'] });
  assert.equal(app.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(app.body));

  const out = await svc.call('GET', `/v1/resources/${enc(APP)}/shop/references`);
  assert.equal(out.status, 200);
  assert.deepEqual(out.body.references, [
    { typeName: DB, identifier: 'archive' },
    { typeName: DB, identifier: 'orders' },
  ]);
  const incoming = await svc.call('GET', `/v1/resources/${enc(DB)}/orders/references`);
  assert.deepEqual(incoming.body.referencedBy, [{ typeName: APP, identifier: 'shop' }]);

  const refused = await svc.call('DELETE', `/v1/resources/${enc(DB)}/orders`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.errorCode, 'ResourceConflict');
  assert.match(refused.body.message, /Test::App::Service shop/);

  // Pointing the app elsewhere releases the first database.
  const moved = await svc.call('PATCH', `/v1/resources/${enc(APP)}/shop?wait=5`, {
    patchDocument: [{ op: 'replace', path: '/Database', value: 'archive' }],
  });
  assert.equal(moved.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal(
    (await svc.call('DELETE', `/v1/resources/${enc(DB)}/orders?wait=5`)).body.progressEvent.operationStatus,
    'SUCCESS',
  );

  const dangling = await svc.call('PATCH', `/v1/resources/${enc(APP)}/shop`, {
    patchDocument: [{ op: 'add', path: '/Backups/-', value: 'nowhere' }],
  });
  assert.equal(dangling.status, 400);
  assert.deepEqual(
    dangling.body.details.map((d: { pointer: string }) => d.pointer),
    ['/properties/Backups/*'],
  );

  assert.equal(
    (await svc.call('DELETE', `/v1/resources/${enc(APP)}/shop?wait=5`)).body.progressEvent.operationStatus,
    'SUCCESS',
  );
  assert.equal(
    (await svc.call('DELETE', `/v1/resources/${enc(DB)}/archive?wait=5`)).body.progressEvent.operationStatus,
    'SUCCESS',
  );
  assert.equal((await svc.call('GET', `/v1/resources/${enc(DB)}/archive/references`)).status, 404);
});

test('a compound identifier is referenced through an explicit member mapping', async () => {
  assert.equal(
    (await create(TABLE, { Db: 'sales', Table: 'q1' })).body.progressEvent.operationStatus,
    'SUCCESS',
  );
  const ok = await create(REPORT, { Name: 'r1', SourceDb: 'sales', SourceTable: 'q1' });
  assert.equal(ok.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(ok.body));
  const out = await svc.call('GET', `/v1/resources/${enc(REPORT)}/r1/references`);
  assert.deepEqual(out.body.references, [{ typeName: TABLE, identifier: 'sales|q1' }]);
  const missing = await create(REPORT, { Name: 'r2', SourceDb: 'sales', SourceTable: 'q2' });
  assert.equal(missing.status, 400);
  const refused = await svc.call('DELETE', `/v1/resources/${enc(TABLE)}/${enc('sales|q1')}`);
  assert.equal(refused.status, 409);
});

test('PUT creates a resource that does not exist and replaces one that does', async () => {
  const T = enc(DB);
  const created = await svc.call('PUT', `/v1/resources/${T}/put1?wait=5`, { desiredState: { Engine: 'pg' } });
  assert.equal(created.status, 202);
  assert.equal(created.body.progressEvent.operation, 'CREATE');
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  assert.deepEqual((await svc.call('GET', `/v1/resources/${T}/put1`)).body.properties, {
    Name: 'put1',
    Engine: 'pg',
  });

  const replaced = await svc.call('PUT', `/v1/resources/${T}/put1?wait=5`, {
    desiredState: { Name: 'put1' },
  });
  assert.equal(replaced.body.progressEvent.operation, 'UPDATE');
  assert.equal(replaced.body.progressEvent.operationStatus, 'SUCCESS');
  assert.deepEqual((await svc.call('GET', `/v1/resources/${T}/put1`)).body.properties, { Name: 'put1' });

  const mismatch = await svc.call('PUT', `/v1/resources/${T}/put1`, { desiredState: { Name: 'other' } });
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.body.errorCode, 'InvalidRequest');
});

test('a noReplace type refuses a PUT on an existing resource with AlreadyExists', async () => {
  const T = enc(LOCKED);
  const first = await svc.call('PUT', `/v1/resources/${T}/l1?wait=5`, { desiredState: { Size: 'S' } });
  assert.equal(first.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(first.body));
  const second = await svc.call('PUT', `/v1/resources/${T}/l1?wait=5`, { desiredState: { Size: 'M' } });
  assert.equal(second.status, 202);
  assert.equal(second.body.progressEvent.operationStatus, 'FAILED');
  assert.equal(second.body.progressEvent.errorCode, 'AlreadyExists');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/l1`)).body.properties.Size, 'S');
  const patched = await svc.call('PATCH', `/v1/resources/${T}/l1?wait=5`, {
    patchDocument: [{ op: 'replace', path: '/Size', value: 'M' }],
  });
  assert.equal(patched.body.progressEvent.operationStatus, 'SUCCESS', 'PATCH still updates a noReplace type');
});

test('registering a type whose reference names a property the referenced type lacks is refused', async () => {
  const res = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::App::Broken',
      { Name: { type: 'string' }, Db: { type: 'string' } },
      { traits: { references: [{ typeName: DB, ids: { Nope: '/properties/Db' } }] } },
    ),
  );
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  assert.match(res.body.message, /Test::Data::Db property \/properties\/Nope/);
});

test("registering a reference without ids is refused when this type lacks the target's identifier properties", async () => {
  const res = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::App::NoIds',
      { Name: { type: 'string' }, Other: { type: 'string' } },
      { traits: { references: [{ typeName: TABLE }] } },
    ),
  );
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.errorCode, 'InvalidRequest');
  assert.match(res.body.message, /without ids, but has no property \/properties\/Db/);
  const ok = await svc.call(
    'POST',
    '/v1/types',
    schema(
      'Test::App::WithIds',
      { Name: { type: 'string' }, Db: { type: 'string' }, Table: { type: 'string' } },
      { traits: { references: [{ typeName: TABLE }] } },
    ),
  );
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
});
