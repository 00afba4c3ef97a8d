/**
 * Through a real server: conditions are decided once each, without recursion. A chain of 1,500
 * conditions declared last-first validates and deploys; thousands of conditions naming one failing
 * chain are answered at once, its error reported once; a cycle is refused with its path, located.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';

async function service(t: import('node:test').TestContext) {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return s;
}

/** A JSON template: `conditions`, and one widget created when C0 holds. */
function template(conditions: Record<string, unknown>): string {
  return JSON.stringify({
    Parameters: { Env: { Type: 'String', Default: 'prod' } },
    Conditions: conditions,
    Resources: { W: { Type: 'Test::Shop::Widget', Condition: 'C0', Properties: { Name: 'w' } } },
  });
}

/** CPU time (this process: the server and its client) and the answer of one call. */
async function measured<T>(call: () => Promise<T>): Promise<{ cpuMs: number; answer: T }> {
  const before = process.cpuUsage();
  const answer = await call();
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, answer };
}

test('a chain of 1,500 conditions declared last-first validates and deploys', async (t) => {
  const s = await service(t);
  const conditions: Record<string, unknown> = {};
  // C0 is the negation of C1, which negates C2, …: each declared before the one it names.
  for (let i = 0; i < 1500; i++) conditions[`C${i}`] = { 'Fn::Not': [{ Condition: `C${i + 1}` }] };
  conditions.C1500 = { 'Fn::Equals': [{ Ref: 'Env' }, 'prod'] };
  const text = template(conditions);

  const validated = await s.call('POST', '/v1/stacks/validate', { template: text });
  assert.equal(validated.status, 200, JSON.stringify(validated.body).slice(0, 500));
  assert.deepEqual(validated.body.diagnostics, []);
  assert.equal(validated.body.valid, true);

  const put = await s.call('PUT', '/v1/stacks/chain?wait=20', { template: text });
  assert.equal(put.status, 202, JSON.stringify(put.body).slice(0, 500));
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  assert.deepEqual(
    put.body.stack.resources.map((r: { logicalId: string }) => r.logicalId),
    ['W'],
  );
});

test('thousands of conditions naming one failing chain are answered at once, its error reported once', async (t) => {
  const s = await service(t);
  const conditions: Record<string, unknown> = { C0: { 'Fn::Equals': ['a', 'a'] } };
  for (let i = 0; i < 4000; i++) conditions[`D${i}`] = { 'Fn::Not': [{ Condition: 'F1' }] };
  for (let i = 1; i <= 500; i++) conditions[`F${i}`] = { Condition: `F${i + 1}` };
  conditions.F501 = { 'Fn::Equals': ['only one'] };
  const text = template(conditions);

  const { cpuMs, answer } = await measured(() => s.call('POST', '/v1/stacks/validate', { template: text }));
  assert.equal(answer.status, 200);
  assert.equal(answer.body.valid, false);
  const errors = (answer.body.diagnostics as { rule: string; severity: string; pointer: string }[]).filter(
    (d) => d.severity === 'error' && d.rule !== 'TP4023',
  );
  assert.deepEqual(
    errors.map((d) => `${d.rule} ${d.pointer}`),
    ['TP4014 /Conditions/F501/Fn::Equals'],
  );
  // Each condition decided once: about 4,500 lookups, where walking the chain again for each was 2 million.
  t.diagnostic(`validate: ${cpuMs.toFixed(0)} ms of CPU`);
  assert.ok(cpuMs < 1000, `validate took ${cpuMs.toFixed(0)} ms of CPU`);
});

test('conditions in a cycle are refused with the cycle named, located, and so is one that names it', async (t) => {
  const s = await service(t);
  const text = [
    'Conditions:', // 1
    '  C0: !Condition A', // 2
    '  A: !Not [!Condition B]', // 3
    '  B: !And [!Condition C, !Equals [a, a]]', // 4
    '  C: !Condition A', // 5
    'Resources:', // 6
    '  W: { Type: Test::Shop::Widget, Condition: C0, Properties: { Name: w } }', // 7
  ].join('\n');
  const validated = await s.call('POST', '/v1/stacks/validate', { template: text });
  assert.equal(validated.status, 200);
  assert.equal(validated.body.valid, false);
  const cycles = (validated.body.diagnostics as { rule: string; line: number; message: string }[]).filter(
    (d) => /cycle/.test(d.message),
  );
  assert.equal(cycles.length, 1, JSON.stringify(validated.body.diagnostics));
  assert.equal(cycles[0]!.rule, 'TP4015');
  assert.match(
    cycles[0]!.message,
    /conditions depend on each other in a cycle: (A → B → C → A|B → C → A → B|C → A → B → C)/,
  );
  assert.ok([3, 4, 5].includes(cycles[0]!.line), `located on a condition of the cycle: ${cycles[0]!.line}`);
  assert.equal((await s.call('PUT', '/v1/stacks/cycle', { template: text })).status, 400);
});
