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

/** The S3 bucket name pattern of the published Solutions templates, and their password pattern. */
const BUCKET_NAME = String.raw`^$|^(?=^.{3,63}$)(?!.*[.-]{2})(?!.*[--]{2})(?!^(?:(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\.(?!$)|$)){4}$)(^(([a-z0-9]|[a-z0-9][a-z0-9\-]*[a-z0-9])\.)*([a-z0-9]|[a-z0-9][a-z0-9\-]*[a-z0-9])$)`;
const PASSWORD = String.raw`(?=^.{6,255}$)((?=.*\d)(?=.*[A-Z])(?=.*[a-z])|(?=.*\d)(?=.*[^A-Za-z0-9])(?=.*[a-z])|(?=.*[^A-Za-z0-9])(?=.*[A-Z])(?=.*[a-z])|(?=.*\d)(?=.*[A-Z])(?=.*[^A-Za-z0-9]))^.*`;

test('AllowedPatterns with lookahead are checked as CloudFormation checks them; what cannot be checked safely is refused, saying what', async () => {
  const template = (pattern: string) => `
Parameters:
  Bucket: { Type: String, Default: '', AllowedPattern: ${JSON.stringify(pattern)} }
  Password: { Type: String, NoEcho: true, AllowedPattern: ${JSON.stringify(PASSWORD)} }
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: lookahead, Color: !Ref Bucket, Secret: !Ref Password }
`;
  const stack = await deploysClean('lookahead', template(BUCKET_NAME), {
    Bucket: 'logs.example-1',
    Password: 'Correct-horse1',
  });
  const widget = await s.call('GET', `/v1/resources/Test::Shop::Widget/${stack.resources[0].identifier}`);
  assert.equal(widget.body.properties.Color, 'logs.example-1');

  const refusal = async (parameters: Record<string, string>) => {
    const put = await s.call('PUT', '/v1/stacks/lookahead-refused?wait=5', {
      template: template(BUCKET_NAME),
      parameters,
    });
    assert.equal(put.status, 400, JSON.stringify(put.body));
    return put.body.details.map(
      (d: { rule: string; pointer: string; message: string }) => `${d.rule} ${d.pointer} ${d.message}`,
    );
  };
  // Two dots in a row, an IPv4 address, a password of lower-case letters only (never quoted: NoEcho).
  for (const [bucket, password, expected] of [
    [
      'logs..example',
      'Correct-horse1',
      /^TP4012 \/Parameters\/Bucket parameter Bucket: the value given "logs\.\.example" does not match AllowedPattern/,
    ],
    [
      '192.168.1.1',
      'Correct-horse1',
      /^TP4012 \/Parameters\/Bucket parameter Bucket: the value given "192\.168\.1\.1" does not match/,
    ],
    [
      'logs',
      'correcthorse',
      /^TP4012 \/Parameters\/Password parameter Password: the value given \(hidden: NoEcho\) does not match/,
    ],
    [
      'x'.repeat(5000),
      'Correct-horse1',
      /^TP4012 \/Parameters\/Bucket parameter Bucket: the value given holds a string of 5,000 characters, too long to check against its AllowedPattern, which has lookaround \(values of at most 4,096 characters/,
    ],
  ] as const) {
    const details = await refusal({ Bucket: bucket, Password: password });
    assert.equal(details.length, 1, details.join('\n'));
    assert.match(details[0], expected);
  }

  // A construct RE2 has not and that is not checked here either: refused at the pattern, by name.
  const validated = await s.call('POST', '/v1/stacks/validate', {
    template: template(String.raw`(?=a)(a)\1`),
  });
  assert.equal(validated.body.valid, false);
  const problem = validated.body.diagnostics.find((d: { rule: string }) => d.rule === 'TP4011');
  assert.equal(problem.pointer, '/Parameters/Bucket/AllowedPattern');
  assert.match(
    problem.message,
    /^AllowedPattern is refused: back-references and octal escapes \(\\1\) are not supported \(a pattern with lookaround is read as Java reads it/,
  );
});

test('Fn::If over a whole Properties block: the branch the condition picks, AWS::NoValue for none', async () => {
  const template = `
Parameters:
  Env: { Type: String, Default: prod, AllowedValues: [prod, dev] }
Conditions:
  IsProd: !Equals [!Ref Env, prod]
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: !If
      - IsProd
      - { Name: if-prod, Size: L }
      - { Name: if-dev, Size: S }
  G:
    Type: Test::Shop::Gadget
    Properties: !If [IsProd, { Note: !Ref W }, !Ref AWS::NoValue]
`;
  const stack = await deploysClean('whole', template);
  const ids = Object.fromEntries(
    stack.resources.map((r: { logicalId: string; identifier: string }) => [r.logicalId, r.identifier]),
  );
  assert.equal(ids.W, 'if-prod');
  const widget = await s.call('GET', '/v1/resources/Test::Shop::Widget/if-prod');
  assert.equal(widget.body.properties.Size, 'L');
  assert.equal(
    (await s.call('GET', `/v1/resources/Test::Shop::Gadget/${ids.G}`)).body.properties.Note,
    'if-prod',
  );

  const dev = await s.call('PUT', '/v1/stacks/whole?wait=20', { template, parameters: { Env: 'dev' } });
  assert.equal(dev.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(dev.body));
  const gadget = dev.body.stack.resources.find((r: { logicalId: string }) => r.logicalId === 'G');
  assert.equal(
    (await s.call('GET', `/v1/resources/Test::Shop::Gadget/${gadget.identifier}`)).body.properties.Note,
    undefined,
  );
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Widget/if-dev')).body.properties.Size, 'S');

  // The branch taken is checked against the type; a block that is no mapping is refused.
  const checked = await s.call('POST', '/v1/stacks/validate', {
    template: template.replace('Name: if-prod', 'Name: Bad_Name').replace('!Ref AWS::NoValue]', 'just-text]'),
    parameters: { Env: 'dev' },
  });
  assert.deepEqual(
    checked.body.diagnostics.map((d: { rule: string; pointer: string }) => `${d.rule} ${d.pointer}`),
    ['TP4014 /Resources/G/Properties'],
  );
  assert.match(checked.body.diagnostics[0].message, /^Properties must be a mapping, not a string/);
  const prod = await s.call('POST', '/v1/stacks/validate', {
    template: template.replace('Name: if-prod', 'Name: Bad_Name'),
  });
  assert.deepEqual(
    prod.body.diagnostics.map((d: { rule: string; pointer: string }) => `${d.rule} ${d.pointer}`),
    ['TP4005 /Resources/W/Properties/Name'],
  );
});

test('Fn::Cidr makes the address blocks CloudFormation makes, IPv4 and IPv6; a count the block cannot hold is refused', async () => {
  const template = `
Resources:
  W:
    Type: Test::Shop::Widget
    Properties:
      Name: cidrs
      Labels: !Cidr ['10.0.0.0/16', 3, 8]
      Color: !Select [1, !Cidr ['2001:db8::/56', 2, 64]]
`;
  await deploysClean('cidrs', template);
  const widget = await s.call('GET', '/v1/resources/Test::Shop::Widget/cidrs');
  assert.deepEqual(widget.body.properties.Labels, ['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24']);
  assert.equal(widget.body.properties.Color, '2001:db8:0:1::/64');

  const refused = await s.call('POST', '/v1/stacks/validate', {
    template: template.replace("['10.0.0.0/16', 3, 8]", "['10.0.0.0/24', 3, 7]"),
  });
  assert.deepEqual(
    refused.body.diagnostics.map(
      (d: { rule: string; pointer: string; message: string }) => `${d.rule} ${d.pointer} ${d.message}`,
    ),
    [
      'TP4014 /Resources/W/Properties/Labels/Fn::Cidr Fn::Cidr: /24 holds 2 blocks of 7 host bits, not 3: ask for fewer, or smaller ones',
    ],
  );
});

/** A type whose lists must hold distinct items and whose Keys are a list or a mapping (oneOf), as DynamoDB's KeySchema. */
const CRATE = JSON.stringify({
  typeName: 'Test::Shop::Crate',
  description: 'A crate for stack tests.',
  definitions: {
    Key: {
      type: 'object',
      properties: { Name: { type: 'string' }, Kind: { type: 'string' } },
      required: ['Name', 'Kind'],
      additionalProperties: false,
    },
  },
  properties: {
    Name: { type: 'string' },
    Items: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'object', properties: { Id: { type: 'string' } }, additionalProperties: false },
    },
    Keys: { oneOf: [{ type: 'array', items: { $ref: '#/definitions/Key' } }, { type: 'object' }] },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
});

test('values known only after apply are not judged as a whole at validation (two unknown items are not duplicates, nor does oneOf refuse them); they are when known', async () => {
  assert.equal((await s.call('POST', '/v1/types', CRATE)).status, 201);
  const template = (second: string, name: string) => `
Resources:
  W1: { Type: Test::Shop::Widget, Properties: { Name: ${name}-one } }
  W2: { Type: Test::Shop::Widget, Properties: { Name: ${name}-two } }
  C:
    Type: Test::Shop::Crate
    Properties:
      Name: ${name}
      Items: [{ Id: !Ref W1 }, { Id: !Ref ${second} }]
      Keys: [{ Name: !Ref W1, Kind: HASH }]
`;
  await deploysClean('crates', template('W2', 'crated'));
  const crate = await s.call('GET', '/v1/resources/Test::Shop::Crate/crated');
  assert.deepEqual(crate.body.properties.Items, [{ Id: 'crated-one' }, { Id: 'crated-two' }]);

  // The same resource twice: unknown at validation, equal once known — refused when made.
  const twice = template('W1', 'twice');
  assert.equal((await s.call('POST', '/v1/stacks/validate', { template: twice })).body.valid, true);
  const put = await s.call('PUT', '/v1/stacks/crates-twice?wait=20', { template: twice });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body));
  assert.match(put.body.stack.statusReason, /Items.*must NOT have duplicate items/);
});

