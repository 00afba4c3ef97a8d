/**
 * A read never writes: when a provider answers NotFound for a recorded resource (it restarted, or its
 * API is eventually consistent), the read answers 404 and the record stays, listed with what was
 * observed. Dropping a record is a writer's explicit act (forget), audit-logged; a delete the provider
 * answers NotFound completes as gone.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import {
  WIDGET,
  WIDGET_TYPE,
  api,
  settle,
  startTestService,
  type Api,
  type TestService,
} from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { eachStoreService } from '../helpers/each-store.js';

const T = encodeURIComponent(WIDGET_TYPE);
let svc: TestService;
let reader: Api;
let writer: Api;
let writerId: string;
const logged: Record<string, unknown>[] = [];
const provider = memoryProvider({}, 'forgetful');

before(async () => {
  svc = await startTestService({
    providers: new Map([[WIDGET_TYPE, provider]]),
    logger: pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
  });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  reader = api(svc.url, (await svc.call('POST', '/v1/tokens', { role: 'reader' })).body.token);
  const w = (await svc.call('POST', '/v1/tokens', { role: 'writer' })).body;
  writer = api(svc.url, w.token);
  writerId = w.id;
});
after(() => svc.close());

const create = async (Name: string) => {
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name } });
  return settle(svc, res.body.progressEvent.requestToken);
};
const listed = async () =>
  (await svc.call('GET', `/v1/resources/${T}`)).body.resourceDescriptions as {
    identifier: string;
    observed?: { status: string; since: string };
  }[];
const deletesOf = async (identifier: string) =>
  (await svc.call('GET', '/v1/requests?operation=DELETE')).body.progressEvents.filter(
    (e: { identifier?: string }) => e.identifier === identifier,
  );

test("a reader's read the provider answers NotFound is 404, starts no operation, and the record stays listed with what was observed", async () => {
  assert.equal((await create('restarted')).operationStatus, 'SUCCESS');
  provider.store.delete('restarted'); // the provider lost it (a restart, or not consistent yet)
  const read = await reader.call('GET', `/v1/resources/${T}/restarted`);
  assert.equal(read.status, 404);
  assert.equal(read.body.errorCode, 'NotFound');
  assert.match(read.body.message, /provider no longer has/);
  assert.match(read.body.message, /typeplane resource forget Test::Shop::Widget restarted/);
  assert.deepEqual(await deletesOf('restarted'), [], 'no operation was started');
  assert.equal(provider.calls.filter((c) => c.action === 'delete').length, 0);
  const row = (await listed()).find((r) => r.identifier === 'restarted');
  assert.equal(row?.observed?.status, 'NotFound', 'listed with what the read saw');
  const since = row.observed.since;
  assert.ok(Date.parse(since) <= Date.now());

  // A second NotFound writes nothing new: the observation keeps its first time.
  assert.equal((await reader.call('GET', `/v1/resources/${T}/restarted`)).status, 404);
  assert.equal((await listed()).find((r) => r.identifier === 'restarted')?.observed?.since, since);

  // The provider finds it again: the read answers it, and the list no longer says NotFound.
  provider.store.set('restarted', { Name: 'restarted' });
  const again = await reader.call('GET', `/v1/resources/${T}/restarted`);
  assert.equal(again.status, 200);
  assert.equal(again.body.properties.Name, 'restarted');
  assert.equal((await listed()).find((r) => r.identifier === 'restarted')?.observed, undefined);
});

test('forget drops the record without calling the provider, for writers only, and logs who did it', async () => {
  assert.equal((await create('vanished')).operationStatus, 'SUCCESS');
  provider.store.delete('vanished');
  assert.equal((await reader.call('GET', `/v1/resources/${T}/vanished`)).status, 404);

  const refused = await reader.call('POST', `/v1/resources/${T}/vanished/forget`);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.errorCode, 'AccessDenied');
  assert.ok(
    (await listed()).some((r) => r.identifier === 'vanished'),
    'a refused forget drops nothing',
  );

  const callsBefore = provider.calls.length;
  const forgot = await writer.call('POST', `/v1/resources/${T}/vanished/forget`);
  assert.equal(forgot.status, 200, JSON.stringify(forgot.body));
  assert.equal(forgot.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal(forgot.body.progressEvent.identifier, 'vanished');
  assert.match(forgot.body.progressEvent.statusMessage, /without calling the provider/);
  assert.equal(provider.calls.length, callsBefore, 'the provider was not called');
  assert.ok(!(await listed()).some((r) => r.identifier === 'vanished'));
  const audit = logged.find((l) => l.msg === 'resource record forgotten');
  assert.deepEqual(
    { typeName: audit?.typeName, identifier: audit?.identifier, by: audit?.by },
    { typeName: WIDGET_TYPE, identifier: 'vanished', by: writerId },
  );

  // Nothing left to forget; the identifier is free for a create again.
  const twice = await writer.call('POST', `/v1/resources/${T}/vanished/forget`);
  assert.equal(twice.status, 404);
  assert.equal((await create('vanished')).operationStatus, 'SUCCESS');
});

test('a delete the provider answers NotFound completes as gone, and the record goes', async () => {
  assert.equal((await create('outside')).operationStatus, 'SUCCESS');
  provider.store.delete('outside'); // deleted outside Typeplane
  const del = await writer.call('DELETE', `/v1/resources/${T}/outside`);
  const done = await settle(svc, del.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
  assert.equal(done.errorCode, undefined);
  assert.ok(!(await listed()).some((r) => r.identifier === 'outside'));
});

test('an update the provider answers NotFound fails NotFound and keeps the record, noted as observed', async () => {
  assert.equal((await create('lagging')).operationStatus, 'SUCCESS');
  provider.store.delete('lagging');
  const res = await writer.call('PATCH', `/v1/resources/${T}/lagging`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
  });
  const done = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'NotFound');
  assert.equal((await listed()).find((r) => r.identifier === 'lagging')?.observed?.status, 'NotFound');
});

const forgetful = memoryProvider({}, 'forgetful');
eachStoreService(
  'the observation is kept in the store beside the record, and a write that records the resource anew clears it',
  async (s) => {
    assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
    const made = await s.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'kept' } });
    assert.equal((await settle(s, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
    forgetful.store.delete('kept');
    assert.equal((await s.call('GET', `/v1/resources/${T}/kept`)).status, 404);
    const observed = async () =>
      (await s.call('GET', `/v1/resources/${T}`)).body.resourceDescriptions[0].observed;
    assert.equal((await observed())?.status, 'NotFound');
    // The provider has it again and an update records it anew: what it says now replaces the observation.
    forgetful.store.set('kept', { Name: 'kept' });
    const patched = await s.call('PATCH', `/v1/resources/${T}/kept`, {
      patchDocument: [{ op: 'add', path: '/Color', value: 'blue' }],
    });
    assert.equal((await settle(s, patched.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
    assert.equal(await observed(), undefined);
    forgetful.store.clear();
  },
  () => ({ providers: new Map([[WIDGET_TYPE, forgetful]]) }),
);

test('forget is refused while another operation is active on the resource, and for a type whose record is the resource', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const busy = memoryProvider(
    {
      update: async (req, store) => {
        await held;
        store.set(String(req.desiredState.Name), req.desiredState);
        return { status: 'SUCCESS', resourceModel: req.desiredState };
      },
    },
    'busy',
  );
  const other = await startTestService({ providers: new Map([[WIDGET_TYPE, busy]]) });
  t.after(() => other.close());
  assert.equal((await other.call('POST', '/v1/types', WIDGET)).status, 201);
  const made = await other.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'busy' } });
  assert.equal((await settle(other, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const update = await other.call('PATCH', `/v1/resources/${T}/busy`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
  });
  const refused = await other.call('POST', `/v1/resources/${T}/busy/forget`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.errorCode, 'ResourceConflict');
  release();
  assert.equal((await settle(other, update.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal((await other.call('POST', `/v1/resources/${T}/busy/forget`)).status, 200);

  // Without a provider of its own the type is kept by the state provider: its record is the resource.
  const kept = await startTestService();
  t.after(() => kept.close());
  assert.equal((await kept.call('POST', '/v1/types', WIDGET)).status, 201);
  const own = await kept.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'own' } });
  assert.equal((await settle(kept, own.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const stateForget = await kept.call('POST', `/v1/resources/${T}/own/forget`);
  assert.equal(stateForget.status, 400);
  assert.match(stateForget.body.message, /state provider.*delete it instead/);
});
