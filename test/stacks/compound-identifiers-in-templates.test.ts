/**
 * Compound identifiers in templates. `Ref` of a resource whose identifier is compound with one part the service makes gives that part,
 * as CloudFormation's does: an API Gateway resource (`RestApiId|ResourceId`) is referred to by its
 * ResourceId (`MyMethod.ResourceId: !Ref MyResource`, the published templates' way), not by the
 * joined pair — which a method's own compound identifier could not even hold. Deployed, planned again
 * with no change, generated back from what exists with the same Ref, on synthesized AWS types.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { refValue } from '../../src/stacks/ref-value.js';
import { startTestService } from '../helpers/service.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const TEMPLATE = stringify({
  Resources: {
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'shop' } },
    Orders: {
      Type: 'AWS::ApiGateway::Resource',
      Properties: {
        RestApiId: { Ref: 'Api' },
        ParentId: { 'Fn::GetAtt': ['Api', 'RootResourceId'] },
        PathPart: 'orders',
      },
    },
    ListOrders: {
      Type: 'AWS::ApiGateway::Method',
      Properties: {
        RestApiId: { Ref: 'Api' },
        ResourceId: { Ref: 'Orders' },
        HttpMethod: 'GET',
        AuthorizationType: 'NONE',
      },
    },
  },
  Outputs: { OrdersRef: { Value: { Ref: 'Orders' } } },
});

test('Ref of a compound identifier with one generated part: the part, as CloudFormation gives it', () => {
  const type = {
    primaryIdentifier: ['/properties/RestApiId', '/properties/ResourceId'],
    readOnlyProperties: ['/properties/ResourceId'],
  };
  assert.equal(refValue(type, 'a1|r9', { RestApiId: 'a1', ResourceId: 'r9' }), 'r9');
  // No generated part (or two): the joined identifier, as the API names it.
  assert.equal(
    refValue({ ...type, readOnlyProperties: [] }, 'a1|r9', { RestApiId: 'a1', ResourceId: 'r9' }),
    'a1|r9',
  );
  assert.equal(
    refValue({ ...type, readOnlyProperties: type.primaryIdentifier }, 'a1|r9', {
      RestApiId: 'a1',
      ResourceId: 'r9',
    }),
    'a1|r9',
  );
  // A single identifier is its own Ref.
  assert.equal(
    refValue({ primaryIdentifier: ['/properties/Id'], readOnlyProperties: ['/properties/Id'] }, 'x', {
      Id: 'x',
    }),
    'x',
  );
});

test(
  'a method refers to its API Gateway resource by the ResourceId: deployed, planned again unchanged, generated with the same Ref',
  { skip: corpusSkip() },
  async (t) => {
    const s = await startTestService({ stateProvider: { synthesize: ['AWS::*'] } });
    t.after(() => s.close());
    for (const name of ['AWS_ApiGateway_RestApi', 'AWS_ApiGateway_Resource', 'AWS_ApiGateway_Method'])
      assert.equal(
        (await s.call('POST', '/v1/types', readFileSync(join(AWS_CORPUS, `${name}.json`), 'utf8'))).status,
        201,
      );
    const put = await s.call('PUT', '/v1/stacks/shop?wait=60', { template: TEMPLATE });
    assert.equal(put.status, 202, JSON.stringify(put.body));
    const stack = put.body.stack;
    assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
    const ids = Object.fromEntries(
      (stack.resources as { logicalId: string; identifier: string }[]).map((r) => [
        r.logicalId,
        r.identifier,
      ]),
    );
    const orders = await s.call(
      'GET',
      `/v1/resources/AWS::ApiGateway::Resource/${encodeURIComponent(ids.Orders!)}`,
    );
    assert.equal(orders.status, 200, JSON.stringify(orders.body));
    const resourceId = orders.body.properties.ResourceId as string;
    assert.ok(ids.Orders!.includes('|') && !resourceId.includes('|'), `${ids.Orders} / ${resourceId}`);
    assert.deepEqual(
      stack.outputs,
      [{ name: 'OrdersRef', value: resourceId }],
      JSON.stringify(stack.outputs),
    );
    const method = await s.call(
      'GET',
      `/v1/resources/AWS::ApiGateway::Method/${encodeURIComponent(ids.ListOrders!)}`,
    );
    assert.equal(method.status, 200, JSON.stringify(method.body));
    assert.equal(method.body.properties.ResourceId, resourceId);

    const again = await s.call('POST', '/v1/stacks/shop/plans', { template: TEMPLATE });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.deepEqual(
      again.body.changes.map((c: { action: string }) => c.action),
      ['NoChange', 'NoChange', 'NoChange'],
    );

    // Made through the API, outside any stack: a template generated from them refers to a resource by
    // Ref where another holds its ResourceId (a child path's ParentId).
    const make = async (typeName: string, desiredState: object) => {
      const made = await s.call('POST', `/v1/resources/${encodeURIComponent(typeName)}?wait=30`, {
        desiredState,
      });
      assert.equal(made.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(made.body));
      const identifier = made.body.progressEvent.identifier as string;
      const read = await s.call(
        'GET',
        `/v1/resources/${encodeURIComponent(typeName)}/${encodeURIComponent(identifier)}`,
      );
      return { identifier, properties: read.body.properties as Record<string, string> };
    };
    const api = (await make('AWS::ApiGateway::RestApi', { Name: 'direct' })).properties;
    const items = await make('AWS::ApiGateway::Resource', {
      RestApiId: api.RestApiId,
      ParentId: api.RootResourceId,
      PathPart: 'items',
    });
    const item = await make('AWS::ApiGateway::Resource', {
      RestApiId: api.RestApiId,
      ParentId: items.properties.ResourceId,
      PathPart: '{id}',
    });
    const generated = await s.call('GET', '/v1/generated-template?types=AWS::ApiGateway::*');
    assert.equal(generated.status, 200, JSON.stringify(generated.body));
    const made = generated.body.resourcesToImport as {
      LogicalResourceId: string;
      ResourceIdentifier: Record<string, string>;
    }[];
    const logical = (identifier: { properties: Record<string, string> }) =>
      made.find((m) => m.ResourceIdentifier.ResourceId === identifier.properties.ResourceId)!
        .LogicalResourceId;
    const resources = generated.body.template.Resources as Record<
      string,
      { Properties: Record<string, unknown> }
    >;
    assert.deepEqual(
      resources[logical(item)]!.Properties.ParentId,
      { Ref: logical(items) },
      JSON.stringify(resources),
    );
    assert.ok(item.identifier.includes('|'));
  },
);

test(
  "a scaling policy given its target's id, not its ScalableDimension, deploys: the dimension is derived, Ref gives the policy's ARN",
  { skip: corpusSkip() },
  async (t) => {
    const s = await startTestService({ stateProvider: { synthesize: ['AWS::*'] } });
    t.after(() => s.close());
    for (const name of [
      'AWS_ApplicationAutoScaling_ScalableTarget',
      'AWS_ApplicationAutoScaling_ScalingPolicy',
    ])
      assert.equal(
        (await s.call('POST', '/v1/types', readFileSync(join(AWS_CORPUS, `${name}.json`), 'utf8'))).status,
        201,
      );
    const template = stringify({
      Resources: {
        Target: {
          Type: 'AWS::ApplicationAutoScaling::ScalableTarget',
          Properties: {
            ServiceNamespace: 'ecs',
            ScalableDimension: 'ecs:service:DesiredCount',
            ResourceId: 'service/shop/orders',
            MinCapacity: 1,
            MaxCapacity: 4,
          },
        },
        Policy: {
          Type: 'AWS::ApplicationAutoScaling::ScalingPolicy',
          Properties: {
            PolicyName: 'orders-cpu',
            PolicyType: 'TargetTrackingScaling',
            ScalingTargetId: { Ref: 'Target' },
          },
        },
      },
      Outputs: { TargetRef: { Value: { Ref: 'Target' } }, PolicyRef: { Value: { Ref: 'Policy' } } },
    });
    const put = await s.call('PUT', '/v1/stacks/scaling?wait=60', { template });
    assert.equal(put.status, 202, JSON.stringify(put.body));
    const stack = put.body.stack;
    assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
    const policyId = (stack.resources as { logicalId: string; identifier: string }[]).find(
      (r) => r.logicalId === 'Policy',
    )!.identifier;
    const policy = await s.call(
      'GET',
      `/v1/resources/AWS::ApplicationAutoScaling::ScalingPolicy/${encodeURIComponent(policyId)}`,
    );
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
    const { Arn, ScalableDimension } = policy.body.properties;
    assert.equal(typeof ScalableDimension, 'string');
    assert.equal(policyId, `${Arn}|${ScalableDimension}`);
    // The target's identifier has no generated part: its Ref is the joined identifier, as in
    // CloudFormation's own example (ScalingTargetId is write-only: the outputs show what it was given).
    assert.deepEqual(
      Object.fromEntries((stack.outputs as { name: string; value: string }[]).map((o) => [o.name, o.value])),
      { TargetRef: 'service/shop/orders|ecs:service:DesiredCount|ecs', PolicyRef: Arn },
    );
  },
);