test('"did you mean" for a type that is not registered only when a name is close to it', async () => {
  const validated = await s.call('POST', '/v1/stacks/validate', {
    template: `
Resources:
  Typo: { Type: Test::Shop::Widgett, Properties: { Name: typo } }
  Other: { Type: Test::Shop::Gizmo }
`,
  });
  assert.deepEqual(
    validated.body.diagnostics.map((d: { pointer: string; message: string }) => `${d.pointer} ${d.message}`),
    [
      '/Resources/Typo/Type type Test::Shop::Widgett is not registered; did you mean Test::Shop::Widget?',
      '/Resources/Other/Type type Test::Shop::Gizmo is not registered; register it first (typeplane type register)',
    ],
  );
});

test('a parameter whose value fails its constraint is reported as that, once, not also as an unknown name where it is used', async () => {
  const put = await s.call('PUT', '/v1/stacks/constrained?wait=5', {
    template: `
Parameters:
  Size: { Type: String, AllowedValues: [S, M] }
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: constrained, Size: !Ref Size, Color: !Sub '\${Size}-ish' }
Outputs:
  Size: { Value: !Ref Size }
`,
    parameters: { Size: 'XL' },
  });
  assert.equal(put.status, 400);
  assert.deepEqual(
    put.body.details.map(
      (d: { rule: string; pointer: string; message: string }) => `${d.rule} ${d.pointer} ${d.message}`,
    ),
    [
      'TP4012 /Parameters/Size parameter Size: the value given "XL" is not one of the AllowedValues ["S", "M"]',
    ],
  );
});

