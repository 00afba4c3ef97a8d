/**
 * Direct evaluation (closures for an expression's common cases) gives exactly what @bufbuild/cel's
 * interpreter gives — the same value, or the same error with the same message — on generated
 * expressions and values, odd ones included (int64 extremes, a dyn of any kind, null and missing
 * members, characters outside the BMP); anything out of the ordinary is left to the interpreter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import {
  celCounters,
  compileExpression,
  fromCel,
  toCel,
  typeFromSchema,
  type CompiledExpression,
} from '../../src/cel/index.js';

const SELF = typeFromSchema({
  type: 'object',
  properties: {
    i: { type: 'integer' },
    j: { type: 'integer' },
    d: { type: 'number' },
    s: { type: 'string' },
    t: { type: 'string' },
    b: { type: 'boolean' },
    l: { type: 'array', items: { type: 'string' } },
    n: { type: 'array', items: { type: 'integer' } },
    m: { type: 'object', additionalProperties: { type: 'integer' } },
    x: {},
  },
});

const interpreterEnv = celEnv({ funcs: strings });
const BUDGET = Number.MAX_SAFE_INTEGER;

/** The interpreter's answer alone: @bufbuild/cel as it is, no direct evaluation, no kept patterns. */
function interpreted(source: string, self: unknown): { value: unknown } | { error: string } {
  const value = plan(interpreterEnv, parse(source).expr)({ self: self as never });
  return isCelError(value) ? { error: value.message } : { value: fromCel(value) };
}

function ours(expression: CompiledExpression, self: unknown): { value: unknown } | { error: string } {
  const r = expression.evaluate({ self: self as never }, { remaining: BUDGET });
  if (r.ok) return { value: fromCel(r.value) };
  assert.equal(r.kind, 'error', r.message);
  return { error: r.message };
}

function compiled(source: string): CompiledExpression | undefined {
  const r = compileExpression(source, { self: SELF });
  return r.ok ? r.expression : undefined;
}

const INT64 = ['9223372036854775807', '-9223372036854775807', '4611686018427387904'];
const STRINGS = ['', 'a', 'ab', 'é', '😀', '😀a', 'a😀', '\ud83d', 'k', 'prod', 'ops@example.com'];

const expressions = fc.letrec((tie) => ({
  int: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom(
      'self.i',
      'self.j',
      '0',
      '1',
      '-1',
      '7',
      ...INT64,
      'size(self.s)',
      'self.s.size()',
      'self.l.size()',
      'self.m.size()',
      "self.m['k']",
      'self.n[0]',
      'int(self.x)',
    ),
    fc
      .tuple(tie('int'), fc.constantFrom('+', '-', '*', '/', '%'), tie('int'))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('int').map((a) => `-(${a})`),
    fc
      .tuple(fc.constantFrom('self.s', 'self.x'), fc.constantFrom("'a'", "''", 'self.t'))
      .map(([a, b]) => `${a}.split(${b}).size()`),
    fc.tuple(tie('bool'), tie('int'), tie('int')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
  ),
  double: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom('self.d', '0.0', '0.5', '-2.5', '1e308', 'double(self.x)'),
    fc
      .tuple(tie('double'), fc.constantFrom('+', '-', '*', '/'), tie('double'))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
  ),
  str: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom('self.s', 'self.t', 'self.l[0]', 'string(self.x)', ...STRINGS.map((s) => `'${s}'`)),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `(${a} + ${b})`),
    tie('int').map((a) => `string(${a})`),
    fc
      .tuple(
        fc.constantFrom('self.s', 'self.t', 'string(self.x)'),
        fc.constantFrom("'@'", "'a'", "''", "'😀'", "'\ud83d'", 'self.t'),
        fc.nat(2),
      )
      .map(([a, sep, i]) => `${a}.split(${sep})[${i}]`),
  ),
  bool: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom(
      'true',
      'false',
      'self.b',
      'has(self.s)',
      'has(self.x)',
      'has(self.m.k)',
      "'k' in self.m",
      "self.s.matches('^[a-z]+@example[.]com$')",
      "self.s.matches('😀')",
      'self.s.matches(self.t)',
      "self.l.all(e, e.startsWith('a'))",
      "self.s.split('@')[1] in ['example.com', 'a']",
      "self.l.exists(e, e.split('a').size() == 2)",
      'self.l.exists(e, e == self.s)',
      'self.n.exists_one(v, v > 0)',
      'self.n.filter(v, v % 2 == 0).size() > 0',
      'self.n.map(v, v * 2).all(v, v > self.i)',
      'self.m.all(k, self.m[k] > 0)',
      'self.x == self.x',
      'self.x == 1',
      'self.x == null',
      "self.x != 'a'",
      'self.m.all(k, self.m[k] != null)',
      'self.x < 1',
      'self.x < 1.0',
      "self.x in ['a', 1, 2.0]",
      'self.x',
    ),
    fc
      .tuple(tie('int'), fc.constantFrom('<', '<=', '>', '>=', '==', '!='), tie('int'))
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc
      .tuple(tie('double'), fc.constantFrom('<', '>=', '==', '!='), tie('double'))
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc
      .tuple(tie('str'), fc.constantFrom('<', '==', '!=', 'startsWith', 'endsWith', 'contains'), tie('str'))
      .map(([a, op, b]) => (/^[a-z]/.test(op) ? `${a}.${op}(${b})` : `${a} ${op} ${b}`)),
    fc.tuple(tie('str'), tie('str')).map(([a, b]) => `${a} in [${b}, 'a']`),
    fc.tuple(tie('int')).map(([a]) => `${a} in self.n`),
    fc.tuple(tie('bool'), fc.constantFrom('&&', '||'), tie('bool')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('bool').map((a) => `!(${a})`),
  ),
}));

