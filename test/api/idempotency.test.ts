import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => svc.close());

test('the same client token with the same body returns the same operation and creates one resource', async () => {
  const body = { desiredState: { Name: 'idem', Color: 'red' }, clientToken: 'token-1' };
  const first = await svc.call('POST', `/v1/resources/${T}`, body);
  const second = await svc.call('POST', `/v1/resources/${T}`, {
    clientToken: 'token-1',
    desiredState: { Color: 'red', Name: 'idem' },
  });
  assert.equal(second.status, 202);
  assert.equal(second.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
  await settle(svc, first.body.progressEvent.requestToken);
  const third = await svc.call('POST', `/v1/resources/${T}`, body);
  assert.equal(third.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
  assert.equal(
    third.body.progressEvent.operationStatus,
    'SUCCESS',
    'a retry after completion reports the outcome, not AlreadyExists',
  );
  const list = await svc.call('GET', `/v1/resources/${T}`);
  assert.equal(
    list.body.resourceDescriptions.filter((r: { identifier: string }) => r.identifier === 'idem').length,
    1,
  );
});

test('the same client token with a different body is InvalidRequest', async () => {
  await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'idem2' }, clientToken: 'token-2' });
  const res = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'idem3' },
    clientToken: 'token-2',
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidRequest');
  assert.match(res.body.message, /already used/);
});

test('client tokens make updates and deletes idempotent too', async () => {
  await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'idem4' } })).body.progressEvent
      .requestToken,
  );
  const patch = { patchDocument: [{ op: 'add', path: '/Count', value: 1 }], clientToken: 'up-1' };
  const a = await svc.call('PATCH', `/v1/resources/${T}/idem4`, patch);
  await settle(svc, a.body.progressEvent.requestToken);
  const b = await svc.call('PATCH', `/v1/resources/${T}/idem4`, patch);
  assert.equal(b.body.progressEvent.requestToken, a.body.progressEvent.requestToken);
  const d1 = await svc.call('DELETE', `/v1/resources/${T}/idem4`, { clientToken: 'del-1' });
  await settle(svc, d1.body.progressEvent.requestToken);
  const d2 = await svc.call('DELETE', `/v1/resources/${T}/idem4`, { clientToken: 'del-1' });
  assert.equal(d2.body.progressEvent.requestToken, d1.body.progressEvent.requestToken);
  assert.equal(d2.body.progressEvent.operationStatus, 'SUCCESS');
});
