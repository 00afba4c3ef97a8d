/**
 * A deployment that a deletion of its stack overtakes is answered 409 ResourceConflict, saying to
 * deploy again (never 404 "does not exist" to a PUT, which makes a stack that is missing), and leaves
 * nothing behind; sent again, it makes the stack anew. Each window is opened by holding the
 * deployment at one store read while the stack is deleted to its end through the API:
 * - the replay of a client token, between finding the stack and describing it;
 * - a deployment of an existing stack, between the refused insert and the update of its record;
 * - a deployment decided as an update, whose stack is gone by the time it is marked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET, type TestService } from '../helpers/service.js';

const template = (name: string) =>
  JSON.stringify({
    Resources: { W: { Type: 'Test::Shop::Widget', Properties: { Name: name, Size: 'M' } } },
  });

async function service(t: import('node:test').TestContext): Promise<TestService> {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return s;
}

/** Until the stack's deployment or deletion has ended: its last status. */
async function ended(s: TestService, name: string): Promise<string> {
  for (const until = Date.now() + 20_000; Date.now() < until;) {
    const r = await s.call('GET', `/v1/stacks/${name}`);
    if (r.status === 404) return 'GONE';
    if (!/_IN_PROGRESS$/.test(r.body.status as string)) return r.body.status as string;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`stack ${name} did not finish in 20 s`);
}

async function deployed(s: TestService, name: string, body: Record<string, unknown>): Promise<void> {
  const put = await s.call('PUT', `/v1/stacks/${name}`, body);
  assert.equal(put.status, 202, JSON.stringify(put.body));
  assert.equal(await ended(s, name), 'CREATE_COMPLETE');
}

/** Deletes the stack through the API and waits until it is gone. */
async function deleteToTheEnd(s: TestService, name: string): Promise<void> {
  const r = await s.call('DELETE', `/v1/stacks/${name}`);
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.equal(await ended(s, name), 'GONE');
}

type Records = Record<string, (...args: unknown[]) => Promise<unknown>>;

/**
 * Replaces the stack store's `method` once: its first call for `name` after the stack's resources
 * were listed (what every deployment does before it decides) runs as it would, then the stack is
 * deleted to its end before the caller gets the answer.
 */
function deleteAfter(s: TestService, method: string, name: string, when: (answer: unknown) => boolean) {
  const records = s.stacks.records as unknown as Records;
  const originals = { [method]: records[method]!, getResources: records.getResources! };
  let listed = false;
  let armed = true;
  records.getResources = async (...args: unknown[]) => {
    if (args[0] === name) listed = true;
    return originals.getResources.apply(records, args);
  };
  records[method] = async (...args: unknown[]) => {
    const answer = await originals[method]!.apply(records, args);
    const first = args[0];
    const key = typeof first === 'string' ? first : (first as { name?: string }).name;
    if (armed && listed && key === name && when(answer)) {
      armed = false;
      await deleteToTheEnd(s, name);
    }
    return answer;
  };
  return {
    fired: () => !armed,
    restore: () => Object.assign(records, originals),
  };
}

function assertConflict(r: { status: number; body: any }, pattern: RegExp): void {
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.equal(r.body.errorCode, 'ResourceConflict');
  assert.match(r.body.message, pattern);
}

test('a client token replayed while its stack is deleted is answered 409, not 404', async (t) => {
  const s = await service(t);
  const body = { template: template('replayed'), clientToken: 'tok-replayed' };
  await deployed(s, 'replayed', body);
  // The replay finds the stack (after listing its resources), then describes it: the deletion ends
  // in between.
  const hook = deleteAfter(s, 'getStack', 'replayed', (answer) => answer !== undefined);
  const r = await s.call('PUT', '/v1/stacks/replayed', body);
  hook.restore();
  assert.ok(hook.fired(), 'the window was opened');
  assertConflict(r, /has since been deleted; send a new clientToken/);
  assert.equal((await s.call('GET', '/v1/stacks/replayed')).status, 404, 'nothing made again');
});

const WINDOWS = [
  {
    title: 'a deployment whose stack is deleted between the refused insert and the update is answered 409',
    name: 'between',
    method: 'insertStack',
    when: (inserted: unknown) => inserted === undefined,
  },
  {
    // The deployment reads the stack (an update, its resources listed), then the deletion ends.
    title: 'a deployment decided as an update whose stack is gone when it is marked is answered 409',
    name: 'decided',
    method: 'getStack',
    when: (answer: unknown) => answer !== undefined,
  },
];

for (const { title, name, method, when } of WINDOWS)
  test(`${title}; it leaves no stack, and sent again makes it anew`, async (t) => {
    const s = await service(t);
    await deployed(s, name, { template: template(name) });
    const hook = deleteAfter(s, method, name, when);
    const r = await s.call('PUT', `/v1/stacks/${name}`, { template: template(name) });
    hook.restore();
    assert.ok(hook.fired(), 'the window was opened');
    assertConflict(r, new RegExp(`stack ${name} was deleted while this deployment began; deploy it again`));
    assert.equal((await s.call('GET', `/v1/stacks/${name}`)).status, 404, 'nothing left behind');
    await deployed(s, name, { template: template(name) });
    const resource = await s.call('GET', `/v1/resources/${encodeURIComponent('Test::Shop::Widget')}/${name}`);
    assert.equal(resource.status, 200, JSON.stringify(resource.body));
  });
