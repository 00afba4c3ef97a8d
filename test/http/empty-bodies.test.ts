/**
 * Many HTTP clients send `Content-Type: application/json` on every request, with no body on a DELETE
 * or a GET (`Content-Length: 0`, or an empty chunked body). Such a request has no body: it is
 * answered as without the header. A POST, PUT or PATCH with an empty body still needs one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);
const EMPTY_BODIES: Record<string, Record<string, string>> = {
  'Content-Length: 0': { 'content-type': 'application/json', 'content-length': '0' },
  'an empty chunked body': {
    'content-type': 'application/json; charset=utf-8',
    'transfer-encoding': 'chunked',
  },
};

before(async () => {
  svc = await startTestService();
  const registered = await svc.call('POST', '/v1/types', WIDGET);
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
});
after(() => svc.close());

test('a DELETE with Content-Type: application/json and an empty body deletes the resource', async () => {
  for (const [name, headers] of Object.entries(EMPTY_BODIES)) {
    const identifier = `empty-${name.length}`;
    const created = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: identifier } });
    assert.equal((await settle(svc, created.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');

    const deleted = await svc.call('DELETE', `/v1/resources/${T}/${identifier}`, undefined, headers);
    assert.equal(deleted.status, 202, `${name}: ${JSON.stringify(deleted.body)}`);
    assert.equal((await settle(svc, deleted.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
    assert.equal((await svc.call('GET', `/v1/resources/${T}/${identifier}`)).status, 404, name);
  }
});

test('other DELETE and GET routes take the header with an empty body as no body', async () => {
  for (const [name, headers] of Object.entries(EMPTY_BODIES)) {
    const stack = await svc.call('DELETE', '/v1/stacks/never-made', undefined, headers);
    assert.equal(stack.status, 404, `${name}: ${JSON.stringify(stack.body)}`);
    assert.equal(stack.body.errorCode, 'NotFound');
    const token = await svc.call('DELETE', '/v1/tokens/no-such-token', undefined, headers);
    assert.equal(token.status, 404, `${name}: ${JSON.stringify(token.body)}`);
    const list = await svc.call('GET', `/v1/resources/${T}`, undefined, headers);
    assert.equal(list.status, 200, `${name}: ${JSON.stringify(list.body)}`);
  }
});

test('a POST with an empty body is still refused: it needs one', async () => {
  for (const [name, headers] of Object.entries(EMPTY_BODIES)) {
    const refused = await svc.call('POST', `/v1/resources/${T}`, undefined, headers);
    assert.equal(refused.status, 400, name);
    assert.equal(refused.body.errorCode, 'InvalidRequest');
    assert.match(refused.body.message, /request body is empty/);
  }
});

test('a DELETE may still carry a JSON body (its clientToken)', async () => {
  const created = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'with-body' } });
  await settle(svc, created.body.progressEvent.requestToken);
  const first = await svc.call('DELETE', `/v1/resources/${T}/with-body`, { clientToken: 'delete-once' });
  assert.equal(first.status, 202, JSON.stringify(first.body));
  const again = await svc.call('DELETE', `/v1/resources/${T}/with-body`, { clientToken: 'delete-once' });
  assert.equal(again.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
});
