/**
 * A stack's events as a watch (`GET /v1/stacks/{name}/events?watch=true`), over real HTTP on each
 * store: each event once, ADDED, in the order the list gives them, its id its resourceVersion; a
 * watch resumed from an event id sends only what came after it; paging parameters, a malformed
 * version and a missing stack are refused before the stream begins. And `typeplane stack events
 * --follow -o json` (a child process) following a deployment: one event a line, in order, ending at
 * the stack's final status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eachStoreService } from '../helpers/each-store.js';
import { heldProvider } from '../helpers/providers.js';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch, type WatchEvent } from '../helpers/watch-client.js';
import { runCli } from '../helpers/cli.js';

const TEMPLATE = JSON.stringify({
  Resources: {
    ONE: { Type: WIDGET_TYPE, Properties: { Name: 'one' } },
    TWO: { Type: WIDGET_TYPE, DependsOn: 'ONE', Properties: { Name: 'two' } },
  },
});
const isEvent = (e: WatchEvent) => e.type !== 'BOOKMARK';
const summary = (e: { logicalId: string; status: string }) => `${e.logicalId} ${e.status}`;
/** The events of the stack's creation, in the order they are written. */
const CREATED = [
  'shop CREATE_IN_PROGRESS',
  'ONE CREATE_IN_PROGRESS',
  'ONE CREATE_COMPLETE',
  'TWO CREATE_IN_PROGRESS',
  'TWO CREATE_COMPLETE',
  'shop CREATE_COMPLETE',
];

let held: ReturnType<typeof heldProvider>;

eachStoreService(
  "a stack's events stream as the deployment writes them, in the list's order, resumable by event id",
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const deployed = await svc.call('PUT', '/v1/stacks/shop', { template: TEMPLATE });
    assert.equal(deployed.status, 202, JSON.stringify(deployed.body));

    const watch = await openWatch(
      svc.url,
      '/v1/stacks/shop/events?watch=true',
      svc.token,
      'text/event-stream',
    );
    assert.equal(watch.status, 200, JSON.stringify(watch.body));
    assert.equal(watch.headers['content-type'], 'text/event-stream');
    // The provider holds ONE's create: the watch is live before the deployment goes on.
    await watch.next(
      (e) => isEvent(e) && e.object.logicalId === 'ONE' && e.object.status === 'CREATE_IN_PROGRESS',
    );
    held.release();
    await watch.next(
      (e) => isEvent(e) && e.object.type === 'Typeplane::Stack' && e.object.status === 'CREATE_COMPLETE',
      10_000,
    );

    const listed = (await svc.call('GET', '/v1/stacks/shop/events')).body.events as {
      eventId: string;
      logicalId: string;
      status: string;
    }[];
    const streamed = watch.events.filter(isEvent);
    assert.ok(streamed.every((e) => e.type === 'ADDED'));
    assert.deepEqual(
      streamed.map((e) => e.object.eventId),
      listed.map((e) => e.eventId),
      'each event once, in order',
    );
    assert.deepEqual(listed.map(summary), CREATED);
    assert.ok(
      streamed.every((e) => e.id === e.object.eventId && e.object.resourceVersion === e.object.eventId),
    );
    watch.close();

    // Resumed after the third event: the three after it, then nothing more.
    const resumed = await openWatch(
      svc.url,
      `/v1/stacks/shop/events?watch=true&resourceVersion=${listed[2]!.eventId}`,
      svc.token,
    );
    const rest = [await resumed.next(isEvent), await resumed.next(isEvent), await resumed.next(isEvent)];
    assert.deepEqual(
      rest.map((e) => e.object.eventId),
      listed.slice(3).map((e) => e.eventId),
    );
    await assert.rejects(resumed.next(isEvent, 700), /no matching event/);
    resumed.close();

    // Refused before the stream: paging, a version that is no event id, a missing stack.
    const paged = await openWatch(svc.url, '/v1/stacks/shop/events?watch=true&maxResults=5', svc.token);
    assert.equal(paged.status, 400);
    assert.match(paged.body.message, /a watch has no pages: maxResults/);
    const malformed = await openWatch(
      svc.url,
      '/v1/stacks/shop/events?watch=true&resourceVersion=abc',
      svc.token,
    );
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.details[0].pointer, '/query/resourceVersion');
    const missing = await openWatch(svc.url, '/v1/stacks/nothing/events?watch=true', svc.token);
    assert.equal(missing.status, 404);
    // Scoped as the list: a token reaching none of the stack's types is answered as for no stack.
    const other = await svc.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Other::*'] });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    const outOfReach = await openWatch(svc.url, '/v1/stacks/shop/events?watch=true', other.body.token);
    assert.equal(outOfReach.status, 404);
    assert.equal(outOfReach.body.message, missing.body.message.replace('nothing', 'shop'), 'as for no stack');
  },
  () => {
    held = heldProvider();
    return { providers: new Map([[WIDGET_TYPE, held.provider]]) };
  },
);

test('stack events --follow -o json prints each event a line as it is written, and ends at the final status', async (t) => {
  const { provider, release } = heldProvider();
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => svc.close());
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  assert.equal((await svc.call('PUT', '/v1/stacks/shop', { template: TEMPLATE })).status, 202);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: svc.token };
  delete env.TYPEPLANE_ENDPOINT;
  let printed = '';
  const run = runCli(['stack', 'events', 'shop', '--follow', '-o', 'json', '--endpoint', svc.url], {
    env,
    timeoutMs: 30_000,
    onStart: (child) =>
      child.stdout!.on('data', (d: Buffer) => {
        printed += d.toString();
        // Following, with ONE held: only then may the deployment go on.
        if (printed.includes('"logicalId":"ONE"')) release();
      }),
  });
  const ran = await run;
  assert.equal(ran.code, 0, ran.stderr);
  const lines = ran.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { eventId: string; logicalId: string; status: string });
  assert.deepEqual(lines.map(summary), CREATED);
  const listed = (await svc.call('GET', '/v1/stacks/shop/events')).body.events as { eventId: string }[];
  assert.deepEqual(
    lines.map((e) => e.eventId),
    listed.map((e) => e.eventId),
  );
});
