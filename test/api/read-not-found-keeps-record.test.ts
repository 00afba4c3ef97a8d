/**
 * List and read agree: when a provider's read answers NotFound for a recorded resource (deleted
 * outside Typeplane), a DELETE operation runs the provider's delete handler (to clean up what is
 * left) and the index row goes with its answer; a new create of it works.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);
let svc: TestService;
const provider = memoryProvider({}, 'vanishing');

before(async () => {
  svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => svc.close());

const create = async (Name: string) => {
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name } });
  return settle(svc, res.body.progressEvent.requestToken);
};
const listed = async () =>
  (await svc.call('GET', `/v1/resources/${T}`)).body.resourceDescriptions.map(
    (r: { identifier: string }) => r.identifier,
  );

test('a read that the provider answers NotFound removes the resource from the list', async () => {
  assert.equal((await create('gone')).operationStatus, 'SUCCESS');
  assert.equal((await create('kept')).operationStatus, 'SUCCESS');
  assert.deepEqual(await listed(), ['gone', 'kept']);
  provider.store.delete('gone'); // deleted outside Typeplane
  const read = await svc.call('GET', `/v1/resources/${T}/gone`);
  assert.equal(read.status, 404);
  assert.equal(read.body.errorCode, 'NotFound');
  assert.deepEqual(await listed(), ['kept'], 'list agrees with read');
  const requests = await svc.call('GET', '/v1/requests?operation=DELETE');
  const removal = requests.body.progressEvents.find((e: { identifier?: string }) => e.identifier === 'gone');
  assert.equal(removal?.operationStatus, 'FAILED', 'the delete handler found nothing to delete');
  assert.equal(removal.errorCode, 'NotFound');
  const deletes = provider.calls.filter((c) => c.action === 'delete');
  assert.equal(deletes.length, 1, 'the provider was asked to clean up');
  assert.equal(deletes[0]!.req.desiredState.Name, 'gone');
  // A DELETE by the caller now finds nothing.
  const del = await svc.call('DELETE', `/v1/resources/${T}/gone`);
  assert.equal(del.body.progressEvent.errorCode, 'NotFound');
  // Not AlreadyExists: the identifier is free again.
  assert.equal((await create('gone')).operationStatus, 'SUCCESS');
  assert.deepEqual(await listed(), ['gone', 'kept']);
});

test('a read NotFound while another operation is active on the resource leaves the row to that operation', async () => {
  const slow = memoryProvider(
    {
      update: async (req, store) => {
        await new Promise((r) => setTimeout(r, 1500));
        store.set(String(req.desiredState.Name), req.desiredState);
        return { status: 'SUCCESS', resourceModel: req.desiredState };
      },
    },
    'slow',
  );
  const other = await startTestService({ providers: new Map([[WIDGET_TYPE, slow]]) });
  try {
    assert.equal((await other.call('POST', '/v1/types', WIDGET)).status, 201);
    const res = await other.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'busy' } });
    await settle(other, res.body.progressEvent.requestToken);
    const update = await other.call('PATCH', `/v1/resources/${T}/busy`, {
      patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
    });
    slow.store.delete('busy');
    assert.equal((await other.call('GET', `/v1/resources/${T}/busy`)).status, 404);
    const rows = (await other.call('GET', `/v1/resources/${T}`)).body.resourceDescriptions;
    assert.equal(rows.length, 1, 'the active update decides what happens to the row');
    assert.equal((await settle(other, update.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  } finally {
    await other.close();
  }
});
