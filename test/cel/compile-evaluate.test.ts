/**
 * The CEL evaluator: an expression type-checks against a schema's types (a misspelt field, a wrong
 * operand, a missing function are located problems), its worst-case cost comes from the schema's
 * bounds, and evaluating it is refused before it runs when the request's values are too large for the
 * budget left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileExpression,
  fromCel,
  REQUEST_COST_BUDGET,
  toCel,
  typeFromSchema,
  DYN,
  type CompiledExpression,
} from '../../src/cel/index.js';

const replicas = typeFromSchema({
  type: 'object',
  properties: {
    minReplicas: { type: 'integer' },
    maxReplicas: { type: 'integer' },
    ratio: { type: 'number' },
    name: { type: 'string', maxLength: 64 },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    items: { type: 'array', items: { type: 'string' } },
  },
});

function compiled(source: string, expect: 'bool' | 'string' = 'bool'): CompiledExpression {
  const r = compileExpression(source, { self: replicas }, { expect });
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
  return r.expression;
}

function run(source: string, value: unknown): unknown {
  const r = compiled(source).evaluate({ self: toCel(value, replicas) }, { remaining: REQUEST_COST_BUDGET });
  assert.ok(r.ok, r.ok ? '' : r.message);
  return fromCel(r.value);
}

test('integers of the schema are CEL ints, numbers doubles, so a comparison type-checks and runs', () => {
  assert.equal(run('self.minReplicas <= self.maxReplicas', { minReplicas: 1, maxReplicas: 3 }), true);
  assert.equal(run('self.minReplicas <= self.maxReplicas', { minReplicas: 4, maxReplicas: 3 }), false);
  assert.equal(run('self.ratio * 2.0 > 1.0', { ratio: 1 }), true);
  assert.equal(run("self.tags.all(t, t.startsWith('a'))", { tags: ['ab', 'ac'] }), true);
  assert.equal(run("has(self.labels) && self.labels.exists(k, k == 'env')", { labels: { env: 'x' } }), true);
});

test('a misspelt field is a problem located at its column, naming the fields there are', () => {
  const r = compileExpression('self.minReplicas <= self.maxReplica', { self: replicas });
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0]!.message, /undefined field 'maxReplica'.*'maxReplicas'/);
  assert.equal(r.problems[0]!.line, 1);
  assert.equal(r.problems[0]!.column, 25);
});

test('a syntax error, a wrong operand, an unknown function and a wrong result type are refused', () => {
  const cases: [string, RegExp, number][] = [
    ['self.minReplicas <=', /syntax error/, 18],
    ["self.minReplicas + 'a' > 1", /no matching overload for '_\+_' applied to '\(int, string\)'/, 18],
    ['self.minReplicas + self.ratio > 1.0', /no matching overload/, 18],
    ['self.name.frobnicate()', /undeclared reference to function 'frobnicate'/, 10],
    ['self.minReplicas', /must be a bool, not int/, 5],
    ['other > 1', /undeclared reference to 'other'/, 1],
  ];
  for (const [source, message, column] of cases) {
    const r = compileExpression(source, { self: replicas }, { expect: 'bool' });
    assert.equal(r.ok, false, source);
    if (r.ok) continue;
    assert.match(r.problems[0]!.message, message, source);
    assert.equal(r.problems[0]!.column, column, source);
  }
});

test('a problem on a later line is located on that line', () => {
  const r = compileExpression('self.minReplicas > 0 &&\n  self.nme == "x"', { self: replicas });
  assert.equal(r.ok, false);
  if (!r.ok) assert.deepEqual([r.problems[0]!.line, r.problems[0]!.column], [2, 7]);
});

test("the cost comes from the schema's bounds; without them, from the largest request body", () => {
  const bounded = compiled("self.tags.all(t, t.contains('x'))").cost;
  const unbounded = compiled("self.items.all(t, t.contains('x'))").cost;
  assert.ok(bounded < 100, String(bounded));
  assert.ok(unbounded > 1_000_000_000, String(unbounded));
  assert.ok(compiled('self.minReplicas <= self.maxReplicas').cost < 10);
});

test('evaluation is refused before it runs when the values are too large for the budget left', () => {
  const e = compiled("self.items.all(t, t.contains('x'))");
  const small = { self: toCel({ items: ['ax', 'bx'] }, replicas) };
  const budget = { remaining: 1000 };
  const r = e.evaluate(small, budget);
  assert.ok(r.ok && r.value === true);
  assert.ok(budget.remaining < 1000 && budget.remaining > 900, String(budget.remaining));
  const big = { self: toCel({ items: Array.from({ length: 2000 }, () => 'x'.repeat(100)) }, replicas) };
  const refused = e.evaluate(big, { remaining: 1000 });
  assert.equal(refused.ok, false);
  if (!refused.ok) {
    assert.equal(refused.kind, 'cost');
    assert.match(refused.message, /could cost \d+ units, more than the 1000 left/);
  }
});

test('a runtime error (a field absent) is an error result, not a throw', () => {
  const r = compiled('self.minReplicas > 0').evaluate({ self: toCel({}, replicas) }, { remaining: 100 });
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.kind, 'error');
});

test('dyn variables (admission policies) take any JSON; whole numbers are ints', () => {
  const r = compileExpression("object.spec.replicas > 2 && request.operation == 'CREATE'", {
    object: DYN,
    request: DYN,
  });
  assert.ok(r.ok);
  if (!r.ok) return;
  const v = r.expression.evaluate(
    { object: toCel({ spec: { replicas: 3 } }), request: toCel({ operation: 'CREATE' }) },
    { remaining: REQUEST_COST_BUDGET },
  );
  assert.ok(v.ok && v.value === true);
});

test('a recursive schema gives a type checked as deep as the expression selects', () => {
  const tree = typeFromSchema({
    definitions: {
      Node: {
        type: 'object',
        properties: { name: { type: 'string' }, child: { $ref: '#/definitions/Node' } },
      },
    },
    type: 'object',
    properties: { root: { $ref: '#/definitions/Node' } },
  });
  assert.ok(compileExpression("self.root.child.child.name == 'x'", { self: tree }).ok);
  assert.equal(compileExpression('self.root.child.nam == 1', { self: tree }).ok, false);
});

test("an object's prototype is not reachable", () => {
  assert.equal(run("has(self.labels) && !('constructor' in self.labels)", { labels: {} }), true);
});
