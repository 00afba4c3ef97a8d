/**
 * One type's operations take at most their share of the server's handler slots: a type whose
 * handlers hang, or whose writer floods it, cannot hold up every other type's operations. Its own
 * beyond the share wait in the store and run as slots free, none lost.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { WIDGET, WIDGET_TYPE, settle, startTestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const GADGET_TYPE = 'Test::Shop::Gadget';
const GADGET = WIDGET.replace(WIDGET_TYPE, GADGET_TYPE);

test("a type whose handlers hang takes its share of the slots and no more: another type's create runs at once, and the hung type's queued ones all finish later", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let running = 0;
  let most = 0;
  const hanging = memoryProvider({
    create: async (req, store) => {
      running++;
      most = Math.max(most, running);
      await gate;
      running--;
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const svc = await startTestService({
    providers: new Map([[WIDGET_TYPE, hanging]]),
    operationConcurrency: { total: 6, perType: 2 },
    // No polling to fall back on: queued operations start as slots free.
    pollIntervalMs: 60_000,
  });
  after(() => {
    release();
    return svc.close();
  });
  for (const doc of [WIDGET, GADGET]) assert.equal((await svc.call('POST', '/v1/types', doc)).status, 201);

  const widgets = encodeURIComponent(WIDGET_TYPE);
  const flood = [];
  for (let i = 0; i < 12; i++) {
    const res = await svc.call('POST', `/v1/resources/${widgets}`, { desiredState: { Name: `w${i}` } });
    assert.equal(res.status, 202);
    flood.push(res.body.progressEvent.requestToken as string);
  }
  // Let the worker claim what it would claim.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(most, 2, 'two of the hung type run at once, the share');

  const started = Date.now();
  const gadget = await svc.call('POST', `/v1/resources/${encodeURIComponent(GADGET_TYPE)}`, {
    desiredState: { Name: 'g1' },
  });
  const done = await settle(svc, gadget.body.progressEvent.requestToken, 5_000);
  assert.equal(done.operationStatus, 'SUCCESS');
  assert.ok(Date.now() - started < 3_000, `another type's create took ${Date.now() - started} ms`);

  release();
  const releasedAt = Date.now();
  for (const token of flood) assert.equal((await settle(svc, token, 10_000)).operationStatus, 'SUCCESS');
  assert.ok(Date.now() - releasedAt < 5_000, 'queued ones started as slots freed, not at the next poll');
  assert.equal(most, 2, 'never more than the share, queued ones included');
  assert.equal(hanging.store.size, 12);
});
