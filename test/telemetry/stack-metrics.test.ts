/**
 * The stacks' metrics over real HTTP, on each store: ended deployments counted and timed by the
 * stack's final status (a deletion's too), drift checks and the resources they compared by result;
 * no stack name or identifier becomes a label value.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { eachStoreService } from '../helpers/each-store.js';
import { settle, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { labelValues, scrape, total } from './scrape.js';

const TEMPLATE = `
Resources:
  A: { Type: ${WIDGET_TYPE}, Properties: { Name: a-ident, Color: red } }
  B: { Type: ${WIDGET_TYPE}, Properties: { Name: b-ident } }
`;

eachStoreService('deployments, their durations and drift results are counted by status', async (svc) => {
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const put = await svc.call('PUT', '/v1/stacks/shop-stack-name?wait=20', { template: TEMPLATE });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  assert.equal((await svc.call('GET', '/v1/stacks/shop-stack-name/drift')).body.status, 'IN_SYNC');
  const deleted = await svc.call('DELETE', `/v1/resources/${WIDGET_TYPE}/b-ident`);
  assert.equal((await settle(svc, deleted.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  assert.equal((await svc.call('GET', '/v1/stacks/shop-stack-name/drift')).body.status, 'DRIFTED');
  const gone = await svc.call('DELETE', '/v1/stacks/shop-stack-name?wait=20');
  assert.ok(gone.status < 300, JSON.stringify(gone.body));

  // A deletion is counted once its last record is gone, just after the stack reads DELETE_COMPLETE.
  let s = await scrape(svc);
  for (let i = 0; i < 100 && total(s, 'typeplane_stack_deployments_total') < 2; i++) {
    await sleep(50);
    s = await scrape(svc);
  }
  assert.equal(total(s, 'typeplane_stack_deployments_total', { status: 'CREATE_COMPLETE' }), 1);
  assert.equal(total(s, 'typeplane_stack_deployments_total', { status: 'DELETE_COMPLETE' }), 1);
  assert.equal(total(s, 'typeplane_stack_deployments_total'), 2);
  assert.equal(
    total(s, 'typeplane_stack_deployment_duration_seconds_count', { status: 'CREATE_COMPLETE' }),
    1,
  );
  assert.ok(total(s, 'typeplane_stack_deployment_duration_seconds_sum', { status: 'CREATE_COMPLETE' }) > 0);
  assert.equal(total(s, 'typeplane_stack_drift_checks_total', { status: 'IN_SYNC' }), 1);
  assert.equal(total(s, 'typeplane_stack_drift_checks_total', { status: 'DRIFTED' }), 1);
  assert.equal(total(s, 'typeplane_stack_drift_resources_total', { status: 'IN_SYNC' }), 3);
  assert.equal(total(s, 'typeplane_stack_drift_resources_total', { status: 'DELETED' }), 1);
  for (const value of labelValues(s))
    assert.ok(!/a-ident|b-ident|shop-stack/.test(value), `label value ${value}`);
});
