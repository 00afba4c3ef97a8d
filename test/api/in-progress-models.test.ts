/**
 * A model in an IN_PROGRESS answer is checked like a final one before it is stored and served: the
 * schema's shape and the resource's primary identifier (the one asked for). A broken one fails the
 * operation with HandlerInternalFailure; a good one is what the pending event shows.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider, type Hooks } from '../helpers/providers.js';
import type { HandlerEvent } from '../../src/handler/types.js';

const T = encodeURIComponent(WIDGET_TYPE);
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.close())));

async function serviceWith(hooks: Hooks) {
  const provider = memoryProvider(hooks, 'stepping');
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  services.push(svc);
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  return svc;
}

/** A create that answers one IN_PROGRESS step carrying `model(desired)`, then stores and succeeds. */
const steppedCreate =
  (model: (desired: Record<string, unknown>) => unknown, delaySeconds = 0): Hooks['create'] =>
  (req, store) => {
    if (!req.callbackContext)
      return {
        status: 'IN_PROGRESS',
        resourceModel: model(req.desiredState),
        callbackContext: { step: 1 },
        callbackDelaySeconds: delaySeconds,
      } as HandlerEvent;
    store.set(String(req.desiredState.Name), req.desiredState);
    return { status: 'SUCCESS', resourceModel: req.desiredState };
  };

async function createOutcome(svc: TestService, desiredState: Record<string, unknown>) {
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState });
  return settle(svc, res.body.progressEvent.requestToken);
}

test('an IN_PROGRESS model without the primary identifier fails the operation', async () => {
  const svc = await serviceWith({ create: steppedCreate(() => ({ Size: 'S' })) });
  const done = await createOutcome(svc, { Name: 'p1' });
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /primary identifier.*IN_PROGRESS/);
  assert.match(done.statusMessage, /stepping/);
});

test('an IN_PROGRESS model off the schema, or of another resource, fails the operation', async () => {
  const svc = await serviceWith({ create: steppedCreate((d) => ({ ...d, Size: 'HUGE' })) });
  const shape = await createOutcome(svc, { Name: 'p2' });
  assert.equal(shape.errorCode, 'HandlerInternalFailure');
  assert.match(shape.statusMessage, /does not match the schema/);

  const other = await serviceWith({
    update: (req) =>
      ({
        status: 'IN_PROGRESS',
        resourceModel: { ...req.desiredState, Name: 'someone-else' },
        callbackContext: { step: 1 },
      }) as HandlerEvent,
  });
  assert.equal((await createOutcome(other, { Name: 'p3' })).operationStatus, 'SUCCESS');
  const res = await other.call('PATCH', `/v1/resources/${T}/p3`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
  });
  const done = await settle(other, res.body.progressEvent.requestToken);
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /someone-else/);
});

test('a valid IN_PROGRESS model is what the pending event shows, without write-only values', async () => {
  const svc = await serviceWith({ create: steppedCreate((d) => d, 2) });
  const res = await svc.call('POST', `/v1/resources/${T}`, {
    desiredState: { Name: 'p4', Secret: 'hidden-value' },
  });
  let pending: any;
  for (let i = 0; i < 100; i++) {
    pending = (await svc.call('GET', `/v1/requests/${res.body.progressEvent.requestToken}`)).body
      .progressEvent;
    if (pending.resourceModel) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(pending.operationStatus, 'IN_PROGRESS');
  assert.deepEqual(pending.resourceModel, { Name: 'p4', Size: 'S' });
  const done = await settle(svc, res.body.progressEvent.requestToken, 15_000);
  assert.equal(done.operationStatus, 'SUCCESS');
});

test('an IN_PROGRESS answer without a model is accepted by the engine (the suite asks for one)', async () => {
  const svc = await serviceWith({ create: steppedCreate(() => undefined) });
  assert.equal((await createOutcome(svc, { Name: 'p5' })).operationStatus, 'SUCCESS');
});
