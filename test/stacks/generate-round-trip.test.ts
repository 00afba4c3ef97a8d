/**
 * `typeplane stack generate` (CloudFormation's IaC generator) through the CLI as child processes
 * against a real server: the template of the resources outside stacks of the types named holds their
 * writable properties only, a reference to another resource as a Ref, DeletionPolicy Retain; it
 * validates; deployed with the ResourcesToImport generated with it, every resource is imported with no
 * difference and nothing created, and the stack is then in sync — the round trip. Resources a stack
 * holds already are left out, and types out of the token's reach are not read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settle, startTestService, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { exits, GADGET, typeplaneCli } from './helpers.js';
import { memoryProvider } from '../helpers/providers.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const GADGET_TYPE = 'Test::Shop::Gadget';

/** A resource schema of string properties, identified by the first, with `extra` members (read-only, traits…). */
function stringType(typeName: string, names: string[], extra: object = {}): string {
  return JSON.stringify({
    typeName,
    description: `${typeName}, for generate tests.`,
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
    additionalProperties: false,
    required: [names[0]],
    primaryIdentifier: [`/properties/${names[0]}`],
    ...extra,
  });
}

/** The generated template, planned with its ResourcesToImport: every resource an Import with no difference. */
async function assertImportsCleanly(
  s: Awaited<ReturnType<typeof startTestService>>,
  generated: { template: { Resources: object }; resourcesToImport: unknown[] },
  stackName: string,
): Promise<void> {
  const plan = await s.call('POST', `/v1/stacks/${stackName}/plans`, {
    template: JSON.stringify(generated.template),
    resourcesToImport: generated.resourcesToImport,
  });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.deepEqual(
    plan.body.changes.map((c: { action: string; differences: unknown[] }) => [c.action, c.differences]),
    Object.keys(generated.template.Resources).map(() => ['Import', []]),
  );
}

/** A server (with `providers`) with `types` registered and `resources` made: their identifiers. */
async function serverWith(
  t: import('node:test').TestContext,
  types: string[],
  resources: [string, object][],
  providers?: Map<string, ReturnType<typeof memoryProvider>>,
) {
  const s = await startTestService(providers ? { providers } : {});
  t.after(() => s.close());
  for (const doc of types) assert.equal((await s.call('POST', '/v1/types', doc)).status, 201);
  const identifiers: string[] = [];
  for (const [typeName, desiredState] of resources) {
    const made = await s.call('POST', `/v1/resources/${encodeURIComponent(typeName)}`, { desiredState });
    const done = await settle(s, made.body.progressEvent.requestToken);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    identifiers.push(done.identifier as string);
  }
  return { s, identifiers };
}

