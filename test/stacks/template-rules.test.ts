/**
 * A template's Rules section is checked as CloudFormation checks it: a deploy whose parameters break
 * an assertion is refused with its AssertDescription, located at the Assert, before anything is made;
 * a RuleCondition that does not hold skips its rule; Fn::ValueOf (an account's attribute) is said to
 * be unchecked; a malformed rule is located. Over real HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';

// As the published VPCFlowLogs template's rule, on a type of the test registry.
const TEMPLATE = `
Parameters:
  ToCloudWatch: { Type: String, AllowedValues: ['Yes', 'No'], Default: 'No' }
  ToS3: { Type: String, AllowedValues: ['Yes', 'No'], Default: 'No' }
  Env: { Type: String, Default: dev }
  Zones: { Type: CommaDelimitedList, Default: 'a,b' }
Rules:
  SomewhereToLog:
    Assertions:
      - Assert: !Or [!Equals [!Ref ToCloudWatch, 'Yes'], !Equals [!Ref ToS3, 'Yes']]
        AssertDescription: set ToCloudWatch and/or ToS3 to Yes
  ProdZones:
    RuleCondition: !Equals [!Ref Env, prod]
    Assertions:
      - Assert: !EachMemberIn [!Ref Zones, [a, b, c]]
        AssertDescription: prod runs in zones a, b and c only
      - Assert: { 'Fn::Contains': [!Ref Zones, c] }
        AssertDescription: prod needs zone c
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: ruled, Size: M }
`;

test('a deploy whose parameters break a rule is refused with its description, and nothing is made', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const refused = await s.call('PUT', '/v1/stacks/ruled?wait=20', { template: TEMPLATE });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  const failed = refused.body.details.find((d: any) => d.rule === 'TP4028');
  assert.ok(failed, JSON.stringify(refused.body));
  assert.match(failed.message, /rule SomewhereToLog .*set ToCloudWatch and\/or ToS3 to Yes/);
  assert.equal(failed.pointer, '/Rules/SomewhereToLog/Assertions/0/Assert');
  assert.equal(failed.line, 10, 'located at the Assert as written');
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Widget/ruled')).status, 404);

  // The rule holds; ProdZones' condition does not (Env is dev): deployed.
  const ok = await s.call('PUT', '/v1/stacks/ruled?wait=20', {
    template: TEMPLATE,
    parameters: { ToS3: 'Yes' },
  });
  assert.equal(ok.body.stack?.status, 'CREATE_COMPLETE', JSON.stringify(ok.body));

  // prod: both of ProdZones' assertions are checked, and the second fails.
  const prod = await s.call('POST', '/v1/stacks/ruled/plans', {
    template: TEMPLATE,
    parameters: { ToS3: 'Yes', Env: 'prod', Zones: 'a,b' },
  });
  assert.equal(prod.status, 400, JSON.stringify(prod.body));
  assert.deepEqual(
    prod.body.details.filter((d: any) => d.rule === 'TP4028').map((d: any) => d.pointer),
    ['/Rules/ProdZones/Assertions/1/Assert'],
  );
  const prodOk = await s.call('POST', '/v1/stacks/ruled/plans', {
    template: TEMPLATE,
    parameters: { ToS3: 'Yes', Env: 'prod', Zones: 'a,c' },
  });
  assert.equal(prodOk.status, 201, JSON.stringify(prodOk.body));
});

test('validate says which rules it cannot check, and locates a malformed one', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const text = `
Parameters:
  Subnets: { Type: CommaDelimitedList, Default: 's-1,s-2' }
  VpcId: { Type: String, Default: vpc-1 }
Rules:
  SubnetsInVPC:
    Assertions:
      - Assert: { 'Fn::EachMemberEquals': [{ 'Fn::ValueOf': [Subnets, VpcId] }, !Ref VpcId] }
        AssertDescription: All subnets must in the VPC
  Typo:
    Assertions:
      - Assert: { 'Fn::Equal': [!Ref VpcId, vpc-1] }
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: n, Size: M }
`;
  const answer = await s.call('POST', '/v1/stacks/validate', { template: text });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const by = (rule: string) => answer.body.diagnostics.filter((d: any) => d.rule === rule);
  assert.equal(by('TP4029').length, 1, JSON.stringify(answer.body));
  assert.match(by('TP4029')[0].message, /Fn::ValueOf reads attributes of AWS resources/);
  assert.equal(by('TP4014').length, 1, JSON.stringify(answer.body));
  assert.equal(by('TP4014')[0].pointer, '/Rules/Typo/Assertions/0/Assert/Fn::Equal');
  assert.match(by('TP4014')[0].message, /Fn::Equal is not a rule function/);
});
