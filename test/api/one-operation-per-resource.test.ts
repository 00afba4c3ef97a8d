import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const T = encodeURIComponent(WIDGET_TYPE);
let svc: TestService | undefined;
after(() => svc?.close());

test('a second mutating call while one is in progress is ResourceConflict; after it ends, the next one runs', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const provider = memoryProvider({
    update: async (req, store) => {
      await gate;
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  await settle(
    svc,
    (await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'busy' } })).body.progressEvent
      .requestToken,
  );

  const first = await svc.call('PATCH', `/v1/resources/${T}/busy`, {
    patchDocument: [{ op: 'add', path: '/Count', value: 1 }],
  });
  assert.equal(first.status, 202);
  const second = await svc.call('PATCH', `/v1/resources/${T}/busy`, {
    patchDocument: [{ op: 'add', path: '/Count', value: 2 }],
  });
  assert.equal(second.status, 409);
  assert.equal(second.body.errorCode, 'ResourceConflict');
  assert.equal(second.body.details[0].requestToken, first.body.progressEvent.requestToken);
  const del = await svc.call('DELETE', `/v1/resources/${T}/busy`);
  assert.equal(del.status, 409);

  release();
  assert.equal((await settle(svc, first.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const third = await svc.call('PATCH', `/v1/resources/${T}/busy?wait=5`, {
    patchDocument: [{ op: 'replace', path: '/Count', value: 3 }],
  });
  assert.equal(third.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal((await svc.call('GET', `/v1/resources/${T}/busy`)).body.properties.Count, 3);
});