test('generate → validate → deploy --import round-trips: Import with no difference, nothing created, in sync after', async (t) => {
  const {
    s,
    identifiers: [, gadget],
  } = await serverWith(
    t,
    [WIDGET, GADGET],
    [
      [WIDGET_TYPE, { Name: 'ada', Color: 'red', Secret: 'never-shown-42', Labels: ['a', 'b'] }],
      [GADGET_TYPE, { WidgetName: 'ada', Note: 'first gadget', Port: 8080 }],
    ],
  );
  const held = `Resources:\n  Held:\n    Type: ${WIDGET_TYPE}\n    Properties: { Name: held }\n`;
  assert.equal(
    (await s.call('PUT', '/v1/stacks/other?wait=20', { template: held })).body.stack.status,
    'CREATE_COMPLETE',
  );

  const dir = tempDir();
  const importFile = join(dir, 'to-import.json');
  const generated = await typeplaneCli(s.url, s.token, [
    'stack',
    'generate',
    '--types',
    'Test::Shop::*',
    '--import-file',
    importFile,
  ]);
  exits(generated, 0);
  assert.match(generated.stderr, /note: Test::Shop::Widget held is left out: it is in stack other/);
  assert.doesNotMatch(generated.stdout, /never-shown-42/, 'a write-only value is never emitted');
  assert.doesNotMatch(generated.stdout, /GadgetId/, 'read-only properties are left out');
  const templateFile = join(dir, 'template.yaml');
  writeFileSync(templateFile, generated.stdout);
  const { parse } = await import('yaml');
  const template = parse(generated.stdout);
  assert.deepEqual(template.Resources.WidgetAda, {
    Type: WIDGET_TYPE,
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: { Name: 'ada', Size: 'S', Color: 'red', Labels: ['a', 'b'] },
  });
  const gadgetId = Object.keys(template.Resources).find((id) => id.startsWith('Gadget'))!;
  assert.deepEqual(
    template.Resources[gadgetId].Properties,
    {
      WidgetName: { Ref: 'WidgetAda' },
      Note: 'first gadget',
      Port: 8080,
    },
    'the widget named by WidgetName is a Ref to it',
  );
  assert.deepEqual(JSON.parse(readFileSync(importFile, 'utf8')), [
    { LogicalResourceId: gadgetId, ResourceType: GADGET_TYPE, ResourceIdentifier: { GadgetId: gadget } },
    { LogicalResourceId: 'WidgetAda', ResourceType: WIDGET_TYPE, ResourceIdentifier: { Name: 'ada' } },
  ]);

  exits(await typeplaneCli(s.url, s.token, ['stack', 'validate', templateFile]), 0);
  const planned = await typeplaneCli(s.url, s.token, [
    'stack',
    'plan',
    'adopted',
    templateFile,
    '--import',
    importFile,
    '-o',
    'json',
  ]);
  exits(planned, 0);
  const plan = JSON.parse(planned.stdout);
  assert.deepEqual(
    plan.changes.map((c: { action: string; logicalId: string; differences: unknown[] }) => [
      c.action,
      c.logicalId,
      c.differences,
    ]),
    [
      ['Import', 'WidgetAda', []],
      ['Import', gadgetId, []],
    ],
  );
  const table = await typeplaneCli(s.url, s.token, [
    'stack',
    'plan',
    'adopted',
    templateFile,
    '--import',
    importFile,
  ]);
  exits(table, 0);
  assert.match(table.stdout, /^Import\s+WidgetAda\s+Test::Shop::Widget\s+ada, created by nothing$/m);
  const deployed = await typeplaneCli(s.url, s.token, [
    'stack',
    'deploy',
    'adopted',
    templateFile,
    '--import',
    importFile,
  ]);
  exits(deployed, 0);
  const shown = await s.call('GET', '/v1/stacks/adopted');
  assert.equal(shown.body.status, 'CREATE_COMPLETE');
  assert.equal(
    (await s.call('GET', '/v1/requests?operation=CREATE')).body.progressEvents.length,
    3,
    'nothing created by the import',
  );
  assert.equal((await s.call('GET', '/v1/stacks/adopted/drift')).body.status, 'IN_SYNC');
  const again = await s.call('POST', '/v1/stacks/adopted/plans', { template: generated.stdout });
  assert.deepEqual(
    again.body.changes.map((c: { action: string }) => c.action),
    ['NoChange', 'NoChange'],
  );
});

test('generate reads only the types the token may read, and says so when nothing is left', async (t) => {
  const { s } = await serverWith(t, [WIDGET, GADGET], [[WIDGET_TYPE, { Name: 'ada' }]]);
  const reader = (await s.call('POST', '/v1/tokens', { role: 'reader', types: [GADGET_TYPE] })).body.token;
  const none = await typeplaneCli(s.url, reader, ['stack', 'generate', '--types', 'Test::*']);
  assert.equal(none.code, 1, none.stderr);
  assert.match(
    none.stderr,
    /no resource outside a stack is of a type matching Test::\* \(among the types your token may read\)/,
  );
  const usage = await s.call('GET', '/v1/generated-template');
  assert.equal(usage.status, 400);
  assert.match(usage.body.message, /types: name 1 to 20 type globs/);
});

test("a value that is another resource's read-only attribute is generated as Fn::GetAtt, and imports with no difference", async (t) => {
  // Bins are served by a provider that sets their read-only Arn; widgets by the state provider.
  const BIN = stringType('Test::Shop::Bin', ['Name', 'Arn'], { readOnlyProperties: ['/properties/Arn'] });
  const bins = memoryProvider({
    create: (req, store) => {
      const model = { ...req.desiredState, Arn: `arn:bin:${String(req.desiredState.Name)}` };
      store.set(String(req.desiredState.Name), model);
      return { status: 'SUCCESS', resourceModel: model };
    },
  });
  const { s } = await serverWith(
    t,
    [WIDGET, BIN],
    [
      ['Test::Shop::Bin', { Name: 'one' }],
      [WIDGET_TYPE, { Name: 'ada', Color: 'arn:bin:one' }],
    ],
    new Map([['Test::Shop::Bin', bins]]),
  );
  const generated = await s.call(
    'GET',
    `/v1/generated-template?types=${encodeURIComponent('Test::Shop::*')}`,
  );
  assert.equal(generated.status, 200, JSON.stringify(generated.body));
  assert.deepEqual(generated.body.template.Resources.BinOne.Properties, { Name: 'one' });
  assert.deepEqual(generated.body.template.Resources.WidgetAda.Properties, {
    Name: 'ada',
    Size: 'S',
    Color: { 'Fn::GetAtt': ['BinOne', 'Arn'] },
  });
  await assertImportsCleanly(s, generated.body, 'adopted');
});

