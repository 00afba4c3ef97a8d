import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  svc = await startTestService();
  const reg = await svc.call('POST', '/v1/types', WIDGET);
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
});
after(() => svc.close());

test('create answers 202 PENDING, then the operation succeeds and the resource reads back', async () => {
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'alpha', Color: 'red' } });
  assert.equal(res.status, 202);
  const event = res.body.progressEvent;
  assert.equal(event.operation, 'CREATE');
  assert.ok(['PENDING', 'IN_PROGRESS', 'SUCCESS'].includes(event.operationStatus));
  assert.equal(event.typeName, WIDGET_TYPE);
  assert.match(event.eventTime, /^\d{4}-\d\d-\d\dT/);
  const done = await settle(svc, event.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS');
  assert.equal(done.identifier, 'alpha');
  const read = await svc.call('GET', `/v1/resources/${T}/alpha`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, {
    typeName: WIDGET_TYPE,
    identifier: 'alpha',
    properties: { Name: 'alpha', Color: 'red', Size: 'S' },
  });
});

test('creating an existing identifier fails with AlreadyExists and leaves the resource alone', async () => {
  await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'twice', Color: 'blue' } })).body
      .progressEvent.requestToken,
  );
  const second = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'twice', Color: 'green' },
  });
  assert.equal(second.status, 202);
  const done = await settle(svc, second.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'AlreadyExists');
  const read = await svc.call('GET', `/v1/resources/${T}/twice`);
  assert.equal(read.body.properties.Color, 'blue');
});

test('read, update and delete of a missing resource are NotFound', async () => {
  const read = await svc.call('GET', `/v1/resources/${T}/ghost`);
  assert.equal(read.status, 404);
  assert.equal(read.body.errorCode, 'NotFound');
  const update = await svc.call('PATCH', `/v1/resources/${T}/ghost`, {
    patchDocument: [{ op: 'replace', path: '/Color', value: 'x' }],
  });
  assert.equal((await settle(svc, update.body.progressEvent.requestToken)).errorCode, 'NotFound');
  const del = await svc.call('DELETE', `/v1/resources/${T}/ghost`);
  assert.equal((await settle(svc, del.body.progressEvent.requestToken)).errorCode, 'NotFound');
});

test('update applies a JSON Patch; delete removes; afterwards everything is NotFound and create works again', async () => {
  await settle(
    svc,
    (
      await svc.call('POST', `/v1/resources/${T}`, {
        desiredState: { Name: 'cycle', Color: 'red', Labels: ['a'] },
      })
    ).body.progressEvent.requestToken,
  );
  const up = await svc.call('PATCH', `/v1/resources/${T}/cycle`, {
    patchDocument: [
      { op: 'replace', path: '/Color', value: 'green' },
      { op: 'add', path: '/Labels/-', value: 'b' },
      { op: 'add', path: '/Count', value: 3 },
    ],
  });
  assert.equal(up.status, 202);
  const updated = await settle(svc, up.body.progressEvent.requestToken);
  assert.equal(updated.operationStatus, 'SUCCESS');
  assert.deepEqual(updated.resourceModel, {
    Name: 'cycle',
    Color: 'green',
    Labels: ['a', 'b'],
    Count: 3,
    Size: 'S',
  });
  assert.deepEqual(
    (await svc.call('GET', `/v1/resources/${T}/cycle`)).body.properties,
    updated.resourceModel,
  );

  const del = await svc.call('DELETE', `/v1/resources/${T}/cycle`);
  const deleted = await settle(svc, del.body.progressEvent.requestToken);
  assert.equal(deleted.operationStatus, 'SUCCESS');
  assert.equal(deleted.resourceModel, undefined, 'a delete reports no model');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/cycle`)).status, 404);
  const again = await svc.call('PATCH', `/v1/resources/${T}/cycle`, {
    patchDocument: [{ op: 'replace', path: '/Color', value: 'x' }],
  });
  assert.equal((await settle(svc, again.body.progressEvent.requestToken)).errorCode, 'NotFound');
  const delAgain = await svc.call('DELETE', `/v1/resources/${T}/cycle`);
  assert.equal((await settle(svc, delAgain.body.progressEvent.requestToken)).errorCode, 'NotFound');
  const recreate = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'cycle' } });
  assert.equal((await settle(svc, recreate.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
});

test('?wait= blocks until the operation is terminal', async () => {
  const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'waited' } });
  assert.equal(res.status, 202);
  assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS');
  const bad = await svc.call('POST', `/v1/resources/${T}?wait=abc`, { desiredState: { Name: 'w2' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.errorCode, 'InvalidRequest');
});

test('an unknown type is 404 NotFound with a hint', async () => {
  const res = await svc.call('POST', `/v1/resources/${encodeURIComponent('No::Such::Type')}`, {
    desiredState: {},
  });
  assert.equal(res.status, 404);
  assert.equal(res.body.errorCode, 'NotFound');
  assert.match(res.body.message, /not registered/);
});
