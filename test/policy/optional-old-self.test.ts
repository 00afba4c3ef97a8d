/**
 * `optionalOldSelf: true` as docs/policy.md describes it, over real HTTP: the CEL library parses no
 * optionals, so `oldSelf` is `null` where there is no value before (a create, a value an update
 * adds) and the value before otherwise. A rule guarded with `oldSelf == null` judges creates and
 * updates; an unguarded one is refused at registration (as Kubernetes' type checker refuses it, its
 * `oldSelf` an optional), located at the read with how to guard it; Kubernetes' optional functions
 * are refused at registration, located.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceOn } from '../helpers/each-store.js';

const T = 'Test::Rules::Grower';
const schema = (sizeRule: string, countRule = 'oldSelf == null || self >= oldSelf') => ({
  typeName: T,
  description: 'A size that may only grow, checked on creates too.',
  additionalProperties: false,
  properties: {
    Name: { type: 'string' },
    Size: {
      type: 'integer',
      'x-kubernetes-validations': [
        { rule: sizeRule, message: 'Size may only grow, from 1', optionalOldSelf: true },
      ],
    },
    Count: {
      type: 'integer',
      'x-kubernetes-validations': [{ rule: countRule, optionalOldSelf: true }],
    },
  },
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});

test('optionalOldSelf binds oldSelf to null where there is no value before; optional functions are refused', async (t) => {
  const svc = await serviceOn(t, 'sqlite');
  const optional = await svc.call('POST', '/v1/types', schema('oldSelf.orValue(1) <= self'));
  assert.equal(optional.status, 400);
  assert.match(JSON.stringify(optional.body), /TP9002.*undeclared reference to function 'orValue'/);

  const made = await svc.call('POST', '/v1/types', schema('(oldSelf == null ? 1 : oldSelf) <= self'));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const create = (desiredState: unknown) => svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState });
  const patch = (value: unknown) =>
    svc.call('PATCH', `/v1/resources/${T}/g1?wait=5`, {
      patchDocument: [{ op: 'add', path: '/Size', value }],
    });

  assert.equal((await create({ Name: 'g0', Size: 0 })).status, 400, 'a create is judged, oldSelf null');
  assert.equal((await create({ Name: 'g1', Size: 2 })).status, 202);
  assert.deepEqual(
    (await patch(1)).body.details.map((d: any) => [d.pointer, d.message]),
    [['/Size', 'Size may only grow, from 1']],
  );
  assert.equal((await patch(3)).status, 202);

  assert.equal((await create({ Name: 'g2', Count: 1 })).status, 202, 'the guarded rule passes a create');
});

test('optionalOldSelf refuses at registration a rule that reads oldSelf unguarded, located at the read', async (t) => {
  const svc = await serviceOn(t, 'sqlite');
  const guard = /TP9002.*oldSelf is read without a null guard.*'oldSelf == null \|\| self >= oldSelf'/;
  for (const [rule, column] of [
    ['self >= oldSelf', 9],
    ['self == oldSelf', 9],
    ['(oldSelf == null && self > 0) || self >= oldSelf', 42],
  ] as const) {
    const refused = await svc.call('POST', '/v1/types', schema('oldSelf == null || self >= oldSelf', rule));
    assert.equal(refused.status, 400, rule);
    const [detail] = refused.body.details;
    assert.equal(detail.pointer, '/properties/Count/x-kubernetes-validations/0/rule', rule);
    assert.match(`${detail.rule} ${detail.message}`, guard, rule);
    assert.match(detail.message, new RegExp(`column ${column} of the expression`), rule);
  }
  // Guards on either side of || and &&, in a conditional, and negated, all register.
  for (const [i, rule] of [
    'self >= oldSelf || oldSelf == null',
    'oldSelf != null && self >= oldSelf || oldSelf == null',
    '!(oldSelf == null) ? self >= oldSelf : true',
    'self > 0 && (null == oldSelf || self >= oldSelf)',
  ].entries()) {
    const made = await svc.call('POST', '/v1/types', {
      ...schema('oldSelf == null || self >= oldSelf', rule),
      typeName: `Test::Rules::Guarded${i}`,
    });
    assert.equal(made.status, 201, `${rule}: ${JSON.stringify(made.body)}`);
  }
});
