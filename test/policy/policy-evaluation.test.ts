/**
 * The evaluation of compiled policies, in process: an expression that errors follows the policy's
 * failurePolicy (Fail is a verdict of its action saying so, Ignore none), a messageExpression that
 * fails or gives nothing falls back to the message and then to the expression, a long one is cut, and
 * a change whose values would overrun the request's cost budget is not evaluated. Registration
 * refuses an expression as never able to run at the same bound the run-time charge has.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePolicy, evaluatePolicies, readPolicy, type PolicyInput } from '../../src/policy/index.js';

const input = (object: Record<string, unknown>): PolicyInput => ({
  operation: 'CREATE',
  typeName: 'Test::Shop::Widget',
  object,
  request: {
    operation: 'CREATE',
    typeName: 'Test::Shop::Widget',
    identifier: '',
    tokenId: 't',
    role: 'writer',
    description: '',
    stack: '',
    dryRun: false,
  },
});
const compiled = (extra: Record<string, unknown>) =>
  compilePolicy(
    readPolicy({
      name: 'p',
      match: { types: ['Test::*'], operations: ['CREATE'] },
      action: 'Deny',
      validations: [{ expression: 'true' }],
      ...extra,
    }),
  );

test('an expression that errors is a verdict under failurePolicy Fail and none under Ignore', () => {
  const reads = { validations: [{ expression: "object.Color == 'red'" }] };
  const [failed] = evaluatePolicies([compiled(reads)], input({}));
  assert.equal(failed?.action, 'Deny');
  assert.equal(failed?.reason, 'EvaluationError');
  assert.match(failed!.message, /could not be evaluated \(validation 0: .*Color/);
  assert.deepEqual(evaluatePolicies([compiled({ ...reads, failurePolicy: 'Ignore' })], input({})), []);
  const condition = compiled({
    matchConditions: [{ name: 'c', expression: 'object.x > 1' }],
    action: 'Warn',
  });
  assert.match(evaluatePolicies([condition], input({}))[0]!.message, /match condition c/);
});

test('a message comes from messageExpression, else message, else the expression; a long one is cut', () => {
  const validation = (v: Record<string, unknown>) =>
    evaluatePolicies([compiled({ validations: [{ expression: 'false', ...v }] })], input({ Name: 'w' }))[0]!
      .message;
  assert.equal(validation({ messageExpression: "'name ' + object.Name" }), 'name w');
  assert.equal(validation({ messageExpression: 'object.Missing', message: 'fallback' }), 'fallback');
  assert.equal(validation({ messageExpression: "''", message: 'fallback' }), 'fallback');
  assert.equal(validation({}), 'failed expression: false');
  const long = evaluatePolicies(
    [compiled({ validations: [{ expression: 'false', messageExpression: 'object.Long' }] })],
    input({ Long: 'y'.repeat(5000) }),
  )[0]!.message;
  assert.equal(long, `${'y'.repeat(1024)}…`);
});

test('a change too large for the budget left is not evaluated, and Fail says so', () => {
  const policy = compiled({ validations: [{ expression: "object.Labels.all(l, l != 'x')" }] });
  const labels = Array.from({ length: 1000 }, (_, i) => `l${i}`);
  assert.deepEqual(evaluatePolicies([policy], input({ Labels: labels })), []);
  const [over] = evaluatePolicies([policy], input({ Labels: labels }), { remaining: 10 });
  assert.match(over!.message, /could not be evaluated.*budget/);
});

test('registration refuses what could never run, and nothing that could: the boundary is the run-time one', () => {
  // Its cost does not depend on the change: the charge on any change is the one registration sees.
  const withIds = (n: number) => ({
    params: { ids: Array.from({ length: n }, (_, i) => `i${i}`) },
    validations: [{ expression: "params.ids.all(x, params.ids.all(y, x + y != ''))" }],
  });
  const registers = (n: number) => {
    try {
      compiled(withIds(n));
      return true;
    } catch (e) {
      assert.match((e as Error).message, /could never run/);
      return false;
    }
  };
  let [fits, over] = [1, 4096];
  while (fits + 1 < over) {
    const n = (fits + over) >> 1;
    if (registers(n)) fits = n;
    else over = n;
  }
  assert.ok(fits > 100, String(fits));
  const budget = { remaining: 10_000_000 };
  assert.deepEqual(evaluatePolicies([compiled(withIds(fits))], input({ Name: 'w' }), budget), []);
  assert.ok(
    budget.remaining < 9_100_000,
    `the largest that registers is charged near the limit: ${budget.remaining}`,
  );
});
