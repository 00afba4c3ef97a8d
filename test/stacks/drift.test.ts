import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settle, startTestService, WIDGET } from '../helpers/service.js';

test('drift: IN_SYNC, then MODIFIED after an out-of-band patch and DELETED after an out-of-band delete; write-only excluded', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const template = `
Parameters:
  Secret: { Type: String, NoEcho: true }
Resources:
  A: { Type: Test::Shop::Widget, Properties: { Name: a, Color: red, Labels: [x], Secret: !Ref Secret } }
  B: { Type: Test::Shop::Widget, Properties: { Name: b } }
`;
  const put = await s.call('PUT', '/v1/stacks/d?wait=20', { template, parameters: { Secret: 'sw0rdfish' } });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE');
  const clean = await s.call('GET', '/v1/stacks/d/drift');
  assert.equal(clean.body.status, 'IN_SYNC', JSON.stringify(clean.body));

  const patched = await s.call('PATCH', '/v1/resources/Test::Shop::Widget/a', {
    patchDocument: [
      { op: 'replace', path: '/Color', value: 'green' },
      { op: 'add', path: '/Labels/-', value: 'y' },
      { op: 'replace', path: '/Secret', value: 'changed' },
    ],
  });
  assert.equal((await settle(s, patched.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const deleted = await s.call('DELETE', '/v1/resources/Test::Shop::Widget/b');
  assert.equal((await settle(s, deleted.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');

  const drift = await s.call('GET', '/v1/stacks/d/drift');
  assert.equal(drift.body.status, 'DRIFTED');
  const byId = Object.fromEntries(drift.body.resources.map((r: any) => [r.logicalId, r]));
  assert.equal(byId.A.status, 'MODIFIED');
  assert.deepEqual(byId.A.differences, [
    { path: '/Color', expected: 'red', actual: 'green', kind: 'NOT_EQUAL' },
    { path: '/Labels', expected: ['x'], actual: ['x', 'y'], kind: 'ADD' },
  ]);
  assert.equal(byId.B.status, 'DELETED');
  assert.doesNotMatch(JSON.stringify(drift.body), /sw0rdfish|changed/);
});
