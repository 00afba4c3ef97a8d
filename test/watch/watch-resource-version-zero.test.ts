/**
 * `resourceVersion=0` on a watch means what Kubernetes means by it, "any version": the watch starts
 * as one without a version does (the resources as they stand, each ADDED; operations from now), and
 * does not replay the change log from its beginning. On each store, over real HTTP.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch, type WatchEvent } from '../helpers/watch-client.js';

const T = encodeURIComponent(WIDGET_TYPE);
const isChange = (e: WatchEvent) => e.type !== 'BOOKMARK';

eachStoreService(
  'resourceVersion=0 starts with the resources as they stand, not with a replay of the log',
  async (svc) => {
    await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
    for (const Name of ['kept', 'gone'])
      await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name } });
    await svc.call('PATCH', `/v1/resources/${T}/kept?wait=10`, {
      patchDocument: [{ op: 'add', path: '/Color', value: 'blue' }],
    });
    await svc.call('DELETE', `/v1/resources/${T}/gone?wait=10`, {});

    const watch = await openWatch(svc.url, `/v1/resources/${T}?watch=true&resourceVersion=0`, svc.token);
    assert.equal(watch.status, 200, JSON.stringify(watch.body));
    const first = await watch.next(isChange);
    // A replay from version 0 would begin with 'kept' ADDED as first created (no Color), then 'gone'.
    assert.deepEqual([first.type, first.object.identifier], ['ADDED', 'kept']);
    assert.equal(first.object.properties.Color, 'blue', 'the resource as it stands');
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'later' } });
    const next = await watch.next(isChange);
    assert.deepEqual([next.type, next.object.identifier], ['ADDED', 'later'], 'nothing of the past');
    assert.ok(Number(next.object.resourceVersion) > Number(first.object.resourceVersion));
    watch.close();

    // Operations: from now, as without a version — none of the four operations above is replayed.
    const requests = await openWatch(svc.url, '/v1/requests?watch=true&resourceVersion=0', svc.token);
    assert.equal(requests.status, 200);
    const made = await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'now' } });
    const seen = await requests.next(isChange);
    assert.equal(seen.object.requestToken, made.body.progressEvent.requestToken);
    requests.close();
  },
);
