import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// How long each handler takes, by action and resource name. D is ordered after A and B by its
// DependsOn alone (its only reference is to C): A and B are slow and C fast on create, D slow on
// delete, so a lost DependsOn edge shows as D's create starting before A and B end, or A's and B's
// delete starting before D's ends.
const DURATION_MS: Record<string, number> = {
  'create a': 600,
  'create b': 500,
  'create c': 50,
  'create d': 50,
  'delete a': 50,
  'delete b': 50,
  'delete c': 50,
  'delete d': 500,
};

test('independent resources run in parallel, dependants after all they depend on; delete runs in reverse', async (t) => {
  const spans = new Map<string, { start: number; end: number }>();
  const timed = async (
    action: string,
    req: { desiredState: Record<string, unknown> },
    store: Map<string, Record<string, unknown>>,
  ) => {
    const name = String(req.desiredState.Name);
    const start = performance.now();
    await sleep(DURATION_MS[`${action} ${name}`]!);
    if (action === 'create') store.set(name, req.desiredState);
    else store.delete(name);
    spans.set(`${action} ${name}`, { start, end: performance.now() });
    return {
      status: 'SUCCESS' as const,
      ...(action === 'create' ? { resourceModel: req.desiredState } : {}),
    };
  };
  const provider = memoryProvider({
    create: (req, store) => timed('create', req, store),
    delete: (req, store) => timed('delete', req, store),
  });
  const s = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const template = `
Resources:
  A: { Type: Test::Shop::Widget, Properties: { Name: a } }
  B: { Type: Test::Shop::Widget, Properties: { Name: b } }
  C: { Type: Test::Shop::Widget, Properties: { Name: c } }
  D:
    Type: Test::Shop::Widget
    DependsOn: [A, B]
    Properties: { Name: d, Color: !Ref C }
`;
  const put = await s.call('PUT', '/v1/stacks/par?wait=20', { template });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE');
  const span = (k: string) => spans.get(k)!;
  const roots = ['create a', 'create b', 'create c'].map(span);
  // A, B and C overlap: each started before any of them ended.
  const firstEnd = Math.min(...roots.map((r) => r.end));
  for (const r of roots) assert.ok(r.start < firstEnd, 'independent creates run at the same time');
  for (const k of ['create a', 'create b', 'create c'])
    assert.ok(
      span('create d').start >= span(k).end,
      `D starts after ${k} ended: ${JSON.stringify([...spans])}`,
    );

  assert.equal((await s.call('DELETE', '/v1/stacks/par?wait=20')).status, 202);
  assert.equal(provider.store.size, 0);
  for (const k of ['delete a', 'delete b', 'delete c'])
    assert.ok(
      span(k).start >= span('delete d').end,
      `the dependant D is deleted before ${k} starts: ${JSON.stringify([...spans])}`,
    );
  assert.equal((await s.call('GET', '/v1/stacks/par')).status, 404);
});
