/**
 * SSM parameter types over real HTTP: a parameter declared `AWS::SSM::Parameter::Value<…>` takes the
 * value of the server's AWS::SSM::Parameter its value (or Default) names, read at each plan (shown
 * there with the name it came from; a changed value is a change); `AWS::SSM::Parameter::Name` keeps
 * the name, which must exist; a name that names nothing is a located diagnostic; a token that cannot
 * reach AWS::SSM::Parameter is refused without the value.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, after, test } from 'node:test';
import { api, startTestService, WIDGET, type TestService } from '../helpers/service.js';
import { SSM_PARAMETER } from './store-types.js';
import { typeplaneCli } from './helpers.js';

const TEMPLATE = `
Parameters:
  Color:
    Type: AWS::SSM::Parameter::Value<String>
    Default: /app/color
  Labels:
    Type: AWS::SSM::Parameter::Value<List<String>>
    Default: /app/labels
  ColorName:
    Type: AWS::SSM::Parameter::Name
    Default: /app/color
Resources:
  Painted:
    Type: Test::Shop::Widget
    Properties: { Name: painted, Color: !Ref Color, Labels: !Ref Labels }
  Named:
    Type: Test::Shop::Widget
    Properties: { Name: named, Color: !Ref ColorName }
`;

let s: TestService;
before(async () => {
  s = await startTestService();
  for (const doc of [WIDGET, SSM_PARAMETER])
    assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  for (const [Name, Type, Value] of [
    ['/app/color', 'String', 'red'],
    ['/app/labels', 'StringList', 'front,back'],
  ]) {
    const made = await s.call('POST', '/v1/resources/AWS::SSM::Parameter?wait=10', {
      desiredState: { Name, Type, Value },
    });
    assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(made.body));
  }
});
after(() => s?.close());

const widget = async (name: string) => (await s.call('GET', `/v1/resources/Test::Shop::Widget/${name}`)).body;

test('an SSM parameter type deploys with the value its parameter holds, shown in the plan; a changed value is a change at the next plan', async () => {
  const plan = await s.call('POST', '/v1/stacks/ssm/plans', { template: TEMPLATE, parameters: {} });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.deepEqual(plan.body.resolvedParameters, [
    { parameter: 'Color', name: '/app/color', value: 'red' },
    { parameter: 'Labels', name: '/app/labels', value: 'front,back' },
    { parameter: 'ColorName', name: '/app/color' },
  ]);
  const painted = plan.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Painted');
  assert.deepEqual(painted.properties, { Name: 'painted', Color: 'red', Labels: ['front', 'back'] });
  const applied = await s.call('POST', `/v1/stacks/ssm/plans/${plan.body.planId}/apply?wait=20`);
  assert.equal(applied.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(applied.body));
  assert.equal((await widget('painted')).properties.Color, 'red');
  assert.deepEqual((await widget('painted')).properties.Labels, ['front', 'back']);
  assert.equal((await widget('named')).properties.Color, '/app/color', 'a Name parameter is the name');

  // The parameter changes: the next plan reads it again, and the resource follows.
  const changed = await s.call('PATCH', '/v1/resources/AWS::SSM::Parameter/%2Fapp%2Fcolor?wait=10', {
    patchDocument: [{ op: 'replace', path: '/Value', value: 'blue' }],
  });
  assert.equal(changed.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(changed.body));
  const next = await s.call('POST', '/v1/stacks/ssm/plans', { template: TEMPLATE, parameters: {} });
  assert.equal(next.status, 201, JSON.stringify(next.body));
  assert.equal(next.body.resolvedParameters[0].value, 'blue');
  const modify = next.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Painted');
  assert.equal(modify.action, 'Modify');
  assert.deepEqual(modify.patch, [{ op: 'replace', path: '/Color', value: 'blue' }]);
  assert.equal(
    next.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Named').action,
    'NoChange',
  );
  const updated = await s.call('PUT', '/v1/stacks/ssm?wait=20', { template: TEMPLATE, parameters: {} });
  assert.equal(updated.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(updated.body));
  assert.equal((await widget('painted')).properties.Color, 'blue');
});

test('a parameter naming no SSM parameter, or given no name, is a diagnostic located at its Default or at the value given', async () => {
  const missingDefault = TEMPLATE.replace('Default: /app/labels', 'Default: /app/nothing-here');
  const plan = await s.call('POST', '/v1/stacks/missing/plans', { template: missingDefault, parameters: {} });
  assert.equal(plan.status, 400, JSON.stringify(plan.body));
  const [d] = plan.body.details;
  assert.equal(d.rule, 'TP4012');
  assert.equal(d.pointer, '/Parameters/Labels/Default');
  assert.equal(d.line, 8);
  assert.match(d.message, /no AWS::SSM::Parameter named '\/app\/nothing-here'/);
  assert.match(d.message, /create it/);

  const given = await s.call('PUT', '/v1/stacks/missing', {
    template: TEMPLATE,
    parameters: { ColorName: '/app/colour' },
  });
  assert.equal(given.status, 400, JSON.stringify(given.body));
  assert.deepEqual(
    given.body.details.map((x: { rule: string; pointer: string }) => [x.rule, x.pointer]),
    [['TP4012', '/Parameters/ColorName']],
  );
  const list = await s.call('POST', '/v1/stacks/missing/plans', {
    template: TEMPLATE,
    parameters: { Color: ['red'] },
  });
  assert.equal(list.status, 400, JSON.stringify(list.body));
  assert.equal(list.body.details[0].pointer, '/Parameters/Color');
  assert.match(
    list.body.details[0].message,
    /the value given must be the name of an SSM parameter \(a string\)/,
  );
  assert.equal((await s.call('GET', '/v1/stacks/missing')).status, 404, 'nothing was deployed');
});

test('a token that cannot reach AWS::SSM::Parameter is refused, and never told the value', async () => {
  const scoped = await s.call('POST', '/v1/tokens', { role: 'writer', types: ['Test::Shop::*'] });
  assert.equal(scoped.status, 201, JSON.stringify(scoped.body));
  const refused = await api(s.url, scoped.body.token).call('POST', '/v1/stacks/scoped/plans', {
    template: TEMPLATE,
    parameters: {},
  });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(refused.body.errorCode, 'AccessDenied');
  assert.match(
    refused.body.message,
    /parameter Color's type reads the server's AWS::SSM::Parameter resources/,
  );
  assert.doesNotMatch(JSON.stringify(refused.body), /\bblue\b|\bred\b/);
});

test('a plan whose SSM parameter changed since it was made is not applied', async () => {
  const plan = await s.call('POST', '/v1/stacks/ssm/plans', { template: TEMPLATE, parameters: {} });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const changed = await s.call('PATCH', '/v1/resources/AWS::SSM::Parameter/%2Fapp%2Flabels?wait=10', {
    patchDocument: [{ op: 'replace', path: '/Value', value: 'top' }],
  });
  assert.equal(changed.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(changed.body));
  const applied = await s.call('POST', `/v1/stacks/ssm/plans/${plan.body.planId}/apply`);
  assert.equal(applied.status, 409, JSON.stringify(applied.body));
  assert.equal(applied.body.errorCode, 'ResourceConflict');
  assert.match(
    applied.body.message,
    /the SSM parameters that Labels names changed since plan .* make a new plan/,
  );
  assert.deepEqual((await widget('painted')).properties.Labels, ['front', 'back'], 'nothing was applied');
});

test('typeplane stack plan prints what each SSM parameter type read, under its table', async () => {
  const file = join(s.dataDir, 'ssm.yaml');
  writeFileSync(file, TEMPLATE);
  const plan = await typeplaneCli(s.url, s.token, ['stack', 'plan', 'printed', file]);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /^Parameters read from the parameter store:$/m);
  assert.match(plan.stdout, /^ {2}Labels = top {2}\(from SSM parameter \/app\/labels\)$/m);
  assert.match(plan.stdout, /^ {2}ColorName: SSM parameter \/app\/color \(exists\)$/m);
});

test('a template declaring more than 200 parameters of SSM parameter types is refused; 200 are read', async () => {
  const declare = (n: number) =>
    `Parameters:\n${Array.from({ length: n }, (_, i) => `  P${i}: { Type: 'AWS::SSM::Parameter::Value<String>', Default: /app/color }\n`).join('')}` +
    `Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: many, Color: !Ref P0 } }\n`;
  const refused = await s.call('POST', '/v1/stacks/many/plans', { template: declare(201), parameters: {} });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(
    refused.body.message,
    /first: TP4011 the template declares 201 parameters of SSM parameter types; at most 200/,
  );
  const taken = await s.call('POST', '/v1/stacks/many/plans', { template: declare(200), parameters: {} });
  assert.equal(taken.status, 201, JSON.stringify(taken.body));
  assert.equal(taken.body.resolvedParameters.length, 200);
});
