/**
 * Nested stacks (AWS::CloudFormation::Stack) over real HTTP: the child template handed over with the
 * parent in `templates`, deployed as a stack of its own named `<parent>-<logicalId>-<suffix>`, given
 * its Parameters, its outputs read by the parent with Fn::GetAtt <Nested>.Outputs.<Name>; a change of
 * the child template alone updates it; a failure inside it rolls back the parent and leaves nothing
 * of it; deleting the parent deletes it. A TemplateURL not handed over, a template nested too deep,
 * are refused before anything runs. The CLI, as a child process, reads the nested templates from
 * paths relative to the template naming them and sends them with it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestService, tempDir, WIDGET, type TestService } from '../helpers/service.js';
import { typeplaneCli } from './helpers.js';

let s: TestService;
before(async () => {
  s = await startTestService();
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => s?.close());

const CHILD = (extra = '') => `
Parameters:
  Prefix: { Type: String }
  Color: { Type: String }
Resources:
  Widget:
    Type: Test::Shop::Widget
    Properties: { Name: !Sub '\${Prefix}-w', Color: !Ref Color }
Outputs:
  WidgetName: { Value: !Ref Widget }
  WidgetColor: { Value: !Ref Color }
${extra}`;

const PARENT = `
Parameters:
  Color: { Type: String }
Resources:
  Shop:
    Type: AWS::CloudFormation::Stack
    Properties:
      TemplateURL: nested/shop.yaml
      TimeoutInMinutes: 5
      Parameters: { Prefix: shop, Color: !Ref Color }
  Front:
    Type: Test::Shop::Widget
    Properties: { Name: front, Color: !GetAtt Shop.Outputs.WidgetColor }
Outputs:
  Nested: { Value: !GetAtt Shop.Outputs.WidgetName }
  NestedId: { Value: !Ref Shop }
`;

async function deploy(stack: string, template: string, templates: Record<string, string>, parameters = {}) {
  const put = await s.call('PUT', `/v1/stacks/${stack}?wait=60`, { template, templates, parameters });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  return put.body.stack;
}

const widget = async (name: string) => s.call('GET', `/v1/resources/Test::Shop::Widget/${name}`);
const outputs = (stack: { outputs: { name: string; value: unknown }[] }) =>
  Object.fromEntries(stack.outputs.map((o) => [o.name, o.value]));

test('a nested stack is deployed with its parameters, its outputs read by the parent, updated and deleted with it', async () => {
  // Planned first: the nested stack's resources are the plan's too.
  const first = await s.call('POST', '/v1/stacks/parent/plans', {
    template: PARENT,
    templates: { 'nested/shop.yaml': CHILD() },
    parameters: { Color: 'red' },
  });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.deepEqual(
    first.body.changes.map((c: any) => [
      c.logicalId,
      c.action,
      c.nested?.changes?.map((n: any) => `${n.logicalId} ${n.action}`),
    ]),
    [
      ['Shop', 'Add', ['Widget Add']],
      ['Front', 'Add', undefined],
    ],
  );
  const created = await deploy('parent', PARENT, { 'nested/shop.yaml': CHILD() }, { Color: 'red' });
  assert.equal(created.status, 'CREATE_COMPLETE', JSON.stringify(created));
  const shop = created.resources.find((r: { logicalId: string }) => r.logicalId === 'Shop');
  const childName = /^typeplane:stack\/(parent-Shop-[0-9A-F]{12})\//.exec(shop.identifier)?.[1];
  assert.ok(childName, shop.identifier);
  assert.deepEqual(outputs(created), { Nested: 'shop-w', NestedId: shop.identifier });
  const child = (await s.call('GET', `/v1/stacks/${childName}`)).body;
  assert.equal(child.status, 'CREATE_COMPLETE');
  // Listed and described with its parent and root, as CloudFormation's ParentId and RootId.
  assert.deepEqual([child.parentId, child.rootId], [created.stackId, created.stackId]);
  const listed = (await s.call('GET', '/v1/stacks')).body.stacks;
  assert.equal(
    listed.find((x: { stackName: string }) => x.stackName === childName).parentId,
    created.stackId,
  );
  assert.equal(listed.find((x: { stackName: string }) => x.stackName === 'parent').parentId, undefined);
  assert.deepEqual(child.parameters, { Prefix: 'shop', Color: 'red' });
  assert.equal((await widget('shop-w')).body.properties.Color, 'red');
  assert.equal((await widget('front')).body.properties.Color, 'red');
  // It is its parent's to change: deploying or deleting it on its own is refused.
  const direct = await s.call('DELETE', `/v1/stacks/${childName}`);
  assert.equal(direct.status, 400, JSON.stringify(direct.body));
  assert.match(direct.body.message, /is a nested stack: its parent deploys and deletes it/);
  const redeployed = await s.call('PUT', `/v1/stacks/${childName}`, {
    template: CHILD(),
    parameters: { Prefix: 'shop', Color: 'pink' },
  });
  assert.equal(redeployed.status, 400, JSON.stringify(redeployed.body));
  // The parent's drift leaves the nested stack to its own (CloudFormation's too): both in sync.
  assert.equal((await s.call('GET', '/v1/stacks/parent/drift')).body.status, 'IN_SYNC');
  assert.equal((await s.call('GET', `/v1/stacks/${childName}/drift`)).body.status, 'IN_SYNC');

  // A parameter the nested stack is given changes: it is updated, and what reads its outputs too.
  const recolored = await deploy('parent', PARENT, { 'nested/shop.yaml': CHILD() }, { Color: 'blue' });
  assert.equal(recolored.status, 'UPDATE_COMPLETE', JSON.stringify(recolored));
  assert.equal((await widget('shop-w')).body.properties.Color, 'blue');
  assert.equal((await widget('front')).body.properties.Color, 'blue');

  // The nested template alone changes: the plan shows it, and the deployment updates the nested stack.
  const changed = CHILD('  Extra: { Value: more }');
  const plan = await s.call('POST', '/v1/stacks/parent/plans', {
    template: PARENT,
    templates: { 'nested/shop.yaml': changed },
    parameters: { Color: 'blue' },
  });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  const planned = plan.body.changes.find((c: { logicalId: string }) => c.logicalId === 'Shop');
  assert.equal(planned.action, 'Modify', JSON.stringify(plan.body.changes));
  // …with the nested stack's own changes: its widget unchanged (its new output changes no resource).
  assert.equal(planned.nested.stackName, childName);
  assert.deepEqual(
    planned.nested.changes.map((c: { logicalId: string; action: string }) => `${c.logicalId} ${c.action}`),
    ['Widget NoChange'],
  );
  // A new color: the plan shows the nested widget's Modify, under the nested stack's change.
  const recolor = await s.call('POST', '/v1/stacks/parent/plans', {
    template: PARENT,
    templates: { 'nested/shop.yaml': CHILD() },
    parameters: { Color: 'green' },
  });
  const nestedWidget = recolor.body.changes
    .find((c: { logicalId: string }) => c.logicalId === 'Shop')
    .nested.changes.find((c: { logicalId: string }) => c.logicalId === 'Widget');
  assert.equal(nestedWidget.action, 'Modify', JSON.stringify(recolor.body.changes));
  assert.deepEqual(nestedWidget.patch, [{ op: 'replace', path: '/Color', value: 'green' }]);
  const extended = await deploy('parent', PARENT, { 'nested/shop.yaml': changed }, { Color: 'blue' });
  assert.equal(extended.status, 'UPDATE_COMPLETE', JSON.stringify(extended));
  assert.deepEqual(outputs((await s.call('GET', `/v1/stacks/${childName}`)).body), {
    WidgetName: 'shop-w',
    WidgetColor: 'blue',
    Extra: 'more',
  });

  const deleted = await s.call('DELETE', '/v1/stacks/parent?wait=60');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));
  assert.equal((await s.call('GET', `/v1/stacks/${childName}`)).status, 404);
  assert.equal((await widget('shop-w')).status, 404);
});

test('a resource failing inside a nested stack rolls back the parent, and nothing of the nested stack is left', async () => {
  // The nested widget's name is taken: its create fails inside the nested stack.
  const taken = await s.call('POST', '/v1/resources/Test::Shop::Widget?wait=10', {
    desiredState: { Name: 'taken-w', Color: 'grey' },
  });
  assert.ok([200, 201, 202].includes(taken.status), JSON.stringify(taken.body));
  const template = PARENT.replace('Prefix: shop', 'Prefix: taken')
    .replace('Name: front, Color: !GetAtt Shop.Outputs.WidgetColor', 'Name: first, Color: green')
    .replace(
      '  Shop:\n    Type: AWS::CloudFormation::Stack\n',
      '  Shop:\n    Type: AWS::CloudFormation::Stack\n    DependsOn: Front\n',
    );
  const stack = await deploy('failing', template, { 'nested/shop.yaml': CHILD() }, { Color: 'red' });
  assert.equal(stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(stack));
  assert.match(
    stack.statusReason,
    /Shop: .*nested stack failing-Shop-[0-9A-F]{12} ended ROLLBACK_COMPLETE: Widget: .*taken-w/,
  );
  assert.deepEqual(stack.resources, []);
  assert.equal((await widget('first')).status, 404, 'the parent resource made before is deleted');
  const listed = (await s.call('GET', '/v1/stacks')).body.stacks.map(
    (x: { stackName: string }) => x.stackName,
  );
  assert.ok(!listed.some((n: string) => n.startsWith('failing-Shop-')), JSON.stringify(listed));
  assert.equal((await widget('taken-w')).body.properties.Color, 'grey', 'what was there is untouched');
});

test('a TemplateURL not handed over is a located error; nesting deeper than 5 levels is refused', async () => {
  const missing = await s.call('POST', '/v1/stacks/validate', {
    template: PARENT,
    parameters: { Color: 'red' },
  });
  assert.equal(missing.body.valid, false);
  const at = missing.body.diagnostics.find(
    (d: { pointer: string }) => d.pointer === '/Resources/Shop/Properties/TemplateURL',
  );
  assert.match(at.message, /nested\/shop\.yaml was not handed over with this stack.*`templates`/);
  assert.equal(at.line, 8);

  const level = (n: number) => `
Resources:
  Next:
    Type: AWS::CloudFormation::Stack
    Properties: { TemplateURL: level${n + 1}.yaml }
`;
  const templates: Record<string, string> = {};
  for (let n = 1; n <= 6; n++) templates[`level${n}.yaml`] = level(n);
  const deep = await s.call('POST', '/v1/stacks/validate', { template: level(0), templates });
  assert.equal(deep.status, 400, JSON.stringify(deep.body));
  assert.match(deep.body.message, /stacks nest at most 5 levels deep: level1\.yaml → .* → level6\.yaml is 6/);
});

test('the CLI sends the nested templates a template names by local paths, relative to the template naming each', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'nested'));
  writeFileSync(
    join(dir, 'parent.yaml'),
    PARENT.replace('Name: front', 'Name: cli-front').replace('Prefix: shop', 'Prefix: cli'),
  );
  // The nested template nests one more, named relative to itself.
  writeFileSync(
    join(dir, 'nested', 'shop.yaml'),
    `${CHILD()}
  Inner: { Value: !GetAtt Inner.Outputs.Note }
`.replace(
      'Resources:\n',
      'Resources:\n  Inner:\n    Type: AWS::CloudFormation::Stack\n    Properties: { TemplateURL: inner.yaml }\n',
    ),
  );
  writeFileSync(
    join(dir, 'nested', 'inner.yaml'),
    'Resources:\n  W:\n    Type: Test::Shop::Widget\n    Properties: { Name: cli-inner }\nOutputs:\n  Note: { Value: !Ref W }\n',
  );
  const deployed = await typeplaneCli(s.url, s.token, [
    'stack',
    'deploy',
    'cli-parent',
    join(dir, 'parent.yaml'),
    '--parameters',
    'Color=red',
    '-o',
    'json',
  ]);
  assert.equal(deployed.code, 0, deployed.stdout + deployed.stderr);
  assert.equal((await widget('cli-inner')).status, 200);
  // Two levels down: the inner stack's parent is the nested one, its root the stack deployed.
  const root = JSON.parse(deployed.stdout).stack ?? JSON.parse(deployed.stdout);
  const stacks = (await s.call('GET', '/v1/stacks')).body.stacks as {
    stackName: string;
    parentId?: string;
    rootId?: string;
  }[];
  const inner = stacks.find((x) => x.stackName.includes('-Inner-'))!;
  const middle = stacks.find((x) => x.stackName.startsWith('cli-parent-Shop-'))!;
  assert.equal(inner.rootId, root.stackId);
  assert.equal(middle.parentId, root.stackId);
  assert.match(inner.parentId!, new RegExp(`^typeplane:stack/${middle.stackName}/`));
  assert.equal((await widget('cli-w')).body.properties.Color, 'red');
  // The plan's table lists the nested stacks' own changes under theirs.
  const plan = await typeplaneCli(s.url, s.token, [
    'stack',
    'plan',
    'cli-parent',
    join(dir, 'parent.yaml'),
    '--parameters',
    'Color=blue',
  ]);
  assert.equal(plan.code, 0, plan.stdout + plan.stderr);
  assert.match(plan.stdout, /^Modify +Shop\/Widget +Test::Shop::Widget +Color$/m);
  assert.match(
    plan.stdout,
    /^Shop\/Widget \(Test::Shop::Widget cli-w\) changes in place:\n {2}Color +"red" → "blue"$/m,
  );
  const deleted = await s.call('DELETE', '/v1/stacks/cli-parent?wait=60');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body));
  assert.equal((await widget('cli-inner')).status, 404);
});

test("a nested stack's output built from a NoEcho parameter is masked where the parent shows it", async () => {
  const child = `
Parameters:
  Pass: { Type: String, NoEcho: true }
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: vault-w, Secret: !Ref Pass }
Outputs:
  Secret: { Value: !Sub 'pass-\${Pass}' }
`;
  const parent = `
Resources:
  Vault:
    Type: AWS::CloudFormation::Stack
    Properties: { TemplateURL: vault.yaml, Parameters: { Pass: open-sesame-42 } }
Outputs:
  FromNested: { Value: !GetAtt Vault.Outputs.Secret }
`;
  const stack = await deploy('vaulted', parent, { 'vault.yaml': child });
  assert.equal(stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
  assert.deepEqual(outputs(stack), { FromNested: '****' });
  const shown = [
    (await s.call('GET', '/v1/stacks/vaulted')).body,
    (await s.call('GET', '/v1/stacks/vaulted/outputs')).body,
    (await s.call('GET', '/v1/stacks/vaulted/events')).body,
  ];
  for (const body of shown)
    assert.ok(!JSON.stringify(body).includes('pass-open-sesame-42'), JSON.stringify(body));
  assert.equal((await s.call('DELETE', '/v1/stacks/vaulted?wait=60')).body.stack.status, 'DELETE_COMPLETE');
});
