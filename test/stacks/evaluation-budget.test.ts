/**
 * One budget for all the work an evaluation does: what Fn::Split reads and makes, what Fn::Equals
 * serialises, and every value handed to a resource or an output (a large mapping value given to many
 * resources is conformed, validated, copied and masked once for each). A template within every other
 * limit that would spend more is refused quickly, 400 naming where the budget ran out, once.
 */
import assert from 'node:assert/strict';
import { before, after, test } from 'node:test';
import { EVALUATION_BUDGET } from '../../src/stacks/intrinsics.js';
import { startTestService, WIDGET, type TestService } from '../helpers/service.js';

let s: TestService;
before(async () => {
  s = await startTestService();
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => s.close());

const BUDGET = new RegExp(`over ${EVALUATION_BUDGET.toLocaleString('en-US')} characters of work in all`);

interface Diagnostic {
  rule: string;
  pointer: string;
  message: string;
}

/** A plan of `template` (JSON) with `parameters`: refused, in how long, with which diagnostics. */
async function refusedPlan(
  stack: string,
  template: object,
  parameters: Record<string, string> = {},
): Promise<{ ms: number; diagnostics: Diagnostic[] }> {
  const started = performance.now();
  const r = await s.call('POST', `/v1/stacks/${stack}/plans`, {
    template: JSON.stringify(template),
    parameters,
  });
  const ms = performance.now() - started;
  assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 400));
  return { ms, diagnostics: r.body.details as Diagnostic[] };
}

/** The one budget diagnostic, at `pointer`. */
function assertBudgetAt(diagnostics: Diagnostic[], pointer: RegExp): void {
  const over = diagnostics.filter((d) => BUDGET.test(d.message));
  assert.equal(over.length, 1, JSON.stringify(diagnostics).slice(0, 600));
  assert.equal(over[0]!.rule, 'TP4014');
  assert.match(over[0]!.pointer, pointer);
}

function widgets(count: number, properties: (i: number) => object): Record<string, object> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `W${i}`,
      { Type: 'Test::Shop::Widget', Properties: { Name: `w${i}`, ...properties(i) } },
    ]),
  );
}

test('Fn::Split of a large string in many resources is charged (what it reads and each item made), refused quickly', async () => {
  const { ms, diagnostics } = await refusedPlan(
    'split',
    {
      Parameters: { P: { Type: 'String' } },
      Resources: widgets(100, () => ({ Color: { 'Fn::Select': [0, { 'Fn::Split': [',', { Ref: 'P' }] }] } })),
    },
    { P: 'a,'.repeat(700_000) },
  );
  // Each split reads 1.4 M characters and makes 700,000 items (3.5 M units): the second goes over.
  assertBudgetAt(diagnostics, /^\/Resources\/W1\/Properties\/Color\/Fn::Select\/1\/Fn::Split$/);
  assert.ok(ms < 2000, `${ms} ms`);
});

test('Fn::Equals of large values in many conditions is charged (both sides serialised), refused quickly', async () => {
  const conditions = Object.fromEntries(
    Array.from({ length: 2000 }, (_, i) => [`C${i}`, { 'Fn::Equals': [{ Ref: 'P' }, { Ref: 'P' }] }]),
  );
  const { ms, diagnostics } = await refusedPlan(
    'equals',
    {
      Parameters: { P: { Type: 'String' } },
      Conditions: conditions,
      Resources: widgets(1, () => ({ Color: { 'Fn::If': ['C0', 'a', 'b'] } })),
    },
    { P: 'x'.repeat(1_500_000) },
  );
  // Each comparison serialises 3 M characters: the second condition goes over.
  assertBudgetAt(diagnostics, /^\/Conditions\/C1\/Fn::Equals$/);
  assert.ok(ms < 2000, `${ms} ms`);
});

test('one large mapping value handed to many resources (Fn::FindInMap, Fn::Select) is charged for each, refused before a plan grows', async () => {
  const big = 'x'.repeat(500_000);
  for (const [stack, color] of [
    ['find', { 'Fn::FindInMap': ['M', 'a', 'text'] }],
    ['select', { 'Fn::Select': [0, { 'Fn::FindInMap': ['M', 'a', 'list'] }] }],
  ] as const) {
    const { ms, diagnostics } = await refusedPlan(stack, {
      Mappings: { M: { a: { text: big, list: [big] } } },
      Resources: widgets(110, () => ({ Color: color })),
    });
    // 500,000 characters handed to each resource: the ninth goes over.
    assertBudgetAt(diagnostics, /^\/Resources\/W8\/Properties\/Color$/);
    assert.ok(ms < 2000, `${stack}: ${ms} ms`);
  }
});

test('a template spending less than the budget plans and deploys', async () => {
  const big = 'x'.repeat(400_000);
  const template = JSON.stringify({
    Parameters: { P: { Type: 'String' } },
    Mappings: { M: { a: { text: big } } },
    Conditions: { Same: { 'Fn::Equals': [{ Ref: 'P' }, { Ref: 'P' }] } },
    Resources: widgets(4, (i) => ({
      Color:
        i % 2 === 0 ? { 'Fn::FindInMap': ['M', 'a', 'text'] } : { 'Fn::If': ['Same', { Ref: 'P' }, 'b'] },
      Labels: { 'Fn::Split': [',', { 'Fn::Select': [0, ['a,b,c']] }] },
    })),
  });
  const parameters = { P: 'y'.repeat(400_000) };
  const plan = await s.call('POST', '/v1/stacks/fits/plans', { template, parameters });
  assert.equal(plan.status, 201, JSON.stringify(plan.body).slice(0, 400));
  const deployed = await s.call('PUT', '/v1/stacks/fits?wait=30', { template, parameters });
  assert.equal(deployed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(deployed.body).slice(0, 400));
});
