/**
 * Operations that finish later (a provider answering IN_PROGRESS first), watched over real HTTP on
 * each store: the resource's ADDED comes when the operation ends, at the version of its end; a request
 * watch sees the operation begin and end; a watch from before the begin replays one ADDED, at the end.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch, type WatchEvent } from '../helpers/watch-client.js';

const T = encodeURIComponent(WIDGET_TYPE);
const isChange = (e: WatchEvent) => e.type !== 'BOOKMARK';

/** Creates take two calls: IN_PROGRESS first, then SUCCESS. */
const twoStep = () =>
  memoryProvider({
    create: (req, store) => {
      if (!req.callbackContext)
        return { status: 'IN_PROGRESS', callbackContext: { step: 1 }, callbackDelaySeconds: 0 };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });

eachStoreService(
  'an operation that ends later is ADDED when it ends, and a request watch follows it from begin to end',
  async (svc) => {
    assert.equal(
      (await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' })).status,
      201,
    );
    const from = (await svc.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
    const resources = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true&resourceVersion=${from}`,
      svc.token,
    );
    const requests = await openWatch(svc.url, `/v1/requests?watch=true&resourceVersion=${from}`, svc.token);
    const begun = await svc.call('POST', `/v1/resources/${T}`, {
      desiredState: { Name: 'later', Secret: 'hush' },
    });
    assert.equal(begun.status, 202);
    const token = begun.body.progressEvent.requestToken as string;

    const ended = await requests.next(
      (e) => e.object.requestToken === token && e.object.operationStatus === 'SUCCESS',
      10_000,
    );
    const seen = requests.events.filter((e) => e.object.requestToken === token);
    const told = JSON.stringify(
      seen.map((e) => [e.type, e.object.operationStatus, e.object.resourceVersion]),
    );
    assert.equal(
      seen[0]!.type,
      'ADDED',
      `the first event of an operation the watch had not seen is ADDED: ${told}`,
    );
    assert.ok(
      seen.slice(1).every((e) => e.type === 'MODIFIED'),
      told,
    );
    const versions = seen.map((e) => Number(e.object.resourceVersion));
    assert.deepEqual(
      versions,
      [...versions].sort((a, b) => a - b),
      told,
    );

    const added = await resources.next(isChange, 10_000);
    // What came besides, should an assertion below fail.
    const resourceEvents = JSON.stringify(resources.events.map((e) => [e.type, e.object.resourceVersion]));
    assert.equal(added.type, 'ADDED');
    assert.deepEqual(added.object.properties, { Name: 'later', Size: 'S' });
    assert.equal(
      added.object.resourceVersion,
      ended.object.resourceVersion,
      `the resource changed as its operation ended: ${told} ${resourceEvents}`,
    );
    assert.equal(
      resources.events.filter(isChange).length,
      1,
      `nothing for the resource at the begin: ${resourceEvents}`,
    );

    // From before the begin, after the end: the end once.
    const replay = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true&resourceVersion=${from}`,
      svc.token,
    );
    const replayed = await replay.next(isChange);
    assert.equal(replayed.object.resourceVersion, added.object.resourceVersion);
    assert.ok(!JSON.stringify([...resources.events, ...requests.events]).includes('hush'));
    for (const w of [resources, requests, replay]) w.close();
  },
  () => ({ providers: new Map([[WIDGET_TYPE, twoStep()]]) }),
);
