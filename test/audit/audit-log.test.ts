/**
 * The audit log over real HTTP on each store: type registration, a resource's create, update and
 * delete (write-only values absent at level Request), a refusal, a token's creation (no secret) and a
 * stack with a NoEcho parameter (its value absent), each a chained record naming who, what and how.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { eachStoreService } from '../helpers/each-store.js';
import { api, settle, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { awaitRecords } from './helpers.js';

const SECRET = 'hunter2-write-only';
const NEW_SECRET = 'hunter3-write-only';
const NO_ECHO = 'no-echo-value-xyz';
const TEMPLATE = `
Parameters:
  Password: { Type: String, NoEcho: true }
  Colour: { Type: String }
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: sw, Secret: !Ref Password, Color: !Ref Colour } }
`;

const auditFile = join(tempDir('typeplane-audit-'), 'audit.log');
const files: string[] = [];

eachStoreService(
  'every change and refusal is a record, and no secret is in any',
  async (svc) => {
    const file = files.at(-1)!;
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const created = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
      desiredState: { Name: 'w1', Secret: SECRET, Color: 'red' },
    });
    assert.equal(created.status, 202);
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
    const patched = await svc.call('PATCH', `/v1/resources/${WIDGET_TYPE}/w1?wait=10`, {
      patchDocument: [
        { op: 'replace', path: '/Secret', value: NEW_SECRET },
        { op: 'replace', path: '/Color', value: 'blue' },
      ],
    });
    assert.equal(patched.status, 202);
    const token = await svc.call('POST', '/v1/tokens', { role: 'reader', description: 'audit test reader' });
    assert.equal(token.status, 201);
    const reader = api(svc.url, token.body.token);
    const refused = await reader.call('DELETE', `/v1/resources/${WIDGET_TYPE}/w1`, undefined, {
      'user-agent': 'audit-test/1',
    });
    assert.equal(refused.status, 403);
    const deleted = await svc.call('DELETE', `/v1/resources/${WIDGET_TYPE}/w1`);
    assert.equal(deleted.status, 202);
    await settle(svc, deleted.body.progressEvent.requestToken);
    const stack = await svc.call('PUT', '/v1/stacks/s1?wait=20', {
      template: TEMPLATE,
      parameters: { Password: NO_ECHO, Colour: 'green' },
    });
    assert.equal(stack.status, 202, JSON.stringify(stack.body));

    // 7 requests, and the ends of the 4 operations they began (the stack's resource's included).
    const records = await awaitRecords(file, 11);
    const text = JSON.stringify(records);
    for (const secret of [SECRET, NEW_SECRET, NO_ECHO, token.body.token, svc.token])
      assert.ok(!text.includes(secret), `a secret is in the audit log: ${secret.slice(0, 6)}…`);
    const find = (verb: string, resource: string, code?: number) => {
      const r = records.find(
        (e) =>
          e.verb === verb &&
          e.objectRef.resource === resource &&
          (code === undefined || e.responseStatus.code === code),
      );
      assert.ok(r, `no ${verb} ${resource} record in ${text}`);
      return r;
    };
    const registration = find('create', 'types', 201);
    assert.equal(registration.level, 'Request');
    assert.equal(registration.user.role, 'admin');
    assert.match(registration.user.tokenId, /\S/);
    assert.equal(registration.user.description, 'from TYPEPLANE_ADMIN_TOKEN');

    const create = find('create', 'resources', 202);
    assert.equal(create.objectRef.typeName, WIDGET_TYPE);
    assert.equal(create.objectRef.identifier, 'w1');
    assert.equal(create.objectRef.requestToken, created.body.progressEvent.requestToken);
    assert.deepEqual(create.requestObject.desiredState, { Name: 'w1', Color: 'red' });
    assert.deepEqual(create.sourceIPs, ['127.0.0.1']);
    assert.ok(Date.parse(create.requestReceivedTimestamp) <= Date.parse(create.stageTimestamp));

    const patch = find('patch', 'resources', 202);
    assert.equal(patch.objectRef.requestToken, patched.body.progressEvent.requestToken);
    assert.deepEqual(patch.requestObject.patchDocument, [
      { op: 'replace', path: '/Secret', value: '(removed)' },
      { op: 'replace', path: '/Color', value: 'blue' },
    ]);

    const refusal = find('delete', 'resources', 403);
    assert.equal(refusal.user.tokenId, token.body.id);
    assert.equal(refusal.user.description, 'audit test reader');
    assert.equal(refusal.user.role, 'reader');
    assert.equal(refusal.responseStatus.errorCode, 'AccessDenied');
    assert.equal(refusal.userAgent, 'audit-test/1');

    const deletion = find('delete', 'resources', 202);
    assert.equal(deletion.objectRef.requestToken, deleted.body.progressEvent.requestToken);

    const tokenCreation = find('create', 'tokens', 201);
    assert.deepEqual(tokenCreation.requestObject, { role: 'reader', description: 'audit test reader' });

    const stackRecord = find('update', 'stacks', 202);
    assert.equal(stackRecord.objectRef.name, 's1');
    assert.deepEqual(stackRecord.requestObject.parameters, { Password: '(removed)', Colour: 'green' });
    assert.equal(stackRecord.requestObject.template, '(removed)');
    // The stack's resource's operation ended as the deployer's.
    const stackResourceEnd = records.find(
      (e) => e.stage === 'OperationComplete' && e.objectRef.identifier === 'sw',
    );
    assert.ok(stackResourceEnd, `no end of the stack's resource's operation in ${text}`);
    assert.equal(stackResourceEnd.verb, 'create');
    assert.equal(stackResourceEnd.user.tokenId, registration.user.tokenId);
    assert.equal(stackResourceEnd.responseStatus.operationStatus, 'SUCCESS');

    // One chain, in the order written.
    records.forEach((r, i) => {
      assert.equal(r.sequence, i + 1);
      assert.equal(r.previousHash, i === 0 ? '0'.repeat(64) : records[i - 1].hash);
    });
  },
  () => {
    files.push(`${auditFile}.${files.length}`);
    return {
      secretKey: randomBytes(32).toString('base64'),
      audit: { log: files.at(-1)!, level: 'Request' },
    };
  },
);
