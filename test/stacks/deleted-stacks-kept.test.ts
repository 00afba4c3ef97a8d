/**
 * A deleted stack is kept, with its events, for the server's retention: `stack delete` shows every
 * event of the deletion (its final DELETE_COMPLETE too), `stack events <name>` reads them afterwards
 * (as `stack delete --no-wait` tells the user to), `stack list --deleted` lists it with its stackId,
 * a new stack of the name is a new stack, and a deleted stack obeys a token's scope as a live one
 * does. Over real HTTP and through the CLI as a child process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, startTestService, WIDGET } from '../helpers/service.js';
import { runCli } from '../helpers/cli.js';
import { eachStoreService } from '../helpers/each-store.js';
import { exits, typeplaneCli } from './helpers.js';

const TEMPLATE = (name: string) =>
  `Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: ${name} } }\n`;

interface Listed {
  stacks: { stackName: string; stackId?: string; status: string; deletedAt?: string }[];
  nextToken: string | null;
}
interface Events {
  events: { logicalId: string; status: string; identifier?: string }[];
}

test('a deleted stack keeps its events and stackId, is listed with --deleted, and a new stack of its name is another', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const cli = (...args: string[]) => typeplaneCli(s.url, s.token, ['stack', ...args]);
  const deploy = async (name: string, widget: string) => {
    const r = await s.call('PUT', `/v1/stacks/${name}?wait=20`, { template: TEMPLATE(widget) });
    assert.equal(r.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(r.body));
    return r.body.stack.stackId as string;
  };
  const [firstId, otherId] = await Promise.all([deploy('orders', 'first'), deploy('queue', 'q')]);

  // A waiting delete shows every event of the deletion as it happens, the stack's last one included;
  // what --no-wait tells the user to run works once the stack is gone.
  const [deleted, noWait] = await Promise.all([cli('delete', 'orders'), cli('delete', 'queue', '--no-wait')]);
  exits(deleted, 0);
  assert.match(deleted.stderr, /W \(.+\) {2}Test::Shop::Widget {2}DELETE_COMPLETE/);
  assert.match(deleted.stderr, /orders {2}Typeplane::Stack {2}DELETE_COMPLETE\n/);
  assert.match(deleted.stdout, /stack orders: DELETE_COMPLETE/);

  exits(noWait, 0);
  assert.match(noWait.stdout, /follow it with: typeplane stack events queue --follow/);
  const [followed, events] = await Promise.all([
    cli('events', 'queue', '--follow'),
    cli('events', 'orders', '-o', 'json'),
  ]);
  exits(followed, 0);
  assert.match(followed.stdout, /queue {2}Typeplane::Stack {2}DELETE_COMPLETE/);
  exits(events, 0);
  const kept = (JSON.parse(events.stdout) as Events).events.map((e) => `${e.logicalId} ${e.status}`);
  assert.deepEqual(kept.at(0), 'orders CREATE_IN_PROGRESS');
  assert.ok(kept.includes('orders CREATE_COMPLETE') && kept.includes('W DELETE_COMPLETE'), kept.join('\n'));
  assert.deepEqual(kept.at(-1), 'orders DELETE_COMPLETE');

  // A new stack of the name is another stack: its own id and events; the deleted one stays listed.
  const secondId = await deploy('orders', 'second');
  assert.notEqual(secondId, firstId);
  const live = (await s.call('GET', '/v1/stacks/orders/events')).body as Events;
  assert.ok(
    live.events.every((e) => e.status !== 'DELETE_COMPLETE'),
    JSON.stringify(live.events),
  );
  const [listed, table, live2, byId] = await Promise.all([
    cli('list', '--deleted', '-o', 'json'),
    cli('list', '--deleted'),
    cli('list', '-o', 'json'),
    cli('events', 'orders', '--stack-id', firstId, '-o', 'json'),
  ]);
  exits(listed, 0);
  assert.deepEqual(
    (JSON.parse(listed.stdout) as Listed).stacks.map((d) => `${d.stackName} ${d.stackId} ${d.status}`).sort(),
    [`orders ${firstId} DELETE_COMPLETE`, `queue ${otherId} DELETE_COMPLETE`],
  );
  assert.match(table.stdout, new RegExp(`orders +${firstId.replace(/[/]/g, '\\/')} +DELETE_COMPLETE`));
  assert.deepEqual(
    (JSON.parse(live2.stdout) as Listed).stacks.map((x) => x.stackName),
    ['orders'],
  );
  exits(byId, 0);
  assert.equal((JSON.parse(byId.stdout) as Events).events.at(-1)?.status, 'DELETE_COMPLETE');
  assert.equal((await s.call('GET', `/v1/stacks/orders/events?stackId=nope`)).status, 404);

  // Scope: a token reaching none of its types sees no deleted stack, as it sees no live one.
  const token = async (types: string[]) => {
    const r = await s.call('POST', '/v1/tokens', { role: 'reader', types });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return api(s.url, r.body.token);
  };
  const [outsider, widgetReader] = await Promise.all([token(['Test::Garden::*']), token(['Test::Shop::*'])]);
  assert.deepEqual(((await outsider.call('GET', '/v1/stacks?deleted=true')).body as Listed).stacks, []);
  const hidden = await outsider.call('GET', '/v1/stacks/queue/events');
  assert.equal(hidden.status, 404);
  assert.equal(
    JSON.stringify(hidden.body),
    JSON.stringify((await outsider.call('GET', '/v1/stacks/never-was/events')).body).replace(
      'never-was',
      'queue',
    ),
  );
  assert.equal(((await widgetReader.call('GET', '/v1/stacks?deleted=true')).body as Listed).stacks.length, 2);
  assert.equal((await widgetReader.call('GET', '/v1/stacks/queue/events')).status, 200);
  assert.equal((await s.call('GET', '/v1/stacks?deleted=maybe')).status, 400);
  // The OpenAPI document names both queries.
  const paths = (await s.call('GET', '/v1/openapi.json')).body.paths;
  const names = (op: { parameters: { name: string }[] }) => op.parameters.map((p) => p.name);
  assert.ok(names(paths['/v1/stacks'].get).includes('deleted'));
  assert.ok(names(paths['/v1/stacks/{stackName}/events'].get).includes('stackId'));
});

eachStoreService(
  'deleted stacks are kept with their events until the retention passes, then forgotten',
  async (s) => {
    assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
    const put = await s.call('PUT', '/v1/stacks/brief?wait=20', { template: TEMPLATE('brief') });
    assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
    const del = await s.call('DELETE', '/v1/stacks/brief?wait=20');
    assert.equal(del.status < 300, true, JSON.stringify(del.body));
    for (let i = 0; i < 100 && (await s.call('GET', '/v1/stacks/brief')).status !== 404; i++)
      await new Promise((r) => setTimeout(r, 50));
    const listed = (await s.call('GET', '/v1/stacks?deleted=true')).body as Listed;
    assert.deepEqual(
      listed.stacks.map((d) => `${d.stackName} ${d.stackId} ${d.status}`),
      [`brief ${put.body.stack.stackId} DELETE_COMPLETE`],
    );
    const events = (await s.call('GET', '/v1/stacks/brief/events')).body as Events;
    assert.equal(events.events.at(-1)?.status, 'DELETE_COMPLETE');
    await new Promise((r) => setTimeout(r, 2_100));
    assert.equal((await s.call('GET', '/v1/stacks/brief/events')).status, 404);
    assert.deepEqual(((await s.call('GET', '/v1/stacks?deleted=true')).body as Listed).stacks, []);
  },
  () => ({ deletedStackRetentionMs: 2_000 }),
);

test('serve takes the deleted-stack retention as a duration, and refuses a bare number', async () => {
  const bad = await runCli(['serve', '--port', '0', '--deleted-stack-retention', '90'], {
    env: { PATH: process.env.PATH ?? '' },
  });
  exits(bad, 2);
  assert.match(bad.stderr, /--deleted-stack-retention must be a whole number of minutes, hours or days/);
});
