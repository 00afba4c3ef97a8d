import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'base', Color: 'red' } })).body
      .progressEvent.requestToken,
  );
});
after(() => svc.close());

test('input that fails the schema is refused before any handler runs, with the failing pointers', async () => {
  const res = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'Bad Name!', Size: 'XXL', Count: -1 },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  const pointers = res.body.details.map((d: { pointer: string }) => d.pointer).sort();
  assert.deepEqual(pointers, ['/Count', '/Name', '/Size']);
  assert.equal((await svc.call('GET', `/v1/resources/${T}/Bad%20Name!`)).status, 404);
});

test('unknown properties and a missing required property are InvalidRequest', async () => {
  const unknown = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'u1', Flavour: 'x' },
  });
  assert.equal(unknown.status, 400);
  const missing = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Color: 'x' } });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.errorCode, 'InvalidRequest');
  const notObject = await svc.call('POST', `/v1/resources/${T}`, { desiredState: [1, 2] });
  assert.equal(notObject.status, 400);
});

test('a read-only property in a create is InvalidRequest', async () => {
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'ro', Id: 'mine' } });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  assert.deepEqual(
    res.body.details.map((d: { pointer: string }) => d.pointer),
    ['/properties/Id'],
  );
});

test('a patch that sets a read-only property is InvalidRequest', async () => {
  const res = await svc.call('PATCH', `/v1/resources/${T}/base`, {
    patchDocument: [{ op: 'add', path: '/Id', value: 'x' }],
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
});

test('a PUT that repeats a generated read-only identifier of an existing resource is InvalidRequest', async () => {
  const type = 'Test::Shop::Ticket';
  const schema = {
    typeName: type,
    description: 'A ticket whose identifier the provider generates.',
    properties: { Id: { type: 'string' }, Color: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Id'],
    readOnlyProperties: ['/properties/Id'],
  };
  assert.equal((await svc.call('POST', '/v1/types', schema)).status, 201);
  const K = encodeURIComponent(type);
  const created = await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${K}`, { desiredState: { Color: 'red' } })).body.progressEvent
      .requestToken,
  );
  assert.equal(created.operationStatus, 'SUCCESS', JSON.stringify(created));
  const id = created.identifier as string;
  assert.match(id, /^[0-9a-f-]{36}$/);
  // The same value as stored, so nothing read-only would change: the body still may not set it.
  const res = await svc.call('PUT', `/v1/resources/${K}/${id}`, { desiredState: { Id: id, Color: 'blue' } });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.errorCode, 'InvalidRequest');
  assert.deepEqual(
    res.body.details.map((d: { pointer: string }) => d.pointer),
    ['/properties/Id'],
  );
  assert.equal((await svc.call('GET', `/v1/resources/${K}/${id}`)).body.properties.Color, 'red');
  // Without it, the same PUT replaces the resource.
  const replaced = await svc.call('PUT', `/v1/resources/${K}/${id}?wait=5`, {
    desiredState: { Color: 'blue' },
  });
  assert.equal(replaced.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(replaced.body));
  assert.deepEqual((await svc.call('GET', `/v1/resources/${K}/${id}`)).body.properties, {
    Id: id,
    Color: 'blue',
  });
});

test('changing a create-only property that is not the identifier is NotUpdatable, by a patch and by a PUT', async () => {
  // Region is create-only but not part of the identifier: only the create-only check can refuse it
  // (a change to the identifier is refused earlier, by the identifier check).
  const type = 'Test::Shop::Kiln';
  const schema = {
    typeName: type,
    description: 'A kiln whose region is chosen once.',
    properties: { Name: { type: 'string' }, Region: { type: 'string' }, Color: { type: 'string' } },
    additionalProperties: false,
    required: ['Name', 'Region'],
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Region'],
  };
  assert.equal((await svc.call('POST', '/v1/types', schema)).status, 201);
  const K = encodeURIComponent(type);
  const created = await svc.call('POST', `/v1/resources/${K}?wait=5`, {
    desiredState: { Name: 'k1', Region: 'north', Color: 'red' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  const patched = await svc.call('PATCH', `/v1/resources/${K}/k1`, {
    patchDocument: [{ op: 'replace', path: '/Region', value: 'south' }],
  });
  assert.equal(patched.status, 400, JSON.stringify(patched.body));
  assert.equal(patched.body.errorCode, 'NotUpdatable');
  assert.deepEqual(
    patched.body.details.map((d: { pointer: string }) => d.pointer),
    ['/properties/Region'],
  );
  const put = await svc.call('PUT', `/v1/resources/${K}/k1`, {
    desiredState: { Name: 'k1', Region: 'south', Color: 'blue' },
  });
  assert.equal(put.status, 400, JSON.stringify(put.body));
  assert.equal(put.body.errorCode, 'NotUpdatable');
  assert.deepEqual((await svc.call('GET', `/v1/resources/${K}/k1`)).body.properties, {
    Name: 'k1',
    Region: 'north',
    Color: 'red',
  });
  // The same patch on another property goes through: the refusal was the create-only check's.
  const allowed = await svc.call('PATCH', `/v1/resources/${K}/k1?wait=5`, {
    patchDocument: [{ op: 'replace', path: '/Color', value: 'green' }],
  });
  assert.equal(allowed.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(allowed.body));
});

test('changing the identifier is NotUpdatable', async () => {
  const res = await svc.call('PATCH', `/v1/resources/${T}/base`, {
    patchDocument: [{ op: 'replace', path: '/Name', value: 'renamed' }],
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'NotUpdatable');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/base`)).body.properties.Name, 'base');
});

test('a patch to a path the schema does not declare is refused', async () => {
  const res = await svc.call('PATCH', `/v1/resources/${T}/base`, {
    patchDocument: [{ op: 'add', path: '/Nope', value: 1 }],
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  const malformed = await svc.call('PATCH', `/v1/resources/${T}/base`, { patchDocument: { op: 'add' } });
  assert.equal(malformed.status, 400);
  const badResult = await svc.call('PATCH', `/v1/resources/${T}/base`, {
    patchDocument: [{ op: 'replace', path: '/Size', value: 'XXL' }],
  });
  assert.equal(badResult.status, 400, 'the patched model is validated too');
});

test('schema defaults are applied on create', async () => {
  const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'defaulted' } });
  assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal(res.body.progressEvent.resourceModel.Size, 'S');
});

test('malformed bodies are InvalidRequest, never 500', async () => {
  const notJson = await svc.call('POST', `/v1/resources/${T}`, '{"desiredState": ');
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.errorCode, 'InvalidRequest');
  const proto = await svc.call(
    'POST',
    `/v1/resources/${T}`,
    '{"desiredState": {"Name": "p1", "__proto__": {"polluted": true}}}',
  );
  assert.equal(proto.status, 400);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const big = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'big', Color: 'x'.repeat(2 * 1024 * 1024) },
  });
  assert.equal(big.status, 413);
  assert.equal(big.body.errorCode, 'InvalidRequest');
  const badToken = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'tok' },
    clientToken: 'has spaces',
  });
  assert.equal(badToken.status, 400);
});
