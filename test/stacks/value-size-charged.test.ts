/**
 * What an evaluated value is charged is its size as JSON, every kind of leaf counted: a list of a
 * hundred and fifty thousand numbers (some 1.35 million characters of JSON, over the 1 MiB a value
 * may hold) is refused like one of as many long strings, and a small one passes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EvaluationError, MAX_VALUE_CHARS, evaluate, type Scope } from '../../src/stacks/intrinsics.js';

/** A scope no plain value asks anything of: only the evaluation's budget is kept by it. */
const scope = () => ({}) as Scope;

for (const [kind, leaf] of [
  ['numbers', 12345],
  ['booleans', true],
  ['nulls', null],
  ['mappings of one number', { n: 1 }],
] as const)
  test(`a list of ${kind} is charged for each of them: over a value's bound, refused`, () => {
    const big = Array.from({ length: 150_000 }, () => leaf);
    assert.ok(JSON.stringify(big).length > 0.6 * MAX_VALUE_CHARS, 'the case is near the bound');
    assert.throws(
      () => evaluate(big, scope(), '/Outputs/Big/Value'),
      (e: unknown) => e instanceof EvaluationError && /characters of JSON/.test(e.message),
    );
    assert.deepEqual(evaluate(big.slice(0, 1_000), scope(), '/Outputs/Small/Value'), big.slice(0, 1_000));
  });
