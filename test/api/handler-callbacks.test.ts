import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);
const services: TestService[] = [];
after(() => Promise.all(services.map((s) => s.close())));

async function serviceWith(provider: ReturnType<typeof memoryProvider>, minuteMs?: number) {
  const svc = await startTestService({
    providers: new Map([[WIDGET_TYPE, provider]]),
    ...(minuteMs ? { minuteMs } : {}),
  });
  services.push(svc);
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  return svc;
}

test('IN_PROGRESS answers are re-invoked with their callback context until SUCCESS', async () => {
  const provider = memoryProvider({
    create: (req, store) => {
      const step = Number(req.callbackContext?.step ?? 0);
      if (step < 3)
        return {
          status: 'IN_PROGRESS',
          callbackContext: { step: step + 1 },
          callbackDelaySeconds: 0,
          message: `step ${step}`,
        };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const svc = await serviceWith(provider);
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'slow' } });
  const done = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS');
  const creates = provider.calls.filter((c) => c.action === 'create');
  assert.deepEqual(
    creates.map((c) => c.req.callbackContext?.step ?? 0),
    [0, 1, 2, 3],
  );
  assert.ok(
    creates.every((c) => c.req.clientRequestToken === res.body.progressEvent.requestToken),
    'the request token is stable across invocations',
  );
});

test('callbackDelaySeconds is honoured and reported as retryAfter while waiting', async () => {
  const provider = memoryProvider({
    create: (req, store) => {
      if (!req.callbackContext)
        return { status: 'IN_PROGRESS', callbackContext: { waited: true }, callbackDelaySeconds: 1 };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const svc = await serviceWith(provider);
  const started = Date.now();
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'delayed' } });
  let sawRetryAfter = false;
  for (let i = 0; i < 40; i++) {
    const e = (await svc.call('GET', `/v1/requests/${res.body.progressEvent.requestToken}`)).body
      .progressEvent;
    if (e.operationStatus === 'IN_PROGRESS' && e.retryAfter) sawRetryAfter = true;
    if (e.operationStatus === 'SUCCESS') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const done = await settle(svc, res.body.progressEvent.requestToken);
  assert.equal(done.operationStatus, 'SUCCESS');
  assert.ok(sawRetryAfter, 'retryAfter reported while waiting');
  assert.ok(Date.now() - started >= 1000, 'second invocation waited the delay');
});

test('an operation still IN_PROGRESS when its timeout passes fails with NotStabilized', async () => {
  const provider = memoryProvider({
    create: () => ({ status: 'IN_PROGRESS', callbackContext: {}, callbackDelaySeconds: 0 }),
  });
  // timeoutInMinutes defaults to 120; a "minute" of 5 ms makes that 600 ms here.
  const svc = await serviceWith(provider, 5);
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'never' } });
  const done = await settle(svc, res.body.progressEvent.requestToken, 10_000);
  assert.equal(done.operationStatus, 'FAILED');
  assert.equal(done.errorCode, 'NotStabilized');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/never`)).status, 404);
});

test('a handler that hangs is stopped at the timeout with NotStabilized', async () => {
  const provider = memoryProvider({ create: () => new Promise(() => undefined) });
  const svc = await serviceWith(provider, 5);
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'hung' } });
  const done = await settle(svc, res.body.progressEvent.requestToken, 10_000);
  assert.equal(done.errorCode, 'NotStabilized');
});

test('cancelling an in-progress operation completes the cancellation', async () => {
  const provider = memoryProvider({
    create: () => ({ status: 'IN_PROGRESS', callbackContext: {}, callbackDelaySeconds: 2 }),
  });
  const svc = await serviceWith(provider);
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'cancelme' } });
  const token = res.body.progressEvent.requestToken;
  for (let i = 0; i < 40 && provider.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  const cancel = await svc.call('POST', `/v1/requests/${token}/cancel`);
  assert.equal(cancel.status, 200);
  assert.ok(['CANCEL_IN_PROGRESS', 'CANCEL_COMPLETE'].includes(cancel.body.progressEvent.operationStatus));
  const done = await settle(svc, token);
  assert.equal(done.operationStatus, 'CANCEL_COMPLETE');
  const again = await svc.call('POST', `/v1/requests/${token}/cancel`);
  assert.equal(again.status, 409);
  assert.equal((await svc.call('POST', '/v1/requests/nope/cancel')).status, 404);
});

test('cancelling while a handler runs aborts it and completes the cancellation', async () => {
  const provider = memoryProvider({
    create: (req) =>
      new Promise((_, reject) =>
        req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      ),
  });
  const svc = await serviceWith(provider);
  const res = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'midflight' } });
  const token = res.body.progressEvent.requestToken;
  for (let i = 0; i < 80 && provider.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(provider.calls.length, 1, 'the handler is running');
  assert.equal((await svc.call('POST', `/v1/requests/${token}/cancel`)).status, 200);
  const done = await settle(svc, token);
  assert.equal(done.operationStatus, 'CANCEL_COMPLETE', JSON.stringify(done));
});

test('a progress message from an IN_PROGRESS step does not outlive it', async () => {
  const provider = memoryProvider({
    create: (req, store) => {
      if (!req.callbackContext)
        return { status: 'IN_PROGRESS', callbackContext: { n: 1 }, message: 'reserving' };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const svc = await serviceWith(provider);
  const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'msg' } });
  assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal(res.body.progressEvent.statusMessage, undefined);
});
