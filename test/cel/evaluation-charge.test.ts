/**
 * What evaluating an expression over `dyn` values (an admission policy's `object`) is charged before
 * it runs: a bound over the values it is given, not over the largest request body, so a typical
 * change takes a small share of the budget; one member does not size another; a member the value
 * lacks sizes nothing after it; with a per-call limit, an evaluation charged more is refused before
 * it runs; items that all fail are interpreted without a stack recorded per error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CALL_COST_LIMIT,
  celCounters,
  compileExpression,
  DYN,
  REQUEST_COST_BUDGET,
  sizedType,
  toCel,
  type CompileOptions,
  type CompiledExpression,
} from '../../src/cel/index.js';

const TAG_CHECK =
  "has(object.Tags) && object.Tags.exists(t, t.Key == 'costCenter' && t.Value in params.centers)";
const params = toCel({ centers: ['cc-100', 'cc-200'] });

function compiled(options: CompileOptions = {}): CompiledExpression {
  const r = compileExpression(TAG_CHECK, { object: DYN, params: sizedType(DYN, params) }, options);
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
  return r.expression;
}

function evaluated(expression: CompiledExpression, object: unknown) {
  const budget = { remaining: REQUEST_COST_BUDGET };
  const result = expression.evaluate({ object: toCel(object), params }, budget);
  return { result, charged: REQUEST_COST_BUDGET - budget.remaining };
}

const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));

test('a typical change is charged a small share of the budget, though the static estimate is over it', () => {
  const e = compiled();
  assert.ok(e.cost > REQUEST_COST_BUDGET, String(e.cost));
  const { result, charged } = evaluated(e, {
    Name: 'logs',
    Tags: [
      { Key: 'team', Value: 'a' },
      { Key: 'costCenter', Value: 'cc-100' },
    ],
  });
  assert.deepEqual(result, { ok: true, value: true });
  assert.ok(charged > 0 && charged <= 10_000, String(charged));
});

test('a long string beside a short list does not make iterating the list costly', () => {
  const { result, charged } = evaluated(compiled(), {
    Definition: 'x'.repeat(500_000),
    Tags: [{ Key: 'costCenter', Value: 'cc-200' }],
  });
  assert.deepEqual(result, { ok: true, value: true });
  assert.ok(charged < 1000, String(charged));
});

test('a member the value lacks, or no value at all, sizes nothing after it', () => {
  for (const object of [{}, { Name: 'x'.repeat(10_000) }, null]) {
    const { result, charged } = evaluated(compiled(), object);
    assert.deepEqual(result, { ok: true, value: false }, JSON.stringify(object)?.slice(0, 40));
    assert.ok(charged <= 10_000, String(charged));
  }
});

test('a list is charged by its length: ten times the items, about ten times the charge', () => {
  const e = compiled();
  const small = evaluated(e, { Tags: tags(2_000) });
  const large = evaluated(e, { Tags: tags(20_000) });
  assert.ok(small.result.ok && large.result.ok);
  const ratio = large.charged / small.charged;
  assert.ok(ratio > 9 && ratio < 11, `${small.charged} -> ${large.charged}`);
});

test('an evaluation charged over the per-call limit is refused before it runs, the budget untouched', () => {
  const e = compiled({ callLimit: CALL_COST_LIMIT });
  const interpreted = celCounters.interpreted;
  // Items that each make the expression fail: the interpreter's slowest case, never reached.
  const { result, charged } = evaluated(e, { Tags: Array.from({ length: 100_000 }, () => ({})) });
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.kind, 'cost');
    assert.match(result.message, /could cost \d+ units, more than the 1000000 one expression may cost/);
  }
  assert.equal(charged, 0);
  assert.equal(celCounters.interpreted, interpreted, 'nothing was evaluated');
  assert.ok(evaluated(e, { Tags: tags(3) }).result.ok, 'a small list is evaluated');
});

test('items that all fail are interpreted without a stack per error: 100,000 within 2 s of CPU time (3.6 s with)', () => {
  const e = compiled();
  const object = { Tags: Array.from({ length: 100_000 }, () => ({})) };
  const limit = Error.stackTraceLimit;
  // CPU time, not wall time: other test files running at once slow the clock, not the work.
  const started = process.cpuUsage();
  const { result } = evaluated(e, object);
  const { user, system } = process.cpuUsage(started);
  const took = (user + system) / 1000;
  assert.equal(result.ok, false);
  if (!result.ok) assert.equal(result.message, 'field not found: Key');
  assert.ok(took < 2_000, `${took.toFixed(0)} ms of CPU time`);
  assert.equal(Error.stackTraceLimit, limit, 'restored');
});
