/**
 * Through a real server: a condition may not name a resource (TP4022, as in CloudFormation: it is
 * decided before any resource exists), and a deployment whose template cannot be evaluated ends,
 * failed and rolled back, instead of being resumed and failing again after every lease; its stack
 * can then be deleted.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

async function service(t: import('node:test').TestContext, leaseMs?: number) {
  const s = await startTestService(leaseMs !== undefined ? { leaseMs } : {});
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return s;
}

/** W's name depends on a condition that names W itself: only known once W exists. */
const NAMES_ITS_RESOURCE = [
  'Conditions:', // 1
  '  Named: !Equals [!Ref W, w]', // 2
  '  Red: !Equals [!GetAtt W.Color, red]', // 3
  'Resources:', // 4
  '  W:', // 5
  '    Type: Test::Shop::Widget', // 6
  '    Properties:', // 7
  '      Name: !If [Named, a, w]', // 8
  '      Color: !If [Red, red, blue]', // 9
].join('\n');

test('a condition that names a resource (Ref or GetAtt) is refused, located, with what to use instead', async (t) => {
  const s = await service(t);
  const validated = await s.call('POST', '/v1/stacks/validate', { template: NAMES_ITS_RESOURCE });
  assert.equal(validated.status, 200);
  assert.equal(validated.body.valid, false);
  const found = (validated.body.diagnostics as { rule: string; line: number; message: string }[]).filter(
    (d) => d.rule === 'TP4022',
  );
  assert.deepEqual(
    found.map((d) => d.line),
    [2, 3],
    JSON.stringify(validated.body.diagnostics),
  );
  assert.match(
    found[0]!.message,
    /condition Named refers to resource W.*use a parameter, a mapping or another condition/,
  );

  const put = await s.call('PUT', '/v1/stacks/refused', { template: NAMES_ITS_RESOURCE });
  assert.equal(put.status, 400, JSON.stringify(put.body));
  assert.ok(put.body.details.some((d: { rule: string }) => d.rule === 'TP4022'));
  assert.equal((await s.call('GET', '/v1/stacks/refused')).status, 404, 'nothing was started');
});

test('a deployment stored with a template that no longer evaluates fails and rolls back once resumed; the stack is then deleted', async (t) => {
  // A short lease: a deployment that threw instead of ending would be resumed, and throw, every 300 ms.
  const s = await service(t, 300);
  // As a server that accepted the template, and then stopped, left it: in progress, its lease run out.
  const id = randomUUID();
  const now = new Date().toISOString();
  await s.stacks.records.insertStack({
    name: 'left',
    stackId: `typeplane:stack/left/${randomUUID()}`,
    status: 'CREATE_IN_PROGRESS',
    createdAt: now,
    updatedAt: now,
    version: 1,
    outputs: [],
    exports: [],
    imports: [],
    types: [WIDGET_TYPE],
    deployment: id,
  });
  await s.stacks.records.insertDeployment({
    id,
    stack: 'left',
    kind: 'deploy',
    phase: 'forward',
    noRollback: false,
    template: NAMES_ITS_RESOURCE,
    parameters: {},
    update: false,
    owner: 'a-server-that-stopped',
    leaseUntil: new Date(Date.now() - 1000).toISOString(),
    startedAt: now,
  });

  let stack: { status: string; statusReason?: string } | undefined;
  for (let i = 0; i < 100; i++) {
    stack = (await s.call('GET', '/v1/stacks/left')).body;
    if (!stack!.status.endsWith('_IN_PROGRESS')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(stack!.status, 'ROLLBACK_COMPLETE', JSON.stringify(stack));
  assert.match(stack!.statusReason ?? '', /no longer valid: TP4022 condition Named refers to resource W/);
  const events = (await s.call('GET', '/v1/stacks/left/events')).body.events.map(
    (e: { status: string }) => e.status,
  );
  assert.ok(events.includes('ROLLBACK_IN_PROGRESS'), JSON.stringify(events));

  const deleted = await s.call('DELETE', '/v1/stacks/left?wait=10');
  assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
  assert.equal((await s.call('GET', '/v1/stacks/left')).status, 404);
});
