/**
 * One admission policy, one denial, seen the same on every path that changes a resource, over real
 * HTTP on each store: `/v1` answers 403 with the verdict; Cloud Control (the real AWS SDK, SigV4)
 * answers as AWS answers a hook's failure — the operation FAILED with the policy's message, kept so
 * GetResourceRequestStatus tells it too — and a stack's plan shows the verdict on its resource, while
 * deploying that template fails before anything is created. Warnings show on a plan's resource too.
 */
import assert from 'node:assert/strict';
import { CreateResourceCommand, GetResourceRequestStatusCommand } from '@aws-sdk/client-cloudcontrol';
import { cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { eachStoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const NO_RED = {
  name: 'no-red',
  match: { types: ['Test::Shop::*'], operations: ['CREATE', 'UPDATE'] },
  validations: [
    { expression: "!has(object.Color) || object.Color != 'red'", message: 'red is not sold here' },
  ],
  action: 'Deny',
};
const WANT_COUNT = {
  name: 'want-count',
  match: { types: ['*'], operations: ['CREATE'] },
  validations: [{ expression: 'has(object.Count) || request.dryRun == false', message: 'plan a Count' }],
  action: 'Warn',
};
const BLUE_NOTED = {
  name: 'blue-noted',
  match: { types: ['*'], operations: ['CREATE'] },
  validations: [{ expression: "!has(object.Color) || object.Color != 'blue'", message: 'blue is noted' }],
  action: 'Warn',
};
const verdict = { source: 'policy', name: 'no-red', action: 'Deny', message: 'red is not sold here' };

eachStoreService('the same denial through /v1, Cloud Control and a stack plan', async (svc) => {
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  for (const p of [NO_RED, WANT_COUNT, BLUE_NOTED])
    assert.equal((await svc.call('POST', '/v1/policies', p)).status, 201);

  const v1 = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
    desiredState: { Name: 'r1', Color: 'red' },
  });
  assert.equal(v1.status, 403);
  assert.deepEqual(v1.body.details, [verdict]);

  const keys = await issueKeys(svc, 'writer');
  const client = cloudControl(svc.url, keys);
  const made = await client.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: 'r1', Color: 'red' }),
    }),
  );
  const event = made.ProgressEvent!;
  assert.equal(event.OperationStatus, 'FAILED');
  assert.equal(event.ErrorCode, 'AccessDenied');
  assert.match(event.StatusMessage!, /policy no-red: red is not sold here/);
  assert.equal(event.HooksRequestToken, event.RequestToken);
  const status = await client.send(new GetResourceRequestStatusCommand({ RequestToken: event.RequestToken }));
  assert.equal(status.ProgressEvent?.OperationStatus, 'FAILED');
  assert.equal(status.ProgressEvent?.StatusMessage, event.StatusMessage);
  // As AWS lists a hook that failed in mode FAIL; the SDK parses it.
  assert.deepEqual(
    status.HooksProgressEvent?.map(({ HookEventTime, ...rest }) => {
      assert.ok(HookEventTime instanceof Date && !Number.isNaN(HookEventTime.getTime()));
      return rest;
    }),
    [
      {
        HookTypeName: 'policy/no-red',
        InvocationPoint: 'PRE_PROVISION',
        HookStatus: 'HOOK_COMPLETE_FAILED',
        HookStatusMessage: 'red is not sold here',
        FailureMode: 'FAIL',
      },
    ],
  );
  const denied = await svc.call('GET', `/v1/requests/${event.RequestToken}`);
  assert.deepEqual(denied.body.progressEvent.deniedBy, [verdict]);
  assert.equal(denied.body.progressEvent.warnings, undefined);
  // A warning is listed as a hook that failed in mode WARN, the operation going on.
  const blue = await client.send(
    new CreateResourceCommand({
      TypeName: WIDGET_TYPE,
      DesiredState: JSON.stringify({ Name: 'b1', Color: 'blue', Count: 1 }),
    }),
  );
  const cautioned = await client.send(
    new GetResourceRequestStatusCommand({ RequestToken: blue.ProgressEvent!.RequestToken }),
  );
  assert.notEqual(cautioned.ProgressEvent?.OperationStatus, 'FAILED');
  assert.deepEqual(
    cautioned.HooksProgressEvent?.map((h) => [h.HookTypeName, h.HookStatusMessage, h.FailureMode]),
    [['policy/blue-noted', 'blue is noted', 'WARN']],
  );
  assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/r1`)).status, 404, 'nothing was created');

  const template = `
Resources:
  Fine: { Type: Test::Shop::Widget, Properties: { Name: fine, Count: 1 } }
  Red: { Type: Test::Shop::Widget, Properties: { Name: red-one, Color: red } }
`;
  const plan = await svc.call('POST', '/v1/stacks/shop/plans', { template });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const byId = Object.fromEntries(plan.body.changes.map((c: any) => [c.logicalId, c]));
  assert.deepEqual(byId.Red.verdicts, [
    verdict,
    { source: 'policy', name: 'want-count', action: 'Warn', message: 'plan a Count' },
  ]);
  assert.equal(byId.Fine.verdicts, undefined);
  const deployed = await svc.call('PUT', '/v1/stacks/shop', { template });
  assert.equal(deployed.status, 403, JSON.stringify(deployed.body));
  assert.deepEqual(
    deployed.body.details.filter((d: any) => d.action === 'Deny'),
    [{ ...verdict, logicalId: 'Red' }],
  );
  assert.equal((await svc.call('GET', '/v1/stacks/shop')).status, 404, 'no stack was made');
  assert.equal(
    (await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/fine`)).status,
    404,
    'nothing was created',
  );
  // Without the red widget, the deployment goes through; its resources were reviewed as the stack's.
  const fixed = await svc.call('PUT', '/v1/stacks/shop?wait=20', {
    template: template.replace('Color: red', 'Color: blue'),
  });
  assert.equal(fixed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(fixed.body));
  // A warning at deploy time is on the resource's events.
  const { events } = (await svc.call('GET', '/v1/stacks/shop/events')).body;
  const warned = events.find((e: any) => e.logicalId === 'Red' && e.verdicts);
  assert.deepEqual(warned?.verdicts, [
    { source: 'policy', name: 'blue-noted', action: 'Warn', message: 'blue is noted' },
  ]);
  assert.equal(warned?.status, 'CREATE_IN_PROGRESS');
});

eachStoreService(
  'a plan shows the type’s rules too; a deployment they refuse answers 400 before anything runs',
  async (svc) => {
    const ruled = JSON.parse(WIDGET) as Record<string, unknown>;
    ruled.typeName = 'Test::Shop::Ruled';
    ruled['x-typeplane-validations'] = [
      { rule: '!has(self.Count) || self.Count <= 10', message: 'at most 10' },
    ];
    assert.equal((await svc.call('POST', '/v1/types', ruled)).status, 201);
    const template =
      'Resources:\n  Many: { Type: Test::Shop::Ruled, Properties: { Name: many, Count: 20 } }\n';
    const plan = await svc.call('POST', '/v1/stacks/ruled/plans', { template });
    assert.equal(plan.status, 201, JSON.stringify(plan.body));
    const [rule] = plan.body.changes[0].verdicts;
    assert.equal(rule.source, 'rule');
    assert.equal(rule.message, 'at most 10');
    const deployed = await svc.call('PUT', '/v1/stacks/ruled', { template });
    assert.equal(deployed.status, 400, JSON.stringify(deployed.body));
    assert.equal(deployed.body.details[0].logicalId, 'Many');
    assert.equal((await svc.call('GET', '/v1/stacks/ruled')).status, 404);
  },
);
