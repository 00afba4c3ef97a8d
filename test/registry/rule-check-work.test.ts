/**
 * What checking a type's validation rules does per create and update, counted rather than timed
 * (counts do not depend on the machine): bench:policy's type and its ten rules, issue #34's figure.
 * Each expression is planned once, when the type is compiled; a check converts the model once for all
 * the rules at its root (and the state before once, on an update), evaluates every rule directly,
 * never on the interpreter, and compiles the literal pattern of `matches()` once for all the checks.
 * A regression to per-call planning, per-rule conversion or per-call pattern compilation fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { celCounters } from '../../src/cel/index.js';
import { compileType } from '../../src/registry/compile.js';
import { validateDocument } from '../../src/schema/validate.js';
import { desiredState, RULES, schema } from '../../bench/policy-type.js';

const CHECKS = 200;

function compiledBenchType() {
  const loaded = validateDocument(JSON.stringify(schema('Bench::Policy::Ruled', true)), {
    file: 'bench.json',
  });
  assert.ok(loaded.valid, JSON.stringify(loaded.diagnostics));
  const before = { ...celCounters };
  const compiled = compileType(loaded.types[0]!);
  const expressions = RULES.length + RULES.filter((r) => r.messageExpression).length;
  assert.equal(celCounters.plans - before.plans, expressions, 'each expression planned once, when compiled');
  assert.ok(compiled.checkRules);
  return compiled.checkRules;
}

function counted(run: () => void): Record<keyof typeof celCounters, number> {
  const before = { ...celCounters };
  run();
  return {
    plans: celCounters.plans - before.plans,
    interpreted: celCounters.interpreted - before.interpreted,
    patternCompilations: celCounters.patternCompilations - before.patternCompilations,
    conversions: celCounters.conversions - before.conversions,
  };
}

test('a create checks the ten rules with one conversion, no planning, no interpreter, one pattern compilation in all', () => {
  const check = compiledBenchType();
  const work = counted(() => {
    for (let i = 0; i < CHECKS; i++) assert.deepEqual(check(desiredState(`w${i}`)), []);
  });
  assert.deepEqual(work, { plans: 0, interpreted: 0, patternCompilations: 1, conversions: CHECKS });
});

test('an update converts the desired state and the state before once each for the ten rules', () => {
  const check = compiledBenchType();
  const work = counted(() => {
    for (let i = 0; i < CHECKS; i++) {
      const current = desiredState(`w${i}`);
      assert.deepEqual(check({ ...current, MaxReplicas: 6 }, current), []);
    }
  });
  assert.deepEqual(work, { plans: 0, interpreted: 0, patternCompilations: 1, conversions: 2 * CHECKS });
});

test('a failing rule still has its verdict and its messageExpression’s message', () => {
  const check = compiledBenchType();
  const verdicts = check({ ...desiredState('w1'), MinReplicas: 1 });
  assert.deepEqual(
    verdicts.map((v) => [v.name, v.message, v.pointer]),
    [['/x-typeplane-validations/3', 'prod needs 2 replicas, not 1', '']],
  );
});
