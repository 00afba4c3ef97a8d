/**
 * `!GetAtt [Resource, !Ref Parameter]` outside loops, as CloudFormation allows a Ref to a parameter
 * as GetAtt's attribute, over real HTTP: the attribute is the parameter's value when the template is
 * evaluated (an output and another resource's property read it, the reader made after the resource),
 * validate does not refuse it for the attribute it cannot know yet, and an attribute the resource
 * does not have fails the deployment at the GetAtt, saying which.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestService, WIDGET, type TestService } from '../helpers/service.js';

const TEMPLATE = `
Parameters:
  Attribute: { Type: String, Default: Color }
Resources:
  Source:
    Type: Test::Shop::Widget
    Properties: { Name: !Sub '\${AWS::StackName}-source', Color: teal }
  Reader:
    Type: Test::Shop::Widget
    Properties:
      Name: !Sub '\${AWS::StackName}-reader'
      Color: !GetAtt [Source, !Ref Attribute]
Outputs:
  Read:
    Value: !GetAtt [Source, !Ref Attribute]
`;

let s: TestService;
before(async () => {
  s = await startTestService();
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => s?.close());

test("GetAtt's attribute named by a Ref to a parameter is read as the parameter's value", async () => {
  const validated = await s.call('POST', '/v1/stacks/validate', { template: TEMPLATE });
  assert.equal(validated.body.valid, true, JSON.stringify(validated.body));
  const put = await s.call('PUT', '/v1/stacks/named?wait=20', { template: TEMPLATE });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  assert.deepEqual(
    put.body.stack.outputs.map((o: { name: string; value: unknown }) => [o.name, o.value]),
    [['Read', 'teal']],
  );
  const reader = await s.call('GET', '/v1/resources/Test::Shop::Widget/named-reader');
  assert.equal(reader.body.properties.Color, 'teal', 'made after Source, with its attribute');

  const wrong = await s.call('PUT', '/v1/stacks/wrong?wait=20', {
    template: TEMPLATE,
    parameters: { Attribute: 'Shade' },
  });
  assert.equal(wrong.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(wrong.body.stack));
  const events = (await s.call('GET', '/v1/stacks/wrong/events')).body.events;
  const failed = events.find((e: any) => e.logicalId === 'Reader' && e.status === 'CREATE_FAILED');
  assert.match(
    failed?.reason ?? JSON.stringify(events),
    /Fn::GetAtt Source\.Shade: Source \(wrong-source\) has no value for 'Shade'/,
  );
});
