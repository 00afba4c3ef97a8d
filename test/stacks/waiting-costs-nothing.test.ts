import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { heldProvider } from '../helpers/providers.js';
import { generateToken } from '../../src/auth/index.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WAITERS = 32;
const TEMPLATE = 'Resources:\n  A: { Type: Test::Shop::Widget, Properties: { Name: a } }\n';

test('requests waiting on a slow deployment read the stack record only when it changes', async (t) => {
  const { provider, release } = heldProvider();
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);

  // Every read of a stack record (the record holds the sealed template) is counted.
  let reads = 0;
  const kvGet = s.store.kvGet.bind(s.store);
  s.store.kvGet = (namespace, key) => {
    if (namespace === 'typeplane:stacks') reads++;
    return kvGet(namespace, key);
  };

  const body = { template: TEMPLATE, clientToken: 'slow-1' };
  const started = await s.call('PUT', '/v1/stacks/slow', body);
  assert.equal(started.status, 202);
  // The same request again (its client token) waits on the same deployment.
  const before = reads;
  const waiting = Array.from({ length: WAITERS }, () => s.call('PUT', '/v1/stacks/slow?wait=30', body));
  await sleep(1_500);
  const whileWaiting = reads - before;
  release();
  const answers = await Promise.all(waiting);
  for (const answer of answers) {
    assert.equal(answer.status, 202);
    assert.equal(answer.body.deploymentId, started.body.deploymentId);
    assert.equal(answer.body.stack.status, 'CREATE_COMPLETE');
  }
  // Each waiter reads the record when it begins; 1.5 s of polling every 25 ms was ~60 reads each.
  assert.ok(whileWaiting <= 3 * WAITERS, `${whileWaiting} stack reads while ${WAITERS} requests waited`);
  const total = reads - before;
  assert.ok(total <= 5 * WAITERS, `${total} stack reads for ${WAITERS} waits`);
});

test(
  'a wait on a replica that does not run the deployment ends when another replica finishes it',
  { skip: pgSkip },
  async (t) => {
    const { provider, release } = heldProvider();
    // The replicas share the database and the secret key (the key file of one data folder).
    const dataDir = tempDir();
    const database = { url: PG_URL, schema: freshSchema(t) };
    const providers = new Map([[WIDGET_TYPE, provider]]);
    // One caller (a client token is its caller's) asks both.
    const adminToken = generateToken();
    const a = await startTestService({ dataDir, database, providers, adminToken });
    t.after(() => a.close());
    const b = await startTestService({ dataDir, database, providers, adminToken });
    t.after(() => b.close());
    assert.equal((await a.call('POST', '/v1/types', WIDGET)).status, 201);

    const body = { template: TEMPLATE, clientToken: 'slow-2' };
    const started = await a.call('PUT', '/v1/stacks/elsewhere', body);
    assert.equal(started.status, 202);
    const waiting = b.call('PUT', '/v1/stacks/elsewhere?wait=30', body);
    await sleep(300);
    release();
    const t0 = performance.now();
    const answer = await waiting;
    assert.equal(answer.body.deploymentId, started.body.deploymentId);
    assert.equal(answer.body.stack.status, 'CREATE_COMPLETE');
    // Seen by the stamp read every half second, not at the end of the wait.
    assert.ok(performance.now() - t0 < 5_000, 'the wait ended soon after the deployment');
  },
);

test('a stack named error deploys and deletes under a wait like any other', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const put = await s.call('PUT', '/v1/stacks/error?wait=10', { template: TEMPLATE });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE');
  const deleted = await s.call('DELETE', '/v1/stacks/error?wait=10');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE');
  assert.equal((await s.call('GET', '/v1/stacks/error')).status, 404);
  assert.equal((await s.call('GET', `/v1/resources/${WIDGET_TYPE}`)).body.resourceDescriptions.length, 0);
});