test("a custom resource's legacy Version attribute is taken, as CloudFormation takes it; on other resources it is unknown", async () => {
  const validated = await s.call('POST', '/v1/stacks/validate', {
    template: `
Resources:
  Custom:
    Type: Custom::Legacy
    Version: '1.0'
    Properties: { ServiceToken: 'https://handler.example/' }
  W:
    Type: Test::Shop::Widget
    Version: '1.0'
    Properties: { Name: versioned }
`,
  });
  const attributes = validated.body.diagnostics.filter((d: { rule: string }) => d.rule === 'TP4003');
  assert.deepEqual(
    attributes.map((d: { pointer: string }) => d.pointer),
    ['/Resources/W/Version'],
  );
});

test('a template importing an export validates on its own, as CloudFormation validates it; the export is needed when it is deployed', async () => {
  const importer = `
Resources:
  W:
    Type: Test::Shop::Widget
    Properties: { Name: importer, Color: !ImportValue shared-color }
`;
  assert.equal((await s.call('POST', '/v1/stacks/validate', { template: importer })).body.valid, true);
  const early = await s.call('PUT', '/v1/stacks/importer?wait=5', { template: importer });
  assert.equal(early.status, 400);
  assert.equal(early.body.details[0].rule, 'TP4021');
  await deploysClean(
    'exporter',
    `
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: exporter } }
Outputs:
  Color: { Value: teal, Export: { Name: shared-color } }
`,
  );
  await deploysClean('importer', importer);
  assert.equal(
    (await s.call('GET', '/v1/resources/Test::Shop::Widget/importer')).body.properties.Color,
    'teal',
  );
});