const ints = fc.oneof(
  fc.constantFrom(0, 1, -1, 2, 2 ** 53 - 1, -(2 ** 53) + 1),
  fc.integer({ min: -1000, max: 1000 }),
);
const text = fc.oneof(fc.constantFrom(...STRINGS), fc.string({ maxLength: 6 }));
const members = {
  i: ints,
  j: ints,
  d: fc.oneof(fc.constantFrom(0, -0, 0.5, 1e308, -1e308), fc.double({ noNaN: true })),
  s: text,
  t: text,
  b: fc.boolean(),
  l: fc.array(text, { maxLength: 4 }),
  n: fc.array(ints, { maxLength: 4 }),
  m: fc.dictionary(fc.constantFrom('k', 'j', '😀'), fc.option(ints, { nil: null }), { maxKeys: 3 }),
  x: fc.oneof(ints, fc.double({ noNaN: true }), text, fc.boolean(), fc.constant(null), fc.array(ints)),
};
// Mostly every member set (so most evaluations are ordinary), sometimes any of them missing.
const values = fc.oneof(
  { weight: 3, arbitrary: fc.record(members) },
  { weight: 1, arbitrary: fc.record(members, { requiredKeys: [] }) },
);

test('direct evaluation gives what the interpreter gives, value or error, on generated expressions and values', () => {
  const before = { ...celCounters };
  let evaluations = 0;
  let compiledCount = 0;
  fc.assert(
    fc.property(expressions.bool, fc.array(values, { minLength: 1, maxLength: 4 }), (source, selves) => {
      const expression = compiled(source);
      if (!expression) return;
      compiledCount++;
      for (const value of selves) {
        const self = toCel(value, SELF);
        evaluations++;
        assert.deepEqual(
          ours(expression, self),
          interpreted(source, self),
          `${source} on ${JSON.stringify(value)}`,
        );
      }
    }),
    { numRuns: 1500 },
  );
  // Most expressions compiled, and most evaluations of them were direct: the comparison above
  // tested direct evaluation, not the interpreter against itself.
  assert.ok(compiledCount > 1000, `${compiledCount} of 1500 generated expressions compiled`);
  const direct = evaluations - (celCounters.interpreted - before.interpreted);
  assert.ok(direct > 1000, `${direct} of ${evaluations} evaluations direct`);
});

test('an error found directly is the interpreter’s error, with its message', () => {
  const cases: [string, unknown][] = [
    ['self.i > 0', {}],
    ["self.m['nope'] > 0", { m: { k: 1 } }],
    ['(9223372036854775807 + self.i) > 0', { i: 1 }],
    ['self.i / self.j > 0', { i: 1, j: 0 }],
    ['self.x < 1', { x: 'a' }],
    // A pattern from a value (a literal one is refused when compiled: see below).
    ['self.s.matches(self.t)', { s: 'a', t: '(' }],
  ];
  for (const [source, value] of cases) {
    const expression = compiled(source)!;
    const self = toCel(value, SELF);
    const expected = interpreted(source, self);
    assert.ok('error' in expected, `${source} is an error for the interpreter`);
    assert.deepEqual(ours(expression, self), expected, source);
  }
});

test('a literal matches() pattern that is no RE2 expression is refused when compiled, at the pattern', () => {
  const r = compileExpression("self.s.size() > 0 && self.s.matches('([a-z')", { self: SELF });
  assert.equal(r.ok, false);
  assert.match(
    r.ok ? '' : r.problems[0]!.message,
    /matches\(\) pattern is not valid RE2: .*missing closing \]/,
  );
  assert.equal(r.ok ? 0 : r.problems[0]!.column, 37, 'located at the literal');
});

test('ordinary values are evaluated without the interpreter, a literal pattern compiled once', () => {
  const source =
    "self.i <= self.j && self.s.size() <= 40 && self.s.matches('^[a-z]+$') && self.l.all(e, e in ['a', 'b']) && has(self.m.k) && self.s.split('b')[0] == 'a'";
  const expression = compiled(source)!;
  const before = { ...celCounters };
  for (let k = 0; k < 100; k++) {
    const self = toCel({ i: k, j: 100, s: 'abc', l: ['a', 'b'], m: { k } }, SELF);
    assert.deepEqual(ours(expression, self), { value: true });
  }
  assert.equal(celCounters.interpreted - before.interpreted, 0);
  assert.equal(celCounters.patternCompilations - before.patternCompilations, 1);
  assert.equal(celCounters.plans - before.plans, 0);
});

test('map() and filter() grow their list in place: time linear in the items, the value the interpreter’s', () => {
  const source = "self.l.map(e, e + '!').filter(e, e != 'x!').size() == self.l.size()";
  const expression = compiled(source)!;
  const small = toCel({ l: ['a', 'b', ''] }, SELF);
  assert.deepEqual(ours(expression, small), interpreted(source, small));
  const before = celCounters.interpreted;
  // 100,000 items: a list copied at each step would copy five billion items, minutes of CPU.
  const self = toCel({ l: Array.from({ length: 100_000 }, (_, i) => `i${i}`) }, SELF);
  const started = performance.now();
  assert.deepEqual(ours(expression, self), { value: true });
  const took = performance.now() - started;
  assert.equal(celCounters.interpreted, before, 'evaluated directly');
  assert.ok(took < 5_000, `took ${took.toFixed(0)} ms`);
});
