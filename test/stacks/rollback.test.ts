import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

/** Five widgets in a chain (each depends on the one before), so the third is the third to run. */
function chain(color: string): string {
  const lines = ['Resources:'];
  for (let i = 1; i <= 5; i++) {
    lines.push(`  W${i}:`, '    Type: Test::Shop::Widget');
    if (i > 1) lines.push(`    DependsOn: W${i - 1}`);
    lines.push(`    Properties: { Name: w${i}, Color: ${color} }`);
  }
  return lines.join('\n');
}

async function withFailingThird(t: import('node:test').TestContext, failOn: 'create' | 'update') {
  let armed = false;
  const provider = memoryProvider({
    [failOn]: (
      req: { desiredState: Record<string, unknown> },
      store: Map<string, Record<string, unknown>>,
    ) => {
      if (armed && req.desiredState.Name === 'w3')
        return { status: 'FAILED', errorCode: 'ServiceLimitExceeded', message: 'no room for w3' };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return { s, provider, arm: () => (armed = true) };
}

test('a failed create rolls the new stack back: what it created is deleted, in reverse order', async (t) => {
  const { s, provider, arm } = await withFailingThird(t, 'create');
  arm();
  const put = await s.call('PUT', '/v1/stacks/five?wait=20', { template: chain('red') });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body.stack));
  assert.match(put.body.stack.statusReason, /W3: ServiceLimitExceeded: no room for w3/);
  assert.equal(provider.store.size, 0, 'nothing left over');
  assert.deepEqual(
    provider.calls.map((c) => `${c.action} ${String(c.req.desiredState.Name)}`),
    ['create w1', 'create w2', 'create w3', 'delete w2', 'delete w1'],
  );
  assert.deepEqual(put.body.stack.resources, []);
  const events = (await s.call('GET', '/v1/stacks/five/events')).body.events.map(
    (e: any) => `${e.logicalId} ${e.status}`,
  );
  assert.ok(events.includes('W3 CREATE_FAILED'));
  assert.ok(events.includes('five ROLLBACK_IN_PROGRESS'));
  assert.equal(events.at(-1), 'five ROLLBACK_COMPLETE');
});

test('a failed update puts back the previous state; --no-rollback leaves it for inspection', async (t) => {
  const { s, provider, arm } = await withFailingThird(t, 'update');
  assert.equal(
    (await s.call('PUT', '/v1/stacks/five?wait=20', { template: chain('red') })).body.stack.status,
    'CREATE_COMPLETE',
  );
  arm();
  const put = await s.call('PUT', '/v1/stacks/five?wait=20', { template: chain('blue') });
  assert.equal(put.body.stack.status, 'UPDATE_ROLLBACK_COMPLETE', JSON.stringify(put.body.stack));
  assert.deepEqual(
    [...provider.store.values()].map((m) => `${String(m.Name)} ${String(m.Color)}`),
    ['w1 red', 'w2 red', 'w3 red', 'w4 red', 'w5 red'],
    'the previous state is back',
  );
  const updates = provider.calls
    .filter((c) => c.action === 'update')
    .map((c) => `${String(c.req.desiredState.Name)} ${String(c.req.desiredState.Color)}`);
  assert.deepEqual(updates, ['w1 blue', 'w2 blue', 'w3 blue', 'w2 red', 'w1 red']);

  const kept = await s.call('PUT', '/v1/stacks/five?wait=20', { template: chain('green'), noRollback: true });
  assert.equal(kept.body.stack.status, 'UPDATE_FAILED');
  assert.deepEqual(
    [...provider.store.values()].map((m) => String(m.Color)),
    ['green', 'green', 'red', 'red', 'red'],
  );
});
