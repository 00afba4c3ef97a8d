/**
 * Through a real server: a template with tens of thousands of problems is answered with at most 100
 * diagnostics and a last one (TP4023) saying how many more were left out — by validate, by a PUT
 * refused, and by a plan refused — and the work is bounded too, not only the answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';

type Found = { rule: string; severity: string; message: string; leftOut?: number; errorsLeftOut?: number }[];

async function service(t: import('node:test').TestContext) {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return s;
}

/** CPU time (this process: the server and its client) and the answer of one call. */
async function measured<T>(call: () => Promise<T>): Promise<{ cpuMs: number; answer: T }> {
  const before = process.cpuUsage();
  const answer = await call();
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, answer };
}

function template(conditions: Record<string, unknown>): string {
  return JSON.stringify({
    Conditions: { C0: { 'Fn::Equals': ['a', 'a'] }, ...conditions },
    Resources: { W: { Type: 'Test::Shop::Widget', Condition: 'C0', Properties: { Name: 'w' } } },
  });
}

function assertCapped(found: Found, what: string): NonNullable<Found[number]> {
  assert.equal(found.length, 101, `${what}: ${found.length} diagnostics`);
  const note = found.at(-1)!;
  assert.equal(note.rule, 'TP4023', what);
  assert.equal(note.severity, 'error', what);
  assert.match(note.message, /more diagnostics .* left out.*at most 100/, what);
  return note;
}

test('30,000 errors are answered with 100 diagnostics and how many more were left out, at once', async (t) => {
  const s = await service(t);
  const conditions: Record<string, unknown> = {};
  for (let i = 0; i < 30_000; i++) conditions[`E${i}`] = { 'Fn::Equals': ['x'] };
  const text = template(conditions);

  const { cpuMs, answer } = await measured(() => s.call('POST', '/v1/stacks/validate', { template: text }));
  assert.equal(answer.status, 200);
  assert.equal(answer.body.valid, false);
  const note = assertCapped(answer.body.diagnostics, 'validate');
  assert.ok(note.leftOut! >= 30_000 - 100, `left out: ${note.leftOut}`);
  assert.ok(JSON.stringify(answer.body).length < 40_000, 'the answer stays small');
  // Reading the 0.9 MB template is most of it; 30,000 diagnostics took 1.7 s of CPU and 60,000 answered.
  t.diagnostic(`validate: ${cpuMs.toFixed(0)} ms of CPU`);
  assert.ok(cpuMs < 1500, `validate took ${cpuMs.toFixed(0)} ms of CPU`);

  const put = await s.call('PUT', '/v1/stacks/many', { template: text });
  assert.equal(put.status, 400);
  assertCapped(put.body.details, 'PUT');
  assert.match(put.body.message, /the template is invalid: [\d,]+ errors/);

  const plan = await s.call('POST', '/v1/stacks/many/plans', { template: text });
  assert.equal(plan.status, 400);
  assertCapped(plan.body.details, 'plan');
});

test('10,000 misspelt condition names are answered without searching each for a "did you mean"', async (t) => {
  const s = await service(t);
  const conditions: Record<string, unknown> = {};
  for (let i = 0; i < 10_000; i++) conditions[`E${i}`] = { 'Fn::Not': [{ Condition: `X${i}` }] };
  const { cpuMs, answer } = await measured(() =>
    s.call('POST', '/v1/stacks/validate', { template: template(conditions) }),
  );
  assert.equal(answer.status, 200);
  const found = answer.body.diagnostics as Found;
  const note = assertCapped(found, 'validate');
  assert.ok(note.errorsLeftOut! >= 10_000 - 100, `errors left out: ${note.errorsLeftOut}`);
  assert.match(found[0]!.message, /no condition named 'X0' in the template; did you mean 'C0'\?/);
  // Each searched 10,000 names before: over two minutes of CPU.
  t.diagnostic(`validate: ${cpuMs.toFixed(0)} ms of CPU`);
  assert.ok(cpuMs < 1500, `validate took ${cpuMs.toFixed(0)} ms of CPU`);
});
