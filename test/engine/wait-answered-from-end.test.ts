/**
 * A wait for an operation that ends in this process is answered from the record its end wrote: the
 * operation is read once, when the wait begins, and not again when it ends (each waited create of an
 * asynchronous provider, and each step of a stack or a recipe, saved a read). The answer is the one a
 * read gives. Through the engine, on SQLite.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heldProvider } from '../helpers/providers.js';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

test('a wait for an operation ending in this process reads it once, and answers as a read of it does', async (t) => {
  const { provider, release } = heldProvider();
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);

  const store = svc.store as unknown as { getOperation: (token: string) => Promise<unknown> };
  const getOperation = store.getOperation.bind(store);
  let reads = 0;
  store.getOperation = (token) => {
    reads++;
    return getOperation(token);
  };

  const begun = await svc.engine.create(WIDGET_TYPE, { Name: 'held' });
  assert.equal(begun.operationStatus, 'IN_PROGRESS', JSON.stringify(begun));
  reads = 0;
  const waited = svc.engine.waitFor(begun.requestToken, 10_000);
  // The wait has read the operation (still in progress) and sleeps until it ends.
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(reads, 1, 'the wait read the operation as it began');
  release();
  const ended = await waited;
  assert.equal(reads, 1, 'and not again when it ended');
  assert.equal(ended.operationStatus, 'SUCCESS', JSON.stringify(ended));
  assert.deepEqual(ended, await svc.engine.waitFor(begun.requestToken, 0), 'the answer a read gives');
});
