/**
 * A schema that declares handlers supports those actions only, as CloudFormation does: an update of a
 * type without an update handler is refused before anything runs (405 on /v1, Cloud Control's
 * UnsupportedActionException), a PUT may still create, and a type that declares no handlers at all
 * supports every action.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  ListResourcesCommand,
  UnsupportedActionException,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import { cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { startTestService, type TestService } from '../helpers/service.js';

const IMMUTABLE = 'Test::Shop::Receipt';
const R = encodeURIComponent(IMMUTABLE);
const SCHEMA = {
  typeName: IMMUTABLE,
  description: 'A receipt: made once, never changed, never listed.',
  properties: { Name: { type: 'string' }, Total: { type: 'integer' } },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  handlers: {
    create: { permissions: [] },
    read: { permissions: [] },
    delete: { permissions: [] },
  },
};

let svc: TestService;

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', JSON.stringify(SCHEMA))).status, 201);
  const made = await svc.call('POST', `/v1/resources/${R}?wait=10`, {
    desiredState: { Name: 'r1', Total: 3 },
  });
  assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(made.body));
});
after(() => svc.close());

test('an action the schema declares no handler for is 405 before anything runs, naming the handlers it has', async () => {
  const patched = await svc.call('PATCH', `/v1/resources/${R}/r1`, {
    patchDocument: [{ op: 'replace', path: '/Total', value: 4 }],
  });
  assert.equal(patched.status, 405);
  assert.equal(patched.body.errorCode, 'InvalidRequest');
  assert.match(
    patched.body.message,
    /does not support UPDATE: its schema declares handlers for create, read, delete only/,
  );
  const listed = await svc.call('GET', `/v1/resources/${R}`);
  assert.equal(listed.status, 405);
  assert.match(listed.body.message, /does not support LIST/);
  // A PUT that would replace is an update; one that creates is a create.
  assert.equal(
    (await svc.call('PUT', `/v1/resources/${R}/r1`, { desiredState: { Name: 'r1', Total: 5 } })).status,
    405,
  );
  const created = await svc.call('PUT', `/v1/resources/${R}/r2?wait=10`, {
    desiredState: { Name: 'r2', Total: 1 },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  // Nothing was changed, and no operation was recorded for the refused ones.
  assert.equal((await svc.call('GET', `/v1/resources/${R}/r1`)).body.properties.Total, 3);
  const requests = await svc.call('GET', '/v1/requests?operation=UPDATE');
  assert.deepEqual(requests.body.progressEvents, []);
});

test('Cloud Control answers UnsupportedActionException (405) for them', async () => {
  const cc = cloudControl(svc.url, await issueKeys(svc, 'writer'));
  for (const call of [
    cc.send(
      new UpdateResourceCommand({
        TypeName: IMMUTABLE,
        Identifier: 'r1',
        PatchDocument: JSON.stringify([{ op: 'replace', path: '/Total', value: 4 }]),
      }),
    ),
    cc.send(new ListResourcesCommand({ TypeName: IMMUTABLE })),
  ]) {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof UnsupportedActionException, String(error));
    assert.equal(error.$metadata.httpStatusCode, 405);
  }
});
