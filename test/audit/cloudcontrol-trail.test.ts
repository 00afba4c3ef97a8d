/**
 * The Cloud Control front door's changes and refusals are in the audit trail, over real HTTP with
 * SigV4-signed SDK calls on each store: a CreateResource with the access key's token id, its type,
 * identifier and request token; a DeleteResource a reader's key may not make; a call with a key
 * nobody issued. A read is not recorded, and no record holds the desired state's write-only value.
 */
import assert from 'node:assert/strict';
import {
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import { cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { eachStoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

eachStoreService(
  'Cloud Control changes and refusals are recorded with the key’s token id',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const writer = await issueKeys(svc, 'writer');
    const reader = await issueKeys(svc, 'reader');
    const made = await cloudControl(svc.url, writer).send(
      new CreateResourceCommand({
        TypeName: WIDGET_TYPE,
        DesiredState: JSON.stringify({ Name: 'cc1', Secret: 'hunter2-write-only' }),
      }),
    );
    await cloudControl(svc.url, reader).send(
      new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'cc1' }),
    );
    await assert.rejects(
      cloudControl(svc.url, reader).send(
        new DeleteResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'cc1' }),
      ),
      (e: Error) => e.name === 'AccessDeniedException',
    );
    const stranger = { ...writer, accessKeyId: 'TPAK' + 'X'.repeat(16) };
    await assert.rejects(
      cloudControl(svc.url, stranger).send(
        new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'cc1' }),
      ),
    );

    let records: any[] = [];
    for (const until = Date.now() + 10_000; records.length < 7; await new Promise((r) => setTimeout(r, 50))) {
      assert.ok(Date.now() < until, `${records.length} records stored: ${JSON.stringify(records)}`);
      records = (await svc.call('GET', '/v1/audit')).body.records;
    }
    // The type and the two tokens over /v1, then the front door's create (its operation's end, made
    // within it, first) and its two refusals.
    assert.equal(records.length, 7, JSON.stringify(records));
    assert.ok(!JSON.stringify(records).includes('hunter2'), 'a write-only value is in the trail');
    const [unknown, denied, created, ended] = records;
    assert.equal(created.verb, 'create');
    assert.deepEqual(created.user, { tokenId: writer.id, role: 'writer', authentication: 'sigv4' });
    assert.equal(created.objectRef.typeName, WIDGET_TYPE);
    assert.equal(created.objectRef.identifier, 'cc1');
    assert.equal(created.objectRef.requestToken, made.ProgressEvent!.RequestToken);
    assert.equal(created.responseStatus.code, 200);
    assert.equal(created.annotations['cloudcontrol.action'], 'CreateResource');
    assert.equal(ended.stage, 'OperationComplete');
    assert.equal(ended.verb, 'create');
    assert.equal(ended.user.tokenId, writer.id);
    assert.equal(ended.objectRef.requestToken, made.ProgressEvent!.RequestToken);
    assert.equal(ended.responseStatus.operationStatus, 'SUCCESS');
    assert.equal(denied.verb, 'delete');
    assert.equal(denied.user.tokenId, reader.id);
    assert.equal(denied.responseStatus.errorCode, 'AccessDeniedException');
    assert.equal(unknown.verb, 'get');
    assert.equal(unknown.user.tokenId, undefined);
    assert.equal(unknown.responseStatus.errorCode, 'UnrecognizedClientException');
  },
  () => ({ audit: { store: true, level: 'Request' } }),
);
