/**
 * Roles: an admin does everything; a writer works with resources and requests and reads types but
 * cannot register types or manage tokens; a reader only reads. Refusals are 403 AccessDenied and
 * change nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  WIDGET,
  WIDGET_TYPE,
  api,
  settle,
  startTestService,
  type Api,
  type TestService,
} from '../helpers/service.js';

let svc: TestService;
let writer: Api;
let reader: Api;
const T = encodeURIComponent(WIDGET_TYPE);

async function tokenFor(role: string): Promise<Api> {
  const res = await svc.call('POST', '/v1/tokens', { role, description: `${role} for tests` });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return api(svc.url, res.body.token);
}

function denied(res: { status: number; body: any }, what: string): void {
  assert.equal(res.status, 403, `${what} → ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.errorCode, 'AccessDenied', what);
  assert.deepEqual(res.body.details, [], what);
}

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  writer = await tokenFor('writer');
  reader = await tokenFor('reader');
});
after(() => svc.close());

test('a reader reads types, resources and requests but every mutation is 403 AccessDenied', async () => {
  const created = await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'r1' } });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
  const requestToken = created.body.progressEvent.requestToken as string;

  for (const path of [
    '/v1/types',
    `/v1/types/${T}`,
    `/v1/resources/${T}`,
    `/v1/resources/${T}/r1`,
    `/v1/resources/${T}/r1/references`,
    '/v1/requests',
    `/v1/requests/${requestToken}`,
  ]) {
    const res = await reader.call('GET', path);
    assert.equal(res.status, 200, `reader GET ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  }
  const mutations: [string, string, unknown?][] = [
    ['POST', '/v1/types', WIDGET],
    ['DELETE', `/v1/types/${T}`],
    ['POST', `/v1/resources/${T}`, { desiredState: { Name: 'r2' } }],
    ['PATCH', `/v1/resources/${T}/r1`, { patchDocument: [{ op: 'replace', path: '/Color', value: 'red' }] }],
    ['PUT', `/v1/resources/${T}/r1`, { desiredState: { Name: 'r1', Color: 'red' } }],
    ['DELETE', `/v1/resources/${T}/r1`],
    ['POST', `/v1/requests/${requestToken}/cancel`],
    ['GET', '/v1/tokens'],
    ['POST', '/v1/tokens', { role: 'reader' }],
    ['DELETE', '/v1/tokens/anything'],
  ];
  for (const [method, path, body] of mutations)
    denied(await reader.call(method, path, body), `reader ${method} ${path}`);
  const after = await svc.call('GET', `/v1/resources/${T}/r1`);
  assert.equal(after.status, 200);
  assert.equal(after.body.properties.Color, undefined, 'the refused changes did not happen');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/r2`)).status, 404);
});

test('a writer creates, updates and deletes resources and cancels requests, reads types, but cannot register types or manage tokens', async () => {
  const created = await writer.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'w1' } });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
  const updated = await writer.call('PATCH', `/v1/resources/${T}/w1?wait=5`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'blue' }],
  });
  assert.equal(updated.status, 202);
  assert.equal((await settle(writer, updated.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal((await writer.call('GET', `/v1/resources/${T}/w1`)).body.properties.Color, 'blue');
  // Cancelling a finished request is refused by the engine (409), which shows the role check passed.
  const cancel = await writer.call('POST', `/v1/requests/${updated.body.progressEvent.requestToken}/cancel`);
  assert.equal(cancel.status, 409);
  const deleted = await writer.call('DELETE', `/v1/resources/${T}/w1?wait=5`);
  assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal((await writer.call('GET', `/v1/types/${T}`)).status, 200);

  denied(
    await writer.call('POST', '/v1/types', WIDGET.replace('Test::Shop::Widget', 'Test::Shop::Gadget')),
    'writer registers a type',
  );
  denied(await writer.call('DELETE', `/v1/types/${T}`), 'writer deregisters a type');
  denied(await writer.call('GET', '/v1/tokens'), 'writer lists tokens');
  denied(await writer.call('POST', '/v1/tokens', { role: 'admin' }), 'writer makes an admin token');
  assert.equal((await svc.call('GET', '/v1/types/Test%3A%3AShop%3A%3AGadget')).status, 404, 'not registered');
  assert.equal(
    (await svc.call('GET', '/v1/tokens')).body.tokens.length,
    3,
    'admin, writer, reader: no new token',
  );
});

test('an admin registers and deregisters types and manages tokens', async () => {
  const gadget = WIDGET.replace('Test::Shop::Widget', 'Test::Shop::Gadget');
  assert.equal((await svc.call('POST', '/v1/types', gadget)).status, 201);
  assert.equal((await svc.call('DELETE', '/v1/types/Test%3A%3AShop%3A%3AGadget')).status, 204);
  assert.equal((await svc.call('GET', '/v1/tokens')).status, 200);
});
