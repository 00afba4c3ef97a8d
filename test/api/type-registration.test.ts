import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

const manifest = readFileSync(new URL('../../examples/postgresDatabases.yaml', import.meta.url), 'utf8');

test('a resource schema registers with 201 and is listed and described', async () => {
  const res = await svc.call('POST', '/v1/types', WIDGET);
  assert.equal(res.status, 201);
  assert.deepEqual(
    res.body.types.map((t: { typeName: string }) => t.typeName),
    [WIDGET_TYPE],
  );
  const list = await svc.call('GET', '/v1/types');
  assert.ok(list.body.types.some((t: { typeName: string }) => t.typeName === WIDGET_TYPE));
  const show = await svc.call('GET', `/v1/types/${encodeURIComponent(WIDGET_TYPE)}`);
  assert.equal(show.status, 200);
  assert.equal(show.body.defaultVersion, '1');
  assert.deepEqual(show.body.primaryIdentifier, ['/properties/Name']);
  assert.equal(show.body.schema.properties.Size.default, 'S');
});

test('a YAML manifest registers every type it defines; names with / go URL-encoded in paths', async () => {
  const res = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml', authorization: `Bearer ${svc.token}` },
    body: manifest,
  });
  assert.equal(res.status, 201, await res.clone().text());
  const body = (await res.json()) as { types: { typeName: string; version: string }[] };
  assert.equal(body.types[0]?.typeName, 'Typeplane.Data/postgresDatabases');
  const show = await svc.call('GET', `/v1/types/${encodeURIComponent('Typeplane.Data/postgresDatabases')}`);
  assert.equal(show.status, 200);
  assert.equal(show.body.dialect, 'manifest');
  assert.equal(show.body.versions.length, 1);
  const create = await svc.call(
    'POST',
    `/v1/resources/${encodeURIComponent('Typeplane.Data/postgresDatabases')}?wait=5`,
    {
      desiredState: { name: 'orders', size: 'M', password: 'correct-horse-battery' },
    },
  );
  assert.equal(create.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(create.body));
  assert.equal(
    create.body.progressEvent.resourceModel.password,
    undefined,
    'sensitive values are write-only',
  );
});

test('an invalid document is 400 with the validator diagnostics, located', async () => {
  const bad = WIDGET.replace(
    '"/properties/Name"\n  ],\n  "createOnlyProperties"',
    '"/properties/Nme"\n  ],\n  "createOnlyProperties"',
  );
  const res = await svc.call('POST', '/v1/types', bad);
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  const diag = res.body.details.find((d: { rule: string }) => d.rule === 'TP2010');
  assert.ok(diag, JSON.stringify(res.body));
  assert.equal(typeof diag.line, 'number');
  const notJson = await svc.call('POST', '/v1/types', '{ "typeName": ');
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.details[0].rule, 'TP1005');
});

test('deregistering is refused with ResourceConflict while resources exist, then allowed', async () => {
  const doc = WIDGET.replace('Test::Shop::Widget', 'Test::Shop::Gadget');
  assert.equal((await svc.call('POST', '/v1/types', doc)).status, 201);
  const T = encodeURIComponent('Test::Shop::Gadget');
  assert.equal(
    (await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'g1' } })).body.progressEvent
      .operationStatus,
    'SUCCESS',
  );
  const refused = await svc.call('DELETE', `/v1/types/${T}`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.errorCode, 'ResourceConflict');
  assert.equal(
    (await svc.call('DELETE', `/v1/resources/${T}/g1?wait=5`)).body.progressEvent.operationStatus,
    'SUCCESS',
  );
  assert.equal((await svc.call('DELETE', `/v1/types/${T}`)).status, 204);
  assert.equal((await svc.call('GET', `/v1/types/${T}`)).status, 404);
  assert.equal((await svc.call('DELETE', `/v1/types/${T}`)).status, 404);
});

test('unknown routes and the health check', async () => {
  assert.deepEqual((await svc.call('GET', '/healthz')).body, { status: 'ok' });
  const missing = await svc.call('GET', '/v2/nothing');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.errorCode, 'NotFound');
});