test("an export named by a computed name (!ImportValue !Sub '${NetworkStack}-VpcId', the common form) is imported at plan and deploy", async () => {
  await deploysClean(
    'network',
    `
Resources:
  W: { Type: Test::Shop::Widget, Properties: { Name: network } }
Outputs:
  VpcId: { Value: vpc-0a1b2c3d, Export: { Name: !Sub '\${AWS::StackName}-VpcId' } }
  Zone: { Value: zone-a, Export: { Name: !Join [':', [!Ref AWS::StackName, Zone]] } }
`,
  );
  const importer = `
Parameters:
  NetworkStack: { Type: String, Default: network }
Resources:
  W:
    Type: Test::Shop::Widget
    Properties:
      Name: computed-importer
      Color: !ImportValue { 'Fn::Sub': '\${NetworkStack}-VpcId' }
      Labels: [!ImportValue { 'Fn::Join': [':', [!Ref NetworkStack, Zone]] }]
Outputs:
  Vpc: { Value: !ImportValue { 'Fn::Sub': '\${NetworkStack}-VpcId' } }
`;
  const planned = await s.call('POST', '/v1/stacks/computed-importer/plans', { template: importer });
  assert.equal(planned.status, 201, JSON.stringify(planned.body));
  assert.equal(planned.body.changes[0].properties.Color, 'vpc-0a1b2c3d');
  const stack = await deploysClean('computed-importer', importer);
  assert.deepEqual(outputsOf(stack), { Vpc: 'vpc-0a1b2c3d' });
  const widget = await s.call('GET', '/v1/resources/Test::Shop::Widget/computed-importer');
  assert.deepEqual(
    [widget.body.properties.Color, widget.body.properties.Labels],
    ['vpc-0a1b2c3d', ['zone-a']],
  );
  // Another stack name than any that exports: refused, naming the export it computed.
  const missing = await s.call('PUT', '/v1/stacks/computed-missing?wait=5', {
    template: importer.replace('Name: computed-importer', 'Name: computed-missing'),
    parameters: { NetworkStack: 'elsewhere' },
  });
  assert.equal(missing.status, 400);
  assert.match(missing.body.details[0].message, /no stack exports 'elsewhere-VpcId'/);
});
