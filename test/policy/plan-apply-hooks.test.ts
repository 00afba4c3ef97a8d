/**
 * A stored plan applied unchanged keeps the verdicts its hooks gave it: a CHANGE_SET hook (served
 * with defineHook, counting its calls) is called once when the plan is made and not again when it
 * is applied — the deployment goes ahead on the plan's pass, or is refused with the plan's denial
 * before anything is created, as executing a CloudFormation change set does not run its change-set
 * hooks again. A plan that no longer matches what applying it would do is reviewed again. Over
 * real HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineHook, hookProgress } from '../../src/providers/sdk.js';
import { serviceOn } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const HOOK = 'Test::Hooks::Planned';
/** The names of the widgets the hook was asked about, a call each. */
const asked: string[] = [];
const planned = defineHook({
  typeName: HOOK,
  async preCreate({ target }) {
    const name = String(target.properties.Name);
    asked.push(name);
    return name.startsWith('bad') ? hookProgress.failed(`${name} is not allowed`) : hookProgress.success();
  },
});

const schema = JSON.stringify({
  typeName: HOOK,
  description: 'judges plans only, counting its calls',
  typeConfiguration: { properties: {}, additionalProperties: false },
  handlers: { preCreate: { targetNames: [WIDGET_TYPE], permissions: [] } },
  additionalProperties: false,
});

const template = (name: string) =>
  `Resources:\n  W: { Type: ${WIDGET_TYPE}, Properties: { Name: ${name} } }\n`;

test('a plan applied unchanged does not call its CHANGE_SET hooks again, and keeps their verdicts', async (t) => {
  const svc = await serviceOn(t, 'sqlite', { hookServers: [planned] });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  assert.equal((await svc.call('POST', '/v1/hooks', schema)).status, 201);
  const configured = await svc.call('PUT', `/v1/hooks/${HOOK}/configuration`, {
    CloudFormationConfiguration: {
      HookConfiguration: {
        HookInvocationStatus: 'ENABLED',
        FailureMode: 'FAIL',
        TargetOperations: ['CHANGE_SET'],
      },
    },
  });
  assert.equal(configured.status, 200, JSON.stringify(configured.body));

  const plan = await svc.call('POST', '/v1/stacks/fine/plans', { template: template('good-one') });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.deepEqual(asked, ['good-one']);
  const applied = await svc.call('POST', `/v1/stacks/fine/plans/${plan.body.planId}/apply?wait=20`);
  assert.equal(applied.status, 202, JSON.stringify(applied.body));
  assert.equal(applied.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(applied.body));
  assert.deepEqual(asked, ['good-one'], 'applying the plan called the hook again');

  const denied = await svc.call('POST', '/v1/stacks/denied/plans', { template: template('bad-one') });
  assert.equal(denied.status, 201, JSON.stringify(denied.body));
  assert.equal(denied.body.changes[0].verdicts[0].action, 'Deny');
  const refused = await svc.call('POST', `/v1/stacks/denied/plans/${denied.body.planId}/apply`);
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.deepEqual(
    refused.body.details.map((d: any) => [d.logicalId, d.name, d.message]),
    [['W', HOOK, 'bad-one is not allowed']],
  );
  assert.deepEqual(asked, ['good-one', 'bad-one']);
  assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/bad-one`)).status, 404);

  // A deployment without a stored plan is judged as a plan is, at once.
  const deployed = await svc.call('PUT', '/v1/stacks/direct?wait=20', { template: template('good-two') });
  assert.equal(deployed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(deployed.body));
  assert.deepEqual(asked, ['good-one', 'bad-one', 'good-two']);
});
