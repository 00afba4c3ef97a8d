/**
 * A wait for an operation whose step runs in this process is answered from the record its end wrote:
 * the operation is not read at all, neither as the wait begins nor as it ends (each waited create of
 * an asynchronous provider, and each step of a stack or a recipe that waits, read it twice). The
 * answer is the one a read gives. Through the engine, on SQLite.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Provider } from '../../src/handler/types.js';
import { heldProvider } from '../helpers/providers.js';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

/** A server whose widgets `provider` serves, and a count of the operation reads its store makes. */
async function counted(t: TestContext, provider: Provider) {
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const store = svc.store as unknown as { getOperation: (token: string) => Promise<unknown> };
  const getOperation = store.getOperation.bind(store);
  const reads = { n: 0 };
  store.getOperation = (token) => {
    reads.n++;
    return getOperation(token);
  };
  return { svc, reads };
}

test('a wait for an operation whose step runs here reads it not at all, and answers as a read of it does', async (t) => {
  const { provider, release } = heldProvider();
  const { svc, reads } = await counted(t, provider);
  const begun = await svc.engine.create(WIDGET_TYPE, { Name: 'held' });
  assert.equal(begun.operationStatus, 'IN_PROGRESS', JSON.stringify(begun));
  reads.n = 0;
  const waited = svc.engine.waitFor(begun.requestToken, 10_000);
  // Its handler is held: the wait sleeps until the step ends.
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(reads.n, 0, 'the wait read the operation as it began');
  release();
  const ended = await waited;
  assert.equal(reads.n, 0, 'the wait read the operation when it ended');
  assert.equal(ended.operationStatus, 'SUCCESS', JSON.stringify(ended));
  assert.deepEqual(ended, await svc.engine.waitFor(begun.requestToken, 0), 'the answer a read gives');
});
