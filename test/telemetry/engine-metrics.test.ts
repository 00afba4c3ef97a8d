/**
 * The engine's metrics over real HTTP, on each store: ended operations by type, operation and status,
 * handler durations and provider errors by type and error code (a provider that fails some creates),
 * resources per registered type; no identifier becomes a label value.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import { settle, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { labelValues, scrape, total } from './scrape.js';

const T = encodeURIComponent(WIDGET_TYPE);

eachStoreService(
  'operations, handler calls, provider errors and resources are counted by type',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const create = async (name: string) => {
      const answer = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: name } });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      return (await settle(svc, answer.body.progressEvent.requestToken)).operationStatus as string;
    };
    assert.equal(await create('ok-ident-1'), 'SUCCESS');
    assert.equal(await create('ok-ident-2'), 'SUCCESS');
    assert.equal(await create('fail-ident-3'), 'FAILED');
    const s = await scrape(svc);
    const type = { type_name: WIDGET_TYPE };
    assert.equal(
      total(s, 'typeplane_operations_total', { ...type, operation: 'CREATE', status: 'SUCCESS' }),
      2,
    );
    assert.equal(
      total(s, 'typeplane_operations_total', { ...type, operation: 'CREATE', status: 'FAILED' }),
      1,
    );
    assert.equal(total(s, 'typeplane_handler_duration_seconds_count', { ...type, operation: 'create' }), 3);
    assert.equal(
      total(s, 'typeplane_provider_errors_total', { ...type, error_code: 'ServiceLimitExceeded' }),
      1,
    );
    assert.equal(total(s, 'typeplane_resources', type), 2);
    // Nothing runs now: no slot in use.
    assert.equal(total(s, 'typeplane_handler_slots_in_use', type), 0);
    for (const value of labelValues(s)) assert.ok(!value.includes('ident'), `label value ${value}`);
  },
  () => ({
    providers: new Map([
      [
        WIDGET_TYPE,
        memoryProvider({
          create: (request) =>
            String(request.desiredState.Name).startsWith('fail')
              ? { status: 'FAILED', errorCode: 'ServiceLimitExceeded', message: 'no room' }
              : { status: 'SUCCESS', resourceModel: request.desiredState },
        }),
      ],
    ]),
  }),
);
