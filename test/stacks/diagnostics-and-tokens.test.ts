/**
 * Through a real server: the template diagnostics not proven elsewhere (no resources, malformed
 * intrinsics, failing condition and mapping lookups, malformed outputs, unsupported features, an
 * import no stack exports), each located with its rule; a deploy's clientToken answers the same
 * deployment when repeated and refuses a different request; UpdateReplacePolicy: Retain keeps the
 * replaced resource out of the stack.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';

async function service(t: import('node:test').TestContext) {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  return s;
}

type Found = { rule: string; line: number; column: number; message: string }[];

test('each remaining rule is reported, located, with what to do', async (t) => {
  const s = await service(t);
  const validate = async (lines: string[]) => {
    const r = await s.call('POST', '/v1/stacks/validate', { template: lines.join('\n') });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.valid, false);
    return r.body.diagnostics as Found;
  };
  const at = (found: Found, rule: string, line: number, message: RegExp) => {
    const d = found.find((x) => x.rule === rule && x.line === line);
    assert.ok(d, `${rule} on line ${line} among ${JSON.stringify(found)}`);
    assert.match(d.message, message);
  };

  at(await validate(['Description: nothing', 'Resources: {}']), 'TP4002', 2, /at least one resource/);

  const found = await validate([
    'Mappings:', // 1
    '  Sizes: { prod: { W: L } }', // 2
    'Conditions:', // 3
    '  Odd: !Equals [a]', // 4
    'Resources:', // 5
    '  W:', // 6
    '    Type: Test::Shop::Widget', // 7
    '    Properties:', // 8
    '      Id: !If [Missing, a, b]', // 9
    '      Name: !Join [",", "not-a-list"]', // 10
    '      Size: !FindInMap [Sizes, staging, W]', // 11
    '      Color: !Select [5, [a, b]]', // 12
    'Outputs:', // 13
    '  NoValue: { Description: forgot it }', // 14
    '  Bad-Name: { Value: x }', // 15
  ]);
  at(found, 'TP4014', 4, /Fn::Equals/);
  at(found, 'TP4015', 9, /condition.*Missing/);
  at(found, 'TP4014', 10, /Fn::Join/);
  at(found, 'TP4015', 11, /staging/);
  at(found, 'TP4014', 12, /index 5 is outside the list of 2/);
  at(found, 'TP4017', 14, /needs a Value/);
  at(found, 'TP4017', 15, /must be alphanumeric/);

  const schema = await validate([
    'Resources:',
    '  W:',
    '    Type: Test::Shop::Widget',
    '    Properties:',
    '      Name: w',
    '      Size: XL',
    '      Count: many',
  ]);
  at(schema, 'TP4005', 6, /must be equal to one of the allowed values|S, M, L/);
  at(schema, 'TP4005', 7, /must be integer/);

  const unsupported = await validate([
    'Transform: AWS::Serverless-2016-10-31',
    'Resources:',
    '  W: { Type: Test::Shop::Widget, Properties: { Name: !Transform { Name: m } } }',
  ]);
  at(
    unsupported,
    'TP4018',
    1,
    /AWS::Serverless-2016-10-31 \(SAM\) is not supported: .*--template-stage Processed/,
  );
  at(
    unsupported,
    'TP4018',
    3,
    /Fn::Transform m is a macro, which CloudFormation runs as an AWS Lambda function/,
  );

  const imported = await s.call('PUT', '/v1/stacks/importer', {
    template:
      'Resources:\n  W:\n    Type: Test::Shop::Widget\n    Properties: { Name: !ImportValue nobody-exports-this }\n',
  });
  assert.equal(imported.status, 400, JSON.stringify(imported.body));
  const d = imported.body.details.find((x: { rule: string }) => x.rule === 'TP4021');
  assert.deepEqual([d.line, d.column], [4, 38]);
  assert.match(d.message, /no stack exports 'nobody-exports-this'; deploy the stack that exports it first/);
  assert.equal((await s.call('GET', '/v1/stacks/importer')).status, 404, 'nothing was started');
});

test('a repeated clientToken answers the same deployment; the same token for another request is refused', async (t) => {
  const s = await service(t);
  const template = 'Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: once } }\n';
  const first = await s.call('PUT', '/v1/stacks/tok?wait=20', { template, clientToken: 'deploy-1' });
  assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body));
  const again = await s.call('PUT', '/v1/stacks/tok?wait=20', { template, clientToken: 'deploy-1' });
  assert.equal(again.status, 202);
  assert.equal(again.body.deploymentId, first.body.deploymentId);
  assert.equal(again.body.stack.version, first.body.stack.version, 'nothing ran again');
  const other = await s.call('PUT', '/v1/stacks/tok', {
    template: template.replace('once', 'twice'),
    clientToken: 'deploy-1',
  });
  assert.equal(other.status, 400);
  assert.match(other.body.message, /this clientToken was already used for a different request/);
  const widgets = await s.call('GET', '/v1/resources/Test::Shop::Widget');
  assert.deepEqual(
    widgets.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
    ['once'],
  );
});

test('a clientToken replayed after its stack was deleted is refused (409), not answered 404 nor deployed again', async (t) => {
  const s = await service(t);
  const template = 'Resources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: gone } }\n';
  const first = await s.call('PUT', '/v1/stacks/gone?wait=20', { template, clientToken: 'deploy-g' });
  assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body));
  const deleted = await s.call('DELETE', '/v1/stacks/gone?wait=20');
  assert.equal(deleted.status, 202, JSON.stringify(deleted.body));
  assert.equal((await s.call('GET', '/v1/stacks/gone')).status, 404);
  const replay = await s.call('PUT', '/v1/stacks/gone?wait=20', { template, clientToken: 'deploy-g' });
  assert.equal(replay.status, 409, JSON.stringify(replay.body));
  assert.equal(replay.body.errorCode, 'ResourceConflict');
  assert.match(replay.body.message, /has since been deleted; send a new clientToken/);
  assert.equal((await s.call('GET', '/v1/stacks/gone')).status, 404, 'nothing was deployed again');
  // The same name made anew under another token: the old token does not answer the new stack.
  const anew = await s.call('PUT', '/v1/stacks/gone?wait=20', { template, clientToken: 'deploy-h' });
  assert.equal(anew.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(anew.body));
  const stale = await s.call('PUT', '/v1/stacks/gone', { template, clientToken: 'deploy-g' });
  assert.equal(stale.status, 409, JSON.stringify(stale.body));
});

test('UpdateReplacePolicy: Retain keeps the replaced resource, outside the stack', async (t) => {
  const s = await service(t);
  const v = (name: string) =>
    `Resources:\n  W:\n    Type: Test::Shop::Widget\n    UpdateReplacePolicy: Retain\n    Properties: { Name: ${name} }\n`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/keep?wait=20', { template: v('old-one') })).body.stack.status,
    'CREATE_COMPLETE',
  );
  const put = await s.call('PUT', '/v1/stacks/keep?wait=20', { template: v('new-one') });
  assert.equal(put.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(put.body));
  assert.deepEqual(
    put.body.stack.resources.map((r: { identifier: string }) => r.identifier),
    ['new-one'],
  );
  const events = (await s.call('GET', '/v1/stacks/keep/events')).body.events;
  assert.ok(
    events.some(
      (e: { logicalId: string; status: string; reason?: string }) =>
        e.logicalId === 'W' &&
        e.status === 'DELETE_SKIPPED' &&
        /UpdateReplacePolicy: Retain/.test(e.reason ?? ''),
    ),
    JSON.stringify(events),
  );
  assert.equal((await s.call('DELETE', '/v1/stacks/keep?wait=20')).status, 202);
  const left = await s.call('GET', '/v1/resources/Test::Shop::Widget');
  assert.deepEqual(
    left.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
    ['old-one'],
    'the retained one outlives the stack; the stack deleted its own',
  );
});
