/**
 * Drift reads, and a read never writes: a resource its provider answers NotFound for is DELETED
 * drift, and neither the stack's record nor Typeplane's record of the resource changes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

test("drift reports a resource the provider answers NotFound for as DELETED, and keeps the stack's and the resource's records", async (t) => {
  const provider = memoryProvider({}, 'forgetful');
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const template = `
Resources:
  A: { Type: ${WIDGET_TYPE}, Properties: { Name: a } }
  B: { Type: ${WIDGET_TYPE}, Properties: { Name: b } }
`;
  const put = await s.call('PUT', '/v1/stacks/d?wait=20', { template });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  provider.store.delete('b'); // the provider lost it

  for (const round of [1, 2]) {
    const drift = await s.call('GET', '/v1/stacks/d/drift');
    assert.equal(drift.body.status, 'DRIFTED', `round ${round}`);
    const byId = Object.fromEntries(drift.body.resources.map((r: any) => [r.logicalId, r]));
    assert.equal(byId.A.status, 'IN_SYNC');
    assert.equal(byId.B.status, 'DELETED', `round ${round}: still known, still DELETED`);
    assert.equal(byId.B.identifier, 'b');
  }
  assert.equal(provider.calls.filter((c) => c.action === 'delete').length, 0, 'nothing was deleted');
  const requests = await s.call('GET', '/v1/requests?operation=DELETE');
  assert.deepEqual(requests.body.progressEvents, [], 'no operation was started');
  const listed = (await s.call('GET', `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`)).body
    .resourceDescriptions;
  assert.deepEqual(
    listed.map((r: any) => [r.identifier, r.observed?.status]),
    [
      ['a', undefined],
      ['b', 'NotFound'],
    ],
  );
  const resources = (await s.call('GET', '/v1/stacks/d')).body;
  assert.match(JSON.stringify(resources), /"b"/, "the stack's record still names it");

  // The provider finds it again: in sync, nothing was lost.
  provider.store.set('b', { Name: 'b' });
  assert.equal((await s.call('GET', '/v1/stacks/d/drift')).body.status, 'IN_SYNC');
});