test('a required write-only property is never emitted: a NoEcho parameter stands for it, given when importing', async (t) => {
  const VAULT = stringType('Test::Shop::Vault', ['Name', 'Password'], {
    required: ['Name', 'Password'],
    writeOnlyProperties: ['/properties/Password'],
  });
  const { s } = await serverWith(
    t,
    [VAULT],
    [['Test::Shop::Vault', { Name: 'v1', Password: 'pw-never-shown-7' }]],
  );
  const generated = await s.call('GET', '/v1/generated-template?types=Test::Shop::Vault');
  assert.equal(generated.status, 200, JSON.stringify(generated.body));
  assert.doesNotMatch(JSON.stringify(generated.body), /pw-never-shown-7/);
  const { Parameters, Resources } = generated.body.template;
  assert.deepEqual(Object.keys(Parameters), ['VaultV1Password']);
  assert.equal(Parameters.VaultV1Password.NoEcho, true);
  assert.deepEqual(Resources.VaultV1.Properties, { Name: 'v1', Password: { Ref: 'VaultV1Password' } });
  const template = JSON.stringify(generated.body.template);
  const checked = await s.call('POST', '/v1/stacks/validate', { template });
  assert.equal(checked.body.valid, true, JSON.stringify(checked.body.diagnostics));
  const put = await s.call('PUT', '/v1/stacks/vaults?wait=20', {
    template,
    parameters: { VaultV1Password: 'pw-never-shown-7' },
    resourcesToImport: generated.body.resourcesToImport,
  });
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  assert.equal((await s.call('GET', '/v1/stacks/vaults/drift')).body.status, 'IN_SYNC');
});

test('a type that declares its references is linked only where it declares them', async (t) => {
  const HOLDER = stringType('Test::Shop::Holder', ['HolderName', 'WidgetName', 'Note'], {
    traits: { references: [{ typeName: WIDGET_TYPE, ids: { Name: '/properties/WidgetName' } }] },
  });
  const { s } = await serverWith(
    t,
    [WIDGET, HOLDER],
    [
      [WIDGET_TYPE, { Name: 'ada' }],
      ['Test::Shop::Holder', { HolderName: 'h1', WidgetName: 'ada', Note: 'ada' }],
    ],
  );
  const generated = await s.call(
    'GET',
    `/v1/generated-template?types=${encodeURIComponent('Test::Shop::*')}`,
  );
  assert.deepEqual(generated.body.template.Resources.HolderH1.Properties, {
    HolderName: 'h1',
    WidgetName: { Ref: 'WidgetAda' },
    Note: 'ada',
  });
});

test(
  'AWS resources made through the API (synthesized ids) generate a template whose subnet refers to its VPC, imported with no difference',
  { skip: corpusSkip() },
  async (t) => {
    const s = await startTestService({ stateProvider: { synthesize: ['AWS::*'] } });
    t.after(() => s.close());
    for (const name of ['AWS_EC2_VPC', 'AWS_EC2_Subnet'])
      assert.equal(
        (await s.call('POST', '/v1/types', readFileSync(join(AWS_CORPUS, `${name}.json`), 'utf8'))).status,
        201,
      );
    const make = async (typeName: string, desiredState: object) => {
      const made = await s.call('POST', `/v1/resources/${encodeURIComponent(typeName)}`, { desiredState });
      const done = await settle(s, made.body.progressEvent.requestToken);
      assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
      return done.identifier as string;
    };
    const vpc = await make('AWS::EC2::VPC', { CidrBlock: '10.0.0.0/16' });
    await make('AWS::EC2::Subnet', { VpcId: vpc, CidrBlock: '10.0.1.0/24' });
    const generated = await s.call('GET', '/v1/generated-template?types=AWS::EC2::*');
    assert.equal(generated.status, 200, JSON.stringify(generated.body));
    const resources = generated.body.template.Resources as Record<
      string,
      { Type: string; Properties: object }
    >;
    const vpcId = Object.keys(resources).find((id) => resources[id]!.Type === 'AWS::EC2::VPC')!;
    const subnet = Object.values(resources).find((r) => r.Type === 'AWS::EC2::Subnet')!;
    // The zone EC2 chose for the subnet is part of what exists, as AWS's generator writes it.
    assert.deepEqual(subnet.Properties, {
      VpcId: { Ref: vpcId },
      CidrBlock: '10.0.1.0/24',
      AvailabilityZone: 'us-east-1a',
    });
    await assertImportsCleanly(s, generated.body, 'network');
  },
);
