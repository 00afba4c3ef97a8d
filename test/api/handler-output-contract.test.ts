import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider, type Hooks } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.close())));

async function serviceWith(hooks: Hooks) {
  const provider = memoryProvider(hooks, 'broken');
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  services.push(svc);
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  return { svc, provider };
}

async function createOutcome(hooks: Hooks) {
  const { svc } = await serviceWith(hooks);
  const res = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'x1', Secret: 's3cr3t-value' },
  });
  return { svc, done: await settle(svc, res.body.progressEvent.requestToken) };
}

test('a model that breaks the schema shape fails with HandlerInternalFailure naming the provider', async () => {
  const { svc, done } = await createOutcome({
    create: (req) => ({ status: 'SUCCESS', resourceModel: { ...req.desiredState, Size: 'HUGE' } }),
  });
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /broken/);
  assert.equal(
    (await svc.call('GET', `/v1/resources/${T}/x1`)).status,
    404,
    'the provider kept nothing, so a read finds nothing',
  );
});

test('a model without its primary identifier fails with HandlerInternalFailure', async () => {
  const { done } = await createOutcome({
    create: () => ({ status: 'SUCCESS', resourceModel: { Color: 'red' } }),
  });
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /primary identifier/);
});

test('a model that leaves out a property the create was given (a default included) is HandlerInternalFailure', async () => {
  const { done } = await createOutcome({
    create: () => ({ status: 'SUCCESS', resourceModel: { Name: 'x1' } }),
  });
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /\/Size/);
});

test('answers that are not events, unknown error codes and thrown errors are HandlerInternalFailure', async () => {
  for (const hook of [
    () => 'garbage' as never,
    () => ({ status: 'DONE' }) as never,
    () => ({ status: 'FAILED', errorCode: 'Oops' }) as never,
    () => {
      throw new Error('boom');
    },
  ]) {
    const { done } = await createOutcome({ create: hook });
    assert.equal(done.errorCode, 'HandlerInternalFailure', JSON.stringify(done));
  }
});

test('a handler FAILED code is passed through', async () => {
  const { done } = await createOutcome({
    create: () => ({ status: 'FAILED', errorCode: 'ServiceLimitExceeded', message: 'quota' }),
  });
  assert.equal(done.errorCode, 'ServiceLimitExceeded');
  assert.equal(done.statusMessage, 'quota');
});

test('write-only properties and nulls never come back: events, reads, lists', async () => {
  const { svc, provider } = await serviceWith({
    create: (req, store) => {
      const model = { ...req.desiredState, Color: null };
      store.set(String(req.desiredState.Name), model);
      return { status: 'SUCCESS', resourceModel: model };
    },
  });
  const res = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'w1', Secret: 's3cr3t-value' },
  });
  const done = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
  assert.equal(
    provider.calls[0]?.req.desiredState.Secret,
    's3cr3t-value',
    'the provider receives the write-only value',
  );
  const read = await svc.call('GET', `/v1/resources/${T}/w1`);
  const list = await svc.call('GET', `/v1/resources/${T}`);
  const requests = await svc.call('GET', '/v1/requests');
  for (const body of [done, read.body, list.body, requests.body]) {
    const text = JSON.stringify(body);
    assert.ok(!text.includes('s3cr3t-value'), `write-only value leaked: ${text}`);
  }
  const models = [
    done.resourceModel,
    read.body.properties,
    ...list.body.resourceDescriptions.map((r: { properties: unknown }) => r.properties),
  ];
  for (const model of models)
    assert.ok(!JSON.stringify(model).includes('null'), `null returned in a model: ${JSON.stringify(model)}`);
  assert.deepEqual(read.body.properties, { Name: 'w1', Size: 'S' });
});

test('a read handler that answers IN_PROGRESS breaks the contract', async () => {
  const { svc } = await serviceWith({ read: () => ({ status: 'IN_PROGRESS', callbackContext: {} }) });
  await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'r1' } })).body.progressEvent
      .requestToken,
  );
  const read = await svc.call('GET', `/v1/resources/${T}/r1`);
  assert.equal(read.status, 502);
  assert.equal(read.body.errorCode, 'HandlerInternalFailure');
});

test('an update that changes the primary identifier fails with HandlerInternalFailure', async () => {
  const { svc } = await serviceWith({
    update: (req) => ({ status: 'SUCCESS', resourceModel: { ...req.desiredState, Name: 'other' } }),
  });
  await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'u1' } })).body.progressEvent
      .requestToken,
  );
  const up = await svc.call('PATCH', `/v1/resources/${T}/u1`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
  });
  const done = await settle(svc, up.body.progressEvent.requestToken);
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/other`)).status, 404);
});

test('a thrown HandlerError maps to its contract code', async () => {
  const { HandlerError } = await import('../../src/providers/sdk.js');
  const { done } = await createOutcome({
    create: () => {
      throw new HandlerError('Throttling', 'slow down');
    },
  });
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'Throttling');
  assert.equal(done.statusMessage, 'slow down');
});
