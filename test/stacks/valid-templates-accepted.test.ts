/**
 * Forms published templates use that CloudFormation takes and Typeplane refused: each validates,
 * deploys over real HTTP with the values CloudFormation would give, and plans again with no change.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestService, WIDGET, type TestService } from '../helpers/service.js';
import { GADGET } from './helpers.js';

let s: TestService;
before(async () => {
  s = await startTestService();
  for (const type of [WIDGET, GADGET]) assert.equal((await s.call('POST', '/v1/types', type)).status, 201);
});
after(() => s?.close());

/** Validate, deploy, plan again (no change), and answer the deployed stack. */
async function deploysClean(name: string, template: string, parameters: Record<string, string> = {}) {
  const validated = await s.call('POST', '/v1/stacks/validate', { template, parameters });
  assert.equal(validated.body.valid, true, JSON.stringify(validated.body.diagnostics));
  const put = await s.call('PUT', `/v1/stacks/${name}?wait=20`, { template, parameters });
  assert.equal(put.body.stack?.status, 'CREATE_COMPLETE', JSON.stringify(put.body));
  const plan = await s.call('POST', `/v1/stacks/${name}/plans`, { template, parameters });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.deepEqual(
    plan.body.changes.map((c: { action: string }) => c.action),
    plan.body.changes.map(() => 'NoChange'),
    JSON.stringify(plan.body.changes),
  );
  return put.body.stack;
}

const outputsOf = (stack: { outputs: { name: string; value: unknown }[] }) =>
  Object.fromEntries(stack.outputs.map((o) => [o.name, o.value]));

test('AWS::StackId is an ARN whose last part is the stack UUID: !Select [2, !Split [/, …]] finds it', async () => {
  const template = `
Resources:
  W:
    Type: Test::Shop::Widget
    Properties:
      Name: !Join ['-', [w, !Select [0, !Split ['-', !Select [2, !Split ['/', !Ref AWS::StackId]]]]]]
Outputs:
  Id: { Value: !Ref AWS::StackId }
  Uuid: { Value: !Select [2, !Split ['/', !Ref AWS::StackId]] }
  InSub: { Value: !Sub '\${AWS::StackId}' }
`;
  const planned = await s.call('POST', '/v1/stacks/ids/plans', { template });
  assert.equal(
    planned.body.changes[0].properties.Name,
    '(known after apply)',
    'unknown before the stack exists',
  );
  const stack = await deploysClean('ids', template);
  const uuid = stack.stackId.split('/').at(-1);
  const outputs = outputsOf(stack);
  assert.equal(outputs.Id, `arn:aws:cloudformation:us-east-1:123456789012:stack/ids/${uuid}`);
  assert.equal(outputs.InSub, outputs.Id);
  assert.equal(outputs.Uuid, uuid);
  assert.equal(stack.resources[0].identifier, `w-${uuid.split('-')[0]}`);
});
