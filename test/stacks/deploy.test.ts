import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';
import { GADGET } from './helpers.js';

async function service(t: import('node:test').TestContext) {
  const s = await startTestService();
  t.after(() => s.close());
  for (const doc of [WIDGET, GADGET]) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  return s;
}

const TEMPLATE = `
Parameters:
  Prefix: { Type: String, Default: shop }
  Sizes: { Type: CommaDelimitedList, Default: "S,M,L" }
Conditions:
  Big: !Equals [!Select [2, !Ref Sizes], L]
Resources:
  First:
    Type: Test::Shop::Widget
    Properties:
      Name: !Sub "\${Prefix}-first"
      Size: !Select [1, !Ref Sizes]
  Gadget:
    Type: Test::Shop::Gadget
    Properties:
      WidgetName: !Ref First
      Note: !Join ["/", [!GetAtt First.Name, !Ref "AWS::Region", !If [Big, big, small]]]
Outputs:
  GadgetId:
    Value: !GetAtt Gadget.GadgetId
  Note:
    Value: !GetAtt Gadget.Note
`;

test('a stack deploys its resources in order and resolves its outputs', async (t) => {
  const s = await service(t);
  const put = await s.call('PUT', '/v1/stacks/shop?wait=20', { template: TEMPLATE });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  const outputs = Object.fromEntries(put.body.stack.outputs.map((o: any) => [o.name, o.value]));
  assert.equal(outputs.Note, 'shop-first/us-east-1/big');
  const gadget = await s.call('GET', `/v1/resources/Test::Shop::Gadget/${outputs.GadgetId}`);
  assert.equal(gadget.body.properties.WidgetName, 'shop-first');
  const events = await s.call('GET', '/v1/stacks/shop/events');
  assert.deepEqual(
    events.body.events.map((e: any) => `${e.logicalId} ${e.status}`),
    [
      'shop CREATE_IN_PROGRESS',
      'First CREATE_IN_PROGRESS',
      'First CREATE_COMPLETE',
      'Gadget CREATE_IN_PROGRESS',
      'Gadget CREATE_COMPLETE',
      'shop CREATE_COMPLETE',
    ],
  );
});

test('every intrinsic function and pseudo parameter resolves on a real deployment', async (t) => {
  const s = await service(t);
  const exporter = `
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: exported }
Outputs:
  Name:
    Value: !Ref W
    Export: { Name: shared-widget-name }
`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/exporter?wait=20', { template: exporter })).body.stack.status,
    'CREATE_COMPLETE',
  );
  // Fn::ToJsonString and FindInMap's DefaultValue are the language extensions': CloudFormation takes
  // them only under the transform.
  const template = `
Transform: AWS::LanguageExtensions
Parameters:
  Env: { Type: String, Default: prod, AllowedValues: [dev, prod] }
  Ports: { Type: "List<Number>", Default: "80,443" }
Mappings:
  Sizes:
    prod: { Widget: L }
    dev: { Widget: S }
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  IsDev: !Not [!Condition IsProd]
  Both: !And [!Condition IsProd, !Equals [a, a]]
  Either: !Or [!Condition IsDev, !Condition Both]
Resources:
  W:
    Type: Test::Shop::Widget
    Properties:
      Name: !Join ["-", [w, !Ref Env]]
      Size: !FindInMap [Sizes, !Ref Env, Widget]
      Color: !If [IsDev, blue, !Ref "AWS::NoValue"]
      Labels: !Split [",", "a,b,c"]
  G:
    Type: Test::Shop::Gadget
    Properties:
      WidgetName: !Ref W
      Note: !Sub
        - "\${W}:\${W.Size}:\${Port}:\${!Literal}"
        - Port: !Select [1, !Ref Ports]
  Dev:
    Type: Test::Shop::Widget
    Condition: IsDev
    Properties: { Name: never }
Outputs:
  Ref: { Value: !Ref W }
  GetAtt: { Value: !GetAtt W.Size }
  Sub: { Value: !GetAtt G.Note }
  SubShort: { Value: !Sub "\${AWS::StackName}|\${AWS::Region}|\${AWS::AccountId}|\${AWS::Partition}|\${AWS::URLSuffix}" }
  StackId: { Value: !Ref "AWS::StackId" }
  Join: { Value: !Join [",", !GetAtt W.Labels] }
  Select: { Value: !Select [2, !Split [",", "x,y,z"]] }
  If: { Value: !If [Either, yes, no] }
  Base64: { Value: !Base64 "hello" }
  ToJson: { Value: !ToJsonString { a: [1, !Ref Env] } }
  Import: { Value: !ImportValue shared-widget-name }
  FindDefault: { Value: !FindInMap [Sizes, staging, Widget, { DefaultValue: M }] }
  AZ: { Value: !Select [0, !GetAZs ""] }
  DevOnly: { Condition: IsDev, Value: !Ref Dev }
`;
  const put = await s.call('PUT', '/v1/stacks/all?wait=20', { template });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  const outputs = Object.fromEntries(put.body.stack.outputs.map((o: any) => [o.name, o.value]));
  assert.equal(outputs.Ref, 'w-prod');
  assert.equal(outputs.GetAtt, 'L');
  assert.equal(outputs.Sub, 'w-prod:L:443:${Literal}');
  assert.equal(outputs.SubShort, 'all|us-east-1|123456789012|aws|amazonaws.com');
  assert.match(outputs.StackId, /^arn:aws:cloudformation:us-east-1:123456789012:stack\/all\/[0-9a-f-]{36}$/);
  assert.equal(outputs.Join, 'a,b,c');
  assert.equal(outputs.Select, 'z');
  assert.equal(outputs.If, 'yes');
  assert.equal(outputs.Base64, 'aGVsbG8=');
  assert.equal(outputs.ToJson, '{"a":[1,"prod"]}');
  assert.equal(outputs.Import, 'exported');
  assert.equal(outputs.FindDefault, 'M');
  assert.equal(outputs.AZ, 'us-east-1a');
  assert.equal(outputs.DevOnly, undefined, 'an output under a false condition is left out');
  const widget = await s.call('GET', '/v1/resources/Test::Shop::Widget/w-prod');
  assert.equal(widget.body.properties.Color, undefined, 'AWS::NoValue removed the property');
  assert.deepEqual(
    put.body.stack.resources.map((r: any) => r.logicalId).sort(),
    ['G', 'W'],
    'a resource under a false condition is not created',
  );
});
