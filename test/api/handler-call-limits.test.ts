/**
 * Each handler invocation has the contract's time limit (create/update/delete 60 s, read 30 s),
 * whatever the operation's timeoutInMinutes: past it, the call is HandlerInternalFailure naming the
 * provider. The limits are shortened here (an engine option) so that the test does not wait a minute.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider, type Hooks } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.close())));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serviceWith(hooks: Hooks) {
  const provider = memoryProvider(hooks, 'sluggish');
  // The type's timeouts are the default (hours here); only the per-call limits are short.
  const svc = await startTestService({
    providers: new Map([[WIDGET_TYPE, provider]]),
    callLimitsMs: { change: 600, read: 300 },
  });
  services.push(svc);
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  return svc;
}

test('a create call longer than its limit fails with HandlerInternalFailure, although the operation has time left', async () => {
  const svc = await serviceWith({
    create: async (req, store) => {
      await sleep(1500);
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'slow' } });
  const started = Date.now();
  const done = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'HandlerInternalFailure');
  assert.match(done.statusMessage, /sluggish did not answer create within 0\.6 s/);
  assert.ok(Date.now() - started < 1400, 'stopped at the call limit, not when the handler ended');
});

test('long work in short calls (IN_PROGRESS, called again) is within the limits', async () => {
  const svc = await serviceWith({
    create: async (req, store) => {
      await sleep(400);
      const step = Number(req.callbackContext?.step ?? 0);
      if (step < 3)
        return {
          status: 'IN_PROGRESS',
          resourceModel: req.desiredState,
          callbackContext: { step: step + 1 },
          callbackDelaySeconds: 0,
        };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'steps' } });
  const done = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
});

test('a read longer than its limit is HandlerInternalFailure', async () => {
  const svc = await serviceWith({
    read: async (req, store) => {
      await sleep(1000);
      return { status: 'SUCCESS', resourceModel: store.get(String(req.desiredState.Name))! };
    },
  });
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'r1' } });
  assert.equal((await settle(svc, res.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const started = Date.now();
  const read = await svc.call('GET', `/v1/resources/${T}/r1`);
  assert.equal(read.body.errorCode, 'HandlerInternalFailure');
  assert.match(read.body.message, /did not answer read within 0\.3 s/);
  assert.ok(Date.now() - started < 900);
});
