/**
 * A change retried with the same client token is answered with the operation it began, not reviewed
 * again: an HTTP hook (a real server on loopback, counting the calls it gets) is called once for a
 * create, a PATCH, a PUT and a delete each sent twice, and a Deny policy registered between a create
 * and its retry does not refuse the retry. A different request with a used token is refused before
 * any hook is called. Over real HTTP on each store.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { createRemoteHook } from '../../src/providers/sdk.js';
import { eachStoreService, type StoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const HOOK = 'Test::Hooks::Counted';

/** How many calls of each hook action the server got, by the target's Name. */
const calls = new Map<string, number>();
let hookUrl = '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      action: string;
      requestData: { targetModel: { resourceProperties: { Name?: string } } };
    };
    const key = `${message.action} ${message.requestData.targetModel.resourceProperties.Name ?? ''}`;
    calls.set(key, (calls.get(key) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"SUCCESS"}');
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const HOOK_SCHEMA = JSON.stringify({
  typeName: HOOK,
  description: 'counts the calls it gets',
  typeConfiguration: { properties: {}, additionalProperties: false },
  handlers: {
    preCreate: { targetNames: [WIDGET_TYPE], permissions: [] },
    preUpdate: { targetNames: [WIDGET_TYPE], permissions: [] },
    preDelete: { targetNames: [WIDGET_TYPE], permissions: [] },
  },
  additionalProperties: false,
});

async function setUp(svc: StoreService): Promise<void> {
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  assert.equal((await svc.call('POST', '/v1/hooks', HOOK_SCHEMA)).status, 201);
  const configured = await svc.call('PUT', `/v1/hooks/${HOOK}/configuration`, {
    CloudFormationConfiguration: {
      HookConfiguration: { HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL' },
    },
  });
  assert.equal(configured.status, 200, JSON.stringify(configured.body));
}

/** Sends the same request twice: both answer the one operation it began. */
async function twice(
  svc: StoreService,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<string> {
  const first = await svc.call(method, `${path}?wait=5`, body);
  assert.equal(first.status, 202, JSON.stringify(first.body));
  assert.equal(first.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(first.body));
  const again = await svc.call(method, path, body);
  assert.equal(again.status, 202, JSON.stringify(again.body));
  assert.equal(again.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
  return first.body.progressEvent.requestToken as string;
}

eachStoreService(
  'a change retried with its client token answers the operation it began and calls no hook again',
  async (svc) => {
    calls.clear();
    await setUp(svc);
    const resources = `/v1/resources/${WIDGET_TYPE}`;
    await twice(svc, 'POST', resources, { desiredState: { Name: 'w1' }, clientToken: 'create-w1' });
    await twice(svc, 'PATCH', `${resources}/w1`, {
      patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
      clientToken: 'patch-w1',
    });
    await twice(svc, 'PUT', `${resources}/w1`, {
      desiredState: { Name: 'w1', Color: 'blue' },
      clientToken: 'put-w1',
    });
    const deleted = await svc.call('DELETE', `${resources}/w1?wait=5`, { clientToken: 'delete-w1' });
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
    const again = await svc.call('DELETE', `${resources}/w1`, { clientToken: 'delete-w1' });
    assert.equal(again.body.progressEvent.requestToken, deleted.body.progressEvent.requestToken);
    assert.deepEqual(Object.fromEntries(calls), {
      'PRE_CREATE w1': 1,
      'PRE_UPDATE w1': 2,
      'PRE_DELETE w1': 1,
    });

    // Another request with a used token is refused as before, and no hook hears of it.
    const reused = await svc.call('POST', resources, {
      desiredState: { Name: 'w2' },
      clientToken: 'create-w1',
    });
    assert.equal(reused.status, 400, JSON.stringify(reused.body));
    assert.match(reused.body.message, /clientToken was already used for a different request/);
    assert.equal(calls.get('PRE_CREATE w2'), undefined);
  },
  () => ({ hookServers: [createRemoteHook({ name: 'counted', url: hookUrl, hooks: [HOOK] })] }),
);

eachStoreService(
  'a policy registered after a create does not refuse the create’s retry, which answers what it began',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const body = { desiredState: { Name: 'w3' }, clientToken: 'create-w3' };
    const first = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, body);
    assert.equal(first.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(first.body));
    const policy = await svc.call('POST', '/v1/policies', {
      name: 'no-widgets',
      match: { types: [WIDGET_TYPE], operations: ['CREATE'] },
      validations: [{ expression: 'false', message: 'no widgets now' }],
      action: 'Deny',
    });
    assert.equal(policy.status, 201, JSON.stringify(policy.body));
    const retried = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, body);
    assert.equal(retried.status, 202, JSON.stringify(retried.body));
    assert.equal(retried.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
    const fresh = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: 'w4' },
      clientToken: 'create-w4',
    });
    assert.equal(fresh.status, 403, 'a new create is judged');
  },
);
