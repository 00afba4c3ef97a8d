/**
 * A PUT retried with the same client token replays its operation, also after it completed (when the
 * retry finds the resource its create made), as a POST does; whatever the provider. A noReplace PUT
 * of an existing resource fails as a create does (CREATE, AlreadyExists).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const STATE = 'Test::Put::Stored';
const REMOTE = 'Test::Put::Provided';
const LOCKED = 'Test::Put::Locked';
const schema = (typeName: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    typeName,
    description: `${typeName} for tests.`,
    properties: { Name: { type: 'string' }, Size: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    ...extra,
  });

let svc: TestService;
const provider = memoryProvider({}, 'put-provider');

before(async () => {
  svc = await startTestService({ providers: new Map([[REMOTE, provider]]) });
  for (const doc of [schema(STATE), schema(REMOTE), schema(LOCKED, { traits: { noReplace: true } })])
    assert.equal((await svc.call('POST', '/v1/types', doc)).status, 201);
});
after(() => svc.close());

const put = (typeName: string, name: string, body: unknown) =>
  svc.call('PUT', `/v1/resources/${encodeURIComponent(typeName)}/${name}`, body);

for (const typeName of [STATE, REMOTE, LOCKED]) {
  test(`${typeName}: a completed PUT retried with its client token replays the same operation`, async () => {
    const body = { desiredState: { Size: 'S' }, clientToken: `put-${typeName.split('::')[2]!}-once` };
    const first = await put(typeName, 'p1', body);
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const done = await settle(svc, first.body.progressEvent.requestToken);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    assert.equal(done.operation, 'CREATE');
    for (let i = 0; i < 2; i++) {
      const again = await put(typeName, 'p1', body);
      assert.equal(again.status, 202, JSON.stringify(again.body));
      assert.equal(again.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
      assert.equal(again.body.progressEvent.operationStatus, 'SUCCESS');
    }
    const list = await svc.call('GET', `/v1/resources/${encodeURIComponent(typeName)}`);
    assert.deepEqual(
      list.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
      ['p1'],
    );
    // The same token with another request is still refused.
    const other = await put(typeName, 'p1', { ...body, desiredState: { Size: 'L' } });
    assert.equal(other.status, 400);
    assert.equal(other.body.errorCode, 'InvalidRequest');
  });
}

test('a PUT replacing an existing resource, retried with its client token, replays too', async () => {
  await settle(
    svc,
    (await put(STATE, 'r1', { desiredState: { Size: 'S' } })).body.progressEvent.requestToken,
  );
  const body = { desiredState: { Size: 'M' }, clientToken: 'put-replace-once' };
  const first = await put(STATE, 'r1', body);
  assert.equal((await settle(svc, first.body.progressEvent.requestToken)).operation, 'UPDATE');
  const again = await put(STATE, 'r1', body);
  assert.equal(again.body.progressEvent.requestToken, first.body.progressEvent.requestToken);
});

test('a noReplace PUT of an existing resource is a CREATE that fails with AlreadyExists', async () => {
  await settle(
    svc,
    (await put(LOCKED, 'l1', { desiredState: { Size: 'S' } })).body.progressEvent.requestToken,
  );
  const refused = await put(LOCKED, 'l1', { desiredState: { Size: 'M' } });
  assert.equal(refused.status, 202);
  assert.equal(refused.body.progressEvent.operation, 'CREATE');
  assert.equal(refused.body.progressEvent.operationStatus, 'FAILED');
  assert.equal(refused.body.progressEvent.errorCode, 'AlreadyExists');
  assert.match(refused.body.progressEvent.statusMessage, /noReplace/);
});
