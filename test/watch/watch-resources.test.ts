/**
 * Watching a type's resources over real HTTP, on each store: a list's resourceVersion to watch
 * from, ADDED / MODIFIED / DELETED as they commit (never a write-only value), NDJSON and Server-Sent
 * Events (Last-Event-ID resumes), a replay from an older version, 410 for one the change log no
 * longer reaches, BOOKMARKs, and a watch from now that starts with the resources as they stand.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch, type WatchEvent } from '../helpers/watch-client.js';

const T = encodeURIComponent(WIDGET_TYPE);
const isChange = (e: WatchEvent) => e.type !== 'BOOKMARK';

eachStoreService(
  'a watch from a list resourceVersion gets each change as it commits, in order, without write-only values',
  async (svc) => {
    assert.equal(
      (await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' })).status,
      201,
    );
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'before', Secret: 's0' } });
    const list = await svc.call('GET', `/v1/resources/${T}`);
    assert.equal(list.status, 200);
    assert.match(list.body.resourceVersion, /^[0-9]+$/);
    assert.deepEqual(
      list.body.resourceDescriptions.map((d: { identifier: string }) => d.identifier),
      ['before'],
    );
    const watch = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true&resourceVersion=${list.body.resourceVersion}`,
      svc.token,
    );
    assert.equal(watch.status, 200);
    assert.equal(watch.headers['content-type'], 'application/x-ndjson');
    await svc.call('POST', `/v1/resources/${T}?wait=10`, {
      desiredState: { Name: 'a', Color: 'red', Secret: 'hush' },
    });
    await svc.call('PATCH', `/v1/resources/${T}/a?wait=10`, {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'blue' }],
    });
    await svc.call('DELETE', `/v1/resources/${T}/a?wait=10`, {});
    const added = await watch.next(isChange);
    const modified = await watch.next(isChange);
    const deleted = await watch.next(isChange);
    assert.equal(added.type, 'ADDED');
    assert.deepEqual(added.object.properties, { Name: 'a', Size: 'S', Color: 'red' });
    assert.equal(modified.type, 'MODIFIED');
    assert.equal(modified.object.properties.Color, 'blue');
    assert.equal(deleted.type, 'DELETED');
    assert.equal(deleted.object.identifier, 'a');
    const versions = [added, modified, deleted].map((e) => Number(e.object.resourceVersion));
    assert.ok(versions[0]! > Number(list.body.resourceVersion), `${versions[0]} after the list's`);
    assert.ok(
      versions[0]! < versions[1]! && versions[1]! < versions[2]!,
      `increasing: ${versions.join(', ')}`,
    );
    assert.ok(!JSON.stringify(watch.events).includes('hush'), 'no write-only value in any event');
    watch.close();
  },
);

eachStoreService('a watch from an older version replays what changed since, and only that', async (svc) => {
  await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'one' } });
  const between = (await svc.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'two' } });
  await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'three' } });
  const watch = await openWatch(svc.url, `/v1/resources/${T}?watch=1&resourceVersion=${between}`, svc.token);
  const first = await watch.next(isChange);
  const second = await watch.next(isChange);
  assert.deepEqual([first.object.identifier, second.object.identifier], ['two', 'three']);
  assert.deepEqual([first.type, second.type], ['ADDED', 'ADDED']);
  watch.close();
});

eachStoreService(
  'Server-Sent Events carry the resourceVersion as the event id, and Last-Event-ID resumes after it',
  async (svc) => {
    await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
    // A version past 0: resourceVersion=0 is "any version" (the resources as they stand).
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'x0' } });
    const from = (await svc.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'x1' } });
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'x2' } });
    const sse = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true&resourceVersion=${from}`,
      svc.token,
      'text/event-stream',
    );
    assert.equal(sse.headers['content-type'], 'text/event-stream');
    const x1 = await sse.next(isChange);
    assert.equal(x1.id, x1.object.resourceVersion);
    sse.close();
    const resumed = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true`,
      svc.token,
      'text/event-stream',
      {
        'last-event-id': x1.id!,
      },
    );
    const next = await resumed.next(isChange);
    assert.equal(next.object.identifier, 'x2');
    resumed.close();
  },
);

eachStoreService(
  'a version older than the change log keeps answers 410 Gone, and a BOOKMARK keeps an idle watch alive',
  async (svc) => {
    await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
    // A version past 0 (resourceVersion=0 is "any version", never 410).
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'first' } });
    const old = (await svc.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
    await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'gone' } });
    // Every ended operation expires, as the retention would make them.
    assert.ok((await svc.store.expireTokens(new Date(Date.now() + 60_000))) > 0);
    const expired = await openWatch(
      svc.url,
      `/v1/resources/${T}?watch=true&resourceVersion=${old}`,
      svc.token,
    );
    assert.equal(expired.status, 410);
    assert.match(expired.body.message, /list again/);
    const now = (await svc.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
    const idle = await openWatch(svc.url, `/v1/resources/${T}?watch=true&resourceVersion=${now}`, svc.token);
    assert.equal(idle.status, 200);
    const bookmark = await idle.next((e) => e.type === 'BOOKMARK', 3000);
    assert.equal(bookmark.object.resourceVersion, now);
    idle.close();
  },
  () => ({ watch: { bookmarkMs: 200 } }),
);

eachStoreService(
  'a watch without a resourceVersion starts with every resource as it stands, ADDED, then the changes',
  async (svc) => {
    await svc.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' });
    for (const Name of ['s1', 's2', 's3'])
      await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name, Secret: 'hush' } });
    const watch = await openWatch(svc.url, `/v1/resources/${T}?watch=true`, svc.token);
    const current = [await watch.next(isChange), await watch.next(isChange), await watch.next(isChange)];
    assert.deepEqual(
      current.map((e) => [e.type, e.object.identifier]),
      [
        ['ADDED', 's1'],
        ['ADDED', 's2'],
        ['ADDED', 's3'],
      ],
    );
    assert.deepEqual(current[0]!.object.properties, { Name: 's1', Size: 'S' });
    await svc.call('DELETE', `/v1/resources/${T}/s2?wait=10`, {});
    const deleted = await watch.next(isChange);
    assert.deepEqual([deleted.type, deleted.object.identifier], ['DELETED', 's2']);
    assert.ok(Number(deleted.object.resourceVersion) > Number(current[0]!.object.resourceVersion));
    assert.ok(!JSON.stringify(watch.events).includes('hush'));
    watch.close();
  },
);
