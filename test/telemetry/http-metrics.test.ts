/**
 * http_server_request_duration_seconds over real HTTP, on each store: labelled by method, route
 * template and status (never the URL, so no identifier nor an unregistered type name becomes a label
 * value), and for the Cloud Control API on POST / by its action from the fixed list only.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { settle, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { labelValues, promtoolMissing, promtoolProblems, samples, scrape, total } from './scrape.js';

const DURATION = 'http_server_request_duration_seconds_count';

eachStoreService('requests are counted by route template, method and status', async (svc, t) => {
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const before = await scrape(svc);
  const route = { http_route: '/v1/resources/:typeName', http_request_method: 'POST' };
  const created = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
    desiredState: { Name: 'w-secret-id-1' },
  });
  assert.equal(created.status, 202);
  assert.equal((await settle(svc, created.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const read = await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/w-secret-id-1`);
  assert.equal(read.status, 200);
  // The HEAD route fastify makes for a GET route records its own method.
  assert.equal((await svc.call('HEAD', `/v1/resources/${WIDGET_TYPE}/w-secret-id-1`)).status, 200);
  // A type nobody registered, named by the caller: 404, and no label value of its own.
  assert.equal((await svc.call('GET', '/v1/resources/Tenant::Chosen::Name/x-ident-9')).status, 404);
  assert.equal((await svc.call('GET', '/no/such/route/z-ident-7')).status, 404);
  // The Cloud Control API's requests, unsigned (refused), by their action; a made-up one as ''.
  for (const target of ['CloudApiService.ListResources', 'CloudApiService.Tenant_Chosen_Action']) {
    const answer = await svc.call('POST', '/', '{}', {
      'x-amz-target': target,
      'content-type': 'application/x-amz-json-1.0',
    });
    assert.ok(answer.status >= 400);
  }

  const after = await scrape(svc);
  assert.equal(
    total(after, DURATION, { ...route, http_response_status_code: '202' }) -
      total(before, DURATION, { ...route, http_response_status_code: '202' }),
    1,
  );
  assert.equal(
    total(after, DURATION, {
      http_route: '/v1/resources/:typeName/:identifier',
      http_request_method: 'GET',
      http_response_status_code: '200',
    }),
    1,
  );
  assert.equal(
    total(after, DURATION, {
      http_route: '/v1/resources/:typeName/:identifier',
      http_request_method: 'GET',
      http_response_status_code: '404',
    }),
    1,
  );
  assert.equal(
    total(after, DURATION, {
      http_route: '/v1/resources/:typeName/:identifier',
      http_request_method: 'HEAD',
      http_response_status_code: '200',
    }),
    1,
  );
  assert.equal(total(after, DURATION, { http_route: '', http_response_status_code: '404' }), 1);
  assert.equal(total(after, DURATION, { http_route: '/', rpc_method: 'ListResources' }), 1);
  assert.equal(total(after, DURATION, { http_route: '/', rpc_method: '' }), 1);
  // The scrape before this one was counted as it ended.
  assert.ok(total(after, DURATION, { http_route: '/metrics', http_response_status_code: '200' }) >= 1);
  const [sum] = samples(after, 'http_server_request_duration_seconds_sum', {
    ...route,
    http_response_status_code: '202',
  });
  assert.ok(Number(sum!.value) > 0);

  // The state provider's create ends as it begins (no handler call): counted all the same.
  const ended = { type_name: WIDGET_TYPE, operation: 'CREATE', status: 'SUCCESS' };
  assert.equal(total(after, 'typeplane_operations_total', ended), 1);
  const values = labelValues(after);
  for (const chosen of [
    'w-secret-id-1',
    'x-ident-9',
    'z-ident-7',
    'Tenant::Chosen::Name',
    'Tenant_Chosen_Action',
  ])
    for (const value of values) assert.ok(!value.includes(chosen), `label value ${value} holds ${chosen}`);
  assert.ok(!after.text.includes(svc.token));

  if (promtoolMissing) t.diagnostic(`promtool check skipped: ${promtoolMissing}`);
  else assert.equal(promtoolProblems(after.text), '');
});
