/**
 * A hook's TargetOperations name the paths whose changes it judges, as CloudFormation's do: without
 * them (RESOURCE) it judges changes made through /v1 and by stacks' deployments and their plans,
 * not those made through Cloud Control; CLOUD_CONTROL only Cloud Control's (read by the AWS SDK);
 * STACK only stacks' deployments and plans; CHANGE_SET only plans. Over real HTTP on both stores,
 * the hook served with defineHook.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { CreateResourceCommand } from '@aws-sdk/client-cloudcontrol';
import { defineHook, hookProgress } from '../../src/providers/sdk.js';
import { cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { eachStoreService, type StoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const HOOK = 'Test::Hooks::Paths';

/** The names of the resources the hook was asked about, with the stack that asked when one did. */
const seen: string[] = [];
const paths = defineHook({
  typeName: HOOK,
  async preCreate({ target, caller }) {
    seen.push(`${String(target.properties.Name)}${caller?.stack ? ` (stack ${caller.stack})` : ''}`);
    return hookProgress.success();
  },
});

const schema = JSON.stringify({
  typeName: HOOK,
  description: 'records the paths it is asked on',
  typeConfiguration: { properties: {}, additionalProperties: false },
  handlers: { preCreate: { targetNames: [WIDGET_TYPE], permissions: [] } },
  additionalProperties: false,
});

/** Each path's change of one new widget, named after the path and `round`, the hook's answers seen. */
async function judged(svc: StoreService, t: TestContext, round: string): Promise<string[]> {
  seen.length = 0;
  const v1 = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=5`, {
    desiredState: { Name: `v1-${round}` },
  });
  assert.equal(v1.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(v1.body));

  const template = (name: string) =>
    `Resources:\n  W: { Type: ${WIDGET_TYPE}, Properties: { Name: ${name} } }\n`;
  const plan = await svc.call('POST', `/v1/stacks/plan-${round}/plans`, {
    template: template(`plan-${round}`),
  });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const deployed = await svc.call('PUT', `/v1/stacks/stack-${round}?wait=20`, {
    template: template(`stack-${round}`),
  });
  assert.equal(deployed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(deployed.body));

  const cc = cloudControl(svc.url, await issueKeys(svc, 'writer'));
  t.after(() => cc.destroy());
  const { ProgressEvent: event } = await cc.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: `cc-${round}` }),
    }),
  );
  assert.notEqual(event!.OperationStatus, 'FAILED', event!.StatusMessage);
  // A stack's deployment checks its plan again before it begins, so its resource may be seen twice.
  return [...new Set(seen)];
}

async function configure(svc: StoreService, targetOperations?: string[]): Promise<void> {
  const put = await svc.call('PUT', `/v1/hooks/${HOOK}/configuration`, {
    CloudFormationConfiguration: {
      HookConfiguration: {
        HookInvocationStatus: 'ENABLED',
        FailureMode: 'FAIL',
        ...(targetOperations ? { TargetOperations: targetOperations } : {}),
      },
    },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
}

eachStoreService(
  'a hook judges the paths its TargetOperations name: RESOURCE by default, Cloud Control only when named',
  async (svc, t) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    assert.equal((await svc.call('POST', '/v1/hooks', schema)).status, 201);

    await configure(svc);
    assert.deepEqual(await judged(svc, t, 'a'), ['v1-a', 'plan-a (stack plan-a)', 'stack-a (stack stack-a)']);

    await configure(svc, ['CLOUD_CONTROL']);
    assert.deepEqual(await judged(svc, t, 'b'), ['cc-b']);

    await configure(svc, ['STACK']);
    assert.deepEqual(await judged(svc, t, 'c'), ['plan-c (stack plan-c)', 'stack-c (stack stack-c)']);

    await configure(svc, ['CHANGE_SET']);
    const planned = await judged(svc, t, 'd');
    assert.ok(planned.includes('plan-d (stack plan-d)'), planned.join(', '));
    assert.ok(!planned.includes('v1-d') && !planned.includes('cc-d'), planned.join(', '));

    await configure(svc, ['RESOURCE', 'CLOUD_CONTROL']);
    const listed = await svc.call('GET', `/v1/hooks/${HOOK}`);
    assert.deepEqual(listed.body.targetOperations, ['RESOURCE', 'CLOUD_CONTROL']);
    assert.deepEqual(await judged(svc, t, 'e'), [
      'v1-e',
      'plan-e (stack plan-e)',
      'stack-e (stack stack-e)',
      'cc-e',
    ]);

    const wrong = await svc.call('PUT', `/v1/hooks/${HOOK}/configuration`, {
      CloudFormationConfiguration: {
        HookConfiguration: {
          HookInvocationStatus: 'ENABLED',
          FailureMode: 'FAIL',
          TargetOperations: ['STACKS'],
        },
      },
    });
    assert.equal(wrong.status, 400);
    assert.match(
      wrong.body.message,
      /TargetOperations must list at least one of RESOURCE, STACK, CHANGE_SET, CLOUD_CONTROL/,
    );
  },
  () => ({ hookServers: [paths] }),
);
