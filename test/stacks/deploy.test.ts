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
