/**
 * "The model MUST NOT return any properties that are null": a nullable property set to null (by a
 * create, a PATCH or a PUT) is stored without it and never comes back, on any read path.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '../../src/store/index.js';
import { settle, startTestService, type TestService } from '../helpers/service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const T = encodeURIComponent('Typeplane.Messaging/queues');
let svc: TestService;

before(async () => {
  svc = await startTestService();
  const reg = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/yaml' },
    body: readFileSync(join(root, 'examples/queues.yaml'), 'utf8'),
  });
  assert.equal(reg.status, 201);
});
after(() => svc.close());

const noNull = (where: string, value: unknown) =>
  assert.ok(!JSON.stringify(value).includes('null'), `${where} holds a null: ${JSON.stringify(value)}`);

async function done(res: { status: number; body: any }) {
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const event = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(event));
  return event;
}

async function everyReadPath(name: string) {
  const read = await svc.call('GET', `/v1/resources/${T}/${name}`);
  assert.equal(read.status, 200);
  noNull('the read', read.body.properties);
  assert.equal('deadLetterQueue' in read.body.properties, false);
  const list = await svc.call('GET', `/v1/resources/${T}`);
  noNull('the list', list.body.resourceDescriptions);
  const requests = await svc.call('GET', '/v1/requests');
  noNull(
    'the request events',
    requests.body.progressEvents.map((e: { resourceModel?: unknown }) => e.resourceModel ?? {}),
  );
}

test('a PATCH to null removes the property: reads, lists and events carry no null', async () => {
  const created = await done(
    await svc.call('POST', `/v1/resources/${T}`, { desiredState: { name: 'q1', deadLetterQueue: 'dlq' } }),
  );
  assert.equal(created.resourceModel.deadLetterQueue, 'dlq');
  const patched = await done(
    await svc.call('PATCH', `/v1/resources/${T}/q1`, {
      patchDocument: [{ op: 'replace', path: '/deadLetterQueue', value: null }],
    }),
  );
  noNull('the update event', patched.resourceModel);
  await everyReadPath('q1');
});

test('a PUT and a create with a null property store and answer no null', async () => {
  noNull(
    'the create event',
    (
      await done(
        await svc.call('POST', `/v1/resources/${T}`, { desiredState: { name: 'q2', deadLetterQueue: null } }),
      )
    ).resourceModel,
  );
  await everyReadPath('q2');
  const put = await done(
    await svc.call('PUT', `/v1/resources/${T}/q2`, {
      desiredState: { name: 'q2', deadLetterQueue: null, fifo: true },
    }),
  );
  noNull('the PUT event', put.resourceModel);
  await everyReadPath('q2');
});

test('the stored records hold no null either', async () => {
  await done(
    await svc.call('PATCH', `/v1/resources/${T}/q1`, {
      patchDocument: [{ op: 'add', path: '/deadLetterQueue', value: null }],
    }),
  );
  const store = await openSqliteStore(join(svc.dataDir, 'typeplane.db'));
  try {
    const page = await store.listResources('Typeplane.Messaging/queues', { limit: 10 });
    assert.ok(page.items.length >= 2);
    for (const item of page.items) noNull(`the record of ${item.identifier}`, item.properties);
  } finally {
    await store.close();
  }
});
