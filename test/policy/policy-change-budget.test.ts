/**
 * What a change's admission policies may cost in all, over real HTTP: each policy has a budget of its
 * own and the change a total, so a hostile set of policies and a change built to make them costly
 * evaluate two expressions' worth and are refused for the rest (their failurePolicy, Fail), naming
 * the budget that ran out. The server lets the event loop run between expressions: /healthz
 * answers while the change is being judged.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CALL_COST_LIMIT } from '../../src/cel/index.js';
import { CHANGE_COST_BUDGET, POLICY_COST_BUDGET } from '../../src/policy/evaluate.js';
import { serviceOn } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

/** Charged about 800,000 units on 400 labels (each pair makes a list): just under the per-call limit. */
const COSTLY = 'object.Labels.all(x, object.Labels.map(y, [x, y]).size() > 0)';
const LABELS = Array.from({ length: 400 }, (_, i) => `label-${i}`);

test('a change’s policies cost at most the change’s budget, each policy its own, and /healthz answers meanwhile', async (t) => {
  assert.ok(POLICY_COST_BUDGET <= CHANGE_COST_BUDGET && CALL_COST_LIMIT <= POLICY_COST_BUDGET);
  const svc = await serviceOn(t, 'sqlite');
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  for (const name of ['a', 'b', 'c', 'd']) {
    const made = await svc.call('POST', '/v1/policies', {
      name,
      match: { types: [WIDGET_TYPE], operations: ['CREATE'] },
      validations: [{ expression: COSTLY }, { expression: COSTLY }],
      action: 'Deny',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  }

  const judged = svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
    desiredState: { Name: 'costly', Labels: LABELS },
  });
  let done = false;
  void judged.finally(() => (done = true));
  let answeredMeanwhile = 0;
  while (!done) {
    const health = await svc.call('GET', '/healthz');
    assert.equal(health.status, 200);
    if (!done) answeredMeanwhile++;
  }
  const refused = await judged;
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  const said: [string, string, string][] = refused.body.details.map((d: any) => [
    d.name,
    d.reason,
    d.message,
  ]);
  assert.deepEqual(
    said.map(([name, reason]) => `${name} ${reason}`),
    ['a', 'b', 'c', 'c', 'd', 'd'].map((name) => `${name} EvaluationError`),
  );
  // a and b each evaluate their first validation (true) within their own budget, not the second;
  // then the change has too little left for anything of c's or d's.
  for (const [name, , message] of said.slice(0, 2))
    assert.match(
      message,
      new RegExp(
        `^the policy could not be evaluated \\(validation 1: evaluating it on these values could cost \\d+ units, more than the \\d+ left of policy ${name}'s budget of ${POLICY_COST_BUDGET}; make the values smaller\\); its failurePolicy is Fail$`,
      ),
    );
  for (const [, , message] of said.slice(2))
    assert.match(message, new RegExp(`left of the change's policy budget of ${CHANGE_COST_BUDGET};`));
  assert.ok(answeredMeanwhile > 0, '/healthz answered while the change was judged');
});
