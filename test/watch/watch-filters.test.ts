/**
 * A list's filters narrow its watch, over real HTTP on each store, as Kubernetes' selectors narrow
 * one: a type's resources by top-level property (a resource entering the filter is ADDED, one
 * leaving it DELETED, others never sent), operations by operation and status; a filter the list
 * would refuse (a write-only property) and paging parameters are refused on a watch, saying why.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch, type WatchEvent } from '../helpers/watch-client.js';

const T = encodeURIComponent(WIDGET_TYPE);
const isChange = (e: WatchEvent) => e.type !== 'BOOKMARK';

eachStoreService(
  'property filters narrow a watch of resources: entering is ADDED, leaving DELETED',
  async (svc) => {
    await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
    const create = (Name: string, Color: string) =>
      svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name, Color } });
    const paint = (name: string, Color: string) =>
      svc.call('PATCH', `/v1/resources/${T}/${name}?wait=10`, {
        patchDocument: [{ op: 'replace', path: '/Color', value: Color }],
      });
    const remove = (name: string) => svc.call('DELETE', `/v1/resources/${T}/${name}?wait=10`, {});
    await create('red1', 'red');
    await create('blue1', 'blue');

    const watch = await openWatch(svc.url, `/v1/resources/${T}?watch=true&Color=red`, svc.token);
    assert.equal(watch.status, 200, JSON.stringify(watch.body));
    const first = await watch.next(isChange);
    await create('red2', 'red');
    await create('blue2', 'blue');
    await paint('blue1', 'red');
    await paint('red1', 'blue');
    await remove('red2');
    await remove('blue2');
    await create('red3', 'red');
    const seen = [first];
    for (let i = 0; i < 5; i++) seen.push(await watch.next(isChange));
    assert.deepEqual(
      seen.map((e) => `${e.type} ${e.object.identifier}`),
      ['ADDED red1', 'ADDED red2', 'ADDED blue1', 'DELETED red1', 'DELETED red2', 'ADDED red3'],
      'blue2 never; blue1 entering is ADDED, red1 leaving DELETED',
    );
    assert.equal(seen[3]!.object.properties.Color, 'blue', 'what left the filter, as it now is');
    watch.close();

    // Resumed from a version: a resource the watch did not see may have matched before, so one
    // changed out of the filter is told of as leaving it (blue1), one changed into it as modified.
    const from = seen[0]!.object.resourceVersion as string;
    const resumed = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true&Color=blue&resourceVersion=${from}`,
      svc.token,
    );
    const again = [];
    for (let i = 0; i < 4; i++) again.push(await resumed.next(isChange));
    assert.deepEqual(
      again.map((e) => `${e.type} ${e.object.identifier}`),
      ['ADDED blue2', 'DELETED blue1', 'MODIFIED red1', 'DELETED blue2'],
      'red2 and red3, made red, never',
    );
    await assert.rejects(resumed.next(isChange, 300), /no matching event/);
    resumed.close();

    for (const [query, pattern, pointer] of [
      ['Secret=x', /Secret is write-only/, '/query/Secret'],
      ['Colour=red', /Colour is not a property of the type/, '/query/Colour'],
      ['maxResults=5', /a watch has no pages: maxResults/, '/query/maxResults'],
      ['version=1', /a watch has no pages: version/, '/query/version'],
    ] as const) {
      const refused = await openWatch(svc.url, `/v1/resources/${T}?watch=true&${query}`, svc.token);
      assert.equal(refused.status, 400, query);
      assert.match(refused.body.message, pattern);
      assert.equal(refused.body.details[0].pointer, pointer);
    }
  },
);

eachStoreService('operation, status and type filters narrow a watch of operations', async (svc) => {
  await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
  const deletes = await openWatch(
    svc.url,
    '/v1/requests?watch=true&operation=DELETE&status=SUCCESS',
    svc.token,
  );
  const other = await openWatch(svc.url, '/v1/requests?watch=true&typeName=Test::Other::Thing', svc.token);
  assert.equal(deletes.status, 200, JSON.stringify(deletes.body));
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'w' } });
  const deleted = await svc.call('DELETE', `/v1/resources/${T}/w?wait=10`, {});
  const event = await deletes.next(isChange);
  assert.deepEqual(
    [event.object.operation, event.object.operationStatus, event.object.requestToken],
    ['DELETE', 'SUCCESS', deleted.body.progressEvent.requestToken],
  );
  await assert.rejects(deletes.next(isChange, 500), /no matching event/);
  await assert.rejects(other.next(isChange, 10), /no matching event/);
  deletes.close();
  other.close();
  const refused = await openWatch(svc.url, '/v1/requests?watch=true&status=DONE', svc.token);
  assert.equal(refused.status, 400);
  assert.match(refused.body.message, /status must be one of/);
});
