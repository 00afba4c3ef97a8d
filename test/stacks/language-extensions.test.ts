/**
 * `Transform: AWS::LanguageExtensions` expanded as CloudFormation expands it (the cases of its
 * Fn::ForEach documentation: resources, `&{}` identifiers, nested loops, outputs, properties,
 * collections from parameters and mappings), its problems located in the template as written, its
 * work bounded, and the transforms Typeplane does not run refused by name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTemplate } from '../../src/stacks/analyze.js';
import { languageExtensions, type TemplateValues } from '../../src/stacks/language-extensions/index.js';
import { loadTemplate } from '../../src/stacks/template.js';
import { registryTypes } from '../../src/stacks/types.js';
import { testRegistry } from './helpers.js';

const HEAD = ['AWSTemplateFormatVersion: "2010-09-09"', 'Transform: AWS::LanguageExtensions'];

function expand(lines: string[], values: TemplateValues = {}) {
  const loaded = loadTemplate([...HEAD, ...lines].join('\n'), 'stack.yaml', languageExtensions(values));
  const errors = loaded.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`);
  return { template: loaded.template!, diagnostics: loaded.diagnostics, errors };
}

const resources = (t: ReturnType<typeof expand>['template']) =>
  Object.fromEntries([...t.resources].map(([id, r]) => [id, r.properties]));

test('a loop over a list makes one resource per item: ${Identifier} in the logical id, Ref of it in a value', () => {
  const { template, errors } = expand([
    'Resources:',
    '  Fn::ForEach::Topics:',
    '    - TopicName',
    '    - [Success, Failure, Timeout, Unknown]',
    '    - SnsTopic${TopicName}:',
    '        Type: AWS::SNS::Topic',
    '        Properties:',
    '          TopicName: !Ref TopicName',
    '          DisplayName: !Sub "topic-${TopicName}-${AWS::Region}"',
    '          FifoTopic: true',
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    resources(template),
    Object.fromEntries(
      ['Success', 'Failure', 'Timeout', 'Unknown'].map((name) => [
        `SnsTopic${name}`,
        { TopicName: name, DisplayName: { 'Fn::Sub': `topic-${name}-\${AWS::Region}` }, FifoTopic: true },
      ]),
    ),
  );
  assert.equal(template.resources.get('SnsTopicTimeout')!.type, 'AWS::SNS::Topic');
});

test('&{Identifier} keeps only the letters and digits of an item, so a CIDR can name a subnet', () => {
  const { template, errors } = expand([
    'Resources:',
    '  Fn::ForEach::Subnets:',
    '    - CIDR',
    '    - ["10.0.0.0/24", "10.0.1.0/24"]',
    '    - Subnet&{CIDR}:',
    '        Type: AWS::EC2::Subnet',
    '        Properties:',
    '          CidrBlock: !Ref CIDR',
    '          VpcId: vpc-1',
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(Object.keys(resources(template)), ['Subnet1000024', 'Subnet1001024']);
  assert.equal(template.resources.get('Subnet1001024')!.properties.CidrBlock, '10.0.1.0/24');
});

test('${Identifier} that makes a logical id with other characters is refused where the key is written, suggesting &{}', () => {
  const { errors } = expand([
    'Resources:',
    '  Fn::ForEach::Subnets:',
    '    - CIDR',
    '    - ["10.0.0.0/24"]',
    '    - Subnet${CIDR}:',
    '        Type: AWS::EC2::Subnet',
  ]);
  // (and, no resource being left, TP4002)
  assert.deepEqual(
    errors.slice(1).map((e) => e.split(' ')[1]),
    ['TP4002'],
  );
  assert.match(
    errors[0]!,
    /^7:7 TP4014 'Subnet10\.0\.0\.0\/24' is not alphanumeric, as a logical id must be: write &\{Identifier\}/,
  );
});

test('nested loops: the inner collection found in a mapping by the outer item, both identifiers in the key', () => {
  const { template, errors } = expand([
    'Mappings:',
    '  Tiers:',
    '    Web:',
    '      Ports: ["80", "443"]',
    '    Db:',
    '      Ports: ["5432"]',
    'Resources:',
    '  Fn::ForEach::Tiers:',
    '    - Tier',
    '    - [Web, Db]',
    '    - Fn::ForEach::Ports:',
    '        - Port',
    '        - !FindInMap [Tiers, !Ref Tier, Ports]',
    '        - ${Tier}Rule${Port}:',
    '            Type: AWS::EC2::SecurityGroupIngress',
    '            Properties:',
    '              Description: !Sub "${Tier} on ${Port}"',
    '              FromPort: !Ref Port',
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(resources(template), {
    WebRule80: { Description: { 'Fn::Sub': 'Web on 80' }, FromPort: '80' },
    WebRule443: { Description: { 'Fn::Sub': 'Web on 443' }, FromPort: '443' },
    DbRule5432: { Description: { 'Fn::Sub': 'Db on 5432' }, FromPort: '5432' },
  });
});

test('a collection is a CommaDelimitedList parameter: its value given, or its Default', () => {
  const lines = [
    'Parameters:',
    '  Names:',
    '    Type: CommaDelimitedList',
    '    Default: a,b',
    'Resources:',
    '  Fn::ForEach::Queues:',
    '    - Name',
    '    - !Ref Names',
    '    - Queue${Name}:',
    '        Type: AWS::SQS::Queue',
  ];
  const withDefault = expand(lines);
  assert.deepEqual([...withDefault.template.resources.keys()], ['Queuea', 'Queueb']);
  const given = expand(lines, { parameters: { Names: 'x, y,z' } });
  assert.deepEqual([...given.template.resources.keys()], ['Queuex', 'Queuey', 'Queuez']);
  // Fn::GetAZs and Fn::Split are decided before any resource exists too.
  const zones = expand(
    [
      'Resources:',
      '  Fn::ForEach::Zones:',
      '    - Zone',
      '    - !GetAZs ""',
      '    - Subnet&{Zone}:',
      '        Type: AWS::EC2::Subnet',
      '        Properties: { AvailabilityZone: !Ref Zone }',
    ],
    { pseudo: { region: 'eu-west-1', accountId: '1', partition: 'aws', urlSuffix: 'amazonaws.com' } },
  );
  assert.deepEqual(zones.errors, []);
  assert.deepEqual(
    [...zones.template.resources.keys()],
    ['Subneteuwest1a', 'Subneteuwest1b', 'Subneteuwest1c'],
  );
});

test('a collection waiting for a parameter without a value is a warning; one from a resource or a NoEcho parameter is refused', () => {
  const waiting = expand([
    'Parameters:',
    '  Names: { Type: CommaDelimitedList }',
    'Resources:',
    '  Fn::ForEach::Queues: [Name, !Ref Names, { "Queue${Name}": { Type: AWS::SQS::Queue } }]',
    '  Other: { Type: AWS::SQS::Queue }',
  ]);
  assert.deepEqual(
    waiting.diagnostics.map((d) => [d.severity, d.rule, d.line]),
    [['warning', 'TP4025', 6]],
  );
  assert.match(waiting.errors[0]!, /this loop is expanded once Names has a value/);
  const refused = expand([
    'Parameters:',
    '  Secret: { Type: CommaDelimitedList, NoEcho: true, Default: "a,b" }',
    'Resources:',
    '  Bucket: { Type: AWS::S3::Bucket }',
    '  Fn::ForEach::A: [X, !Ref Secret, { "Queue${X}": { Type: AWS::SQS::Queue } }]',
    '  Fn::ForEach::B: [Y, !Split [",", !GetAtt Bucket.Arn], { "Other${Y}": { Type: AWS::SQS::Queue } }]',
    '  Fn::ForEach::C: [Z, { Nope: 1 }, { "More${Z}": { Type: AWS::SQS::Queue } }]',
  ]);
  assert.deepEqual(
    refused.errors.map((e) => e.replace(/ (\S+ ){0,3}[^]*$/, '')),
    ['7:28', '8:44', '9:23'],
  );
  assert.match(refused.errors[0]!, /TP4014 a loop's collection cannot come from a NoEcho parameter/);
  assert.match(
    refused.errors[1]!,
    /TP4008 this value is decided as the template is expanded .* not Bucket\.Arn/,
  );
  assert.match(refused.errors[2]!, /TP4014 a loop's collection is a list of strings/);
  assert.deepEqual([...refused.template.resources.keys()], ['Bucket']);
  // An SSM parameter type's value is read after the expansion: it cannot decide a loop.
  const ssm = expand([
    'Parameters:',
    '  Ids: { Type: "AWS::SSM::Parameter::Value<List<String>>", Default: /app/ids }',
    'Resources:',
    '  Fn::ForEach::A: [X, !Ref Ids, { "Queue&{X}": { Type: AWS::SQS::Queue } }]',
  ]);
  assert.ok(
    ssm.errors.some((e) =>
      /^6:28 TP4014 .*before Ids's SSM parameter is read: declare Ids as CommaDelimitedList/.test(e),
    ),
    ssm.errors.join('\n'),
  );
});

test('outputs and conditions loop too: nested outputs GetAtt the resources a loop made (fn-foreach-s3-outputs)', () => {
  const { template, errors } = expand([
    'Conditions:',
    '  Fn::ForEach::Envs:',
    '    - Env',
    '    - [Prod, Test]',
    '    - Is${Env}: !Equals [!Ref AWS::Region, us-east-1]',
    'Resources:',
    '  Fn::ForEach::Buckets:',
    '    - Identifier',
    '    - [A, B]',
    '    - S3Bucket${Identifier}:',
    '        Type: AWS::S3::Bucket',
    '        Condition: Is${Identifier}Prod',
    'Outputs:',
    '  Fn::ForEach::BucketOutputs:',
    '    - Identifier',
    '    - [A, B]',
    '    - Fn::ForEach::GetAttLoop:',
    '        - Property',
    '        - [Arn, DomainName]',
    '        - S3Bucket${Identifier}${Property}:',
    '            Value: !GetAtt [!Sub "S3Bucket${Identifier}", !Ref Property]',
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual([...template.conditions.keys()], ['IsProd', 'IsTest']);
  assert.equal(template.resources.get('S3BucketB')!.condition, 'IsBProd');
  assert.deepEqual(Object.fromEntries([...template.outputs].map(([name, o]) => [name, o.value])), {
    S3BucketAArn: { 'Fn::GetAtt': ['S3BucketA', 'Arn'] },
    S3BucketADomainName: { 'Fn::GetAtt': ['S3BucketA', 'DomainName'] },
    S3BucketBArn: { 'Fn::GetAtt': ['S3BucketB', 'Arn'] },
    S3BucketBDomainName: { 'Fn::GetAtt': ['S3BucketB', 'DomainName'] },
  });
});

test("a loop in a resource's Properties makes properties, beside those written", () => {
  const { template, errors } = expand([
    'Resources:',
    '  Table:',
    '    Type: AWS::DynamoDB::Table',
    '    Properties:',
    '      BillingMode: PAY_PER_REQUEST',
    '      Tags:',
    '        Fn::ForEach::Tags:',
    '          - Key',
    '          - [team, cost]',
    '          - ${Key}: !Sub "${Key}-value"',
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(template.resources.get('Table')!.properties, {
    BillingMode: 'PAY_PER_REQUEST',
    Tags: { team: { 'Fn::Sub': 'team-value' }, cost: { 'Fn::Sub': 'cost-value' } },
  });
  // Inside a loop's resource, a mapping holding only a loop is expanded too (with both identifiers).
  const inner = expand([
    'Resources:',
    '  Fn::ForEach::Tables:',
    '    - Name',
    '    - [a, b]',
    '    - Table${Name}:',
    '        Type: AWS::DynamoDB::Table',
    '        Properties:',
    '          Tags:',
    '            Fn::ForEach::Tags:',
    '              - Key',
    '              - [team]',
    '              - ${Key}: !Sub "${Key}-${Name}"',
  ]);
  assert.deepEqual(inner.errors, []);
  assert.deepEqual(inner.template.resources.get('Tableb')!.properties, {
    Tags: { team: { 'Fn::Sub': 'team-b' } },
  });
});

test('malformed loops are refused where they are written, each with what to write', () => {
  const { errors, template } = expand([
    'Resources:', // 3
    '  Fn::ForEach::Two: [X, [a]]', // 4
    '  Fn::ForEach::Dup: [X, [a, b], { Same: { Type: AWS::SQS::Queue } }]', // 5
    '  Fn::ForEach::Outer:', // 6
    '    - X', // 7
    '    - [a]', // 8
    '    - Fn::ForEach::Inner: [X, [b], { "Q${X}": { Type: AWS::SQS::Queue } }]', // 9
    '  Fn::ForEach::Made: [Y, [a], { "Made${Y}": { Type: AWS::SQS::Queue } }]', // 10
    '  Madea: { Type: AWS::SQS::Queue }', // 11
    '  Fn::ForEach::Bad-Name: [Z, [a], { "Z${Z}": { Type: AWS::SQS::Queue } }]', // 12
    '  Kept:', // 13
    '    Type: AWS::SQS::Queue', // 14
    '    Fn::ForEach::Attr: [W, [a], { Tags: [] }]', // 15
  ]);
  assert.deepEqual(
    errors.map((e) => e.slice(0, e.indexOf(' ', e.indexOf(' ') + 1))),
    ['4:3 TP4014', '5:35 TP4014', '9:28 TP4014', '11:3 TP4014', '12:3 TP4014', '15:5 TP4014'],
  );
  assert.match(errors[0]!, /takes a list of 3: \[Identifier, Collection, \{OutputKey: OutputValue\}\]/);
  assert.match(
    errors[1]!,
    /'Same' is made twice: a loop's output key holds \$\{Identifier\} or &\{Identifier\}/,
  );
  assert.match(errors[2]!, /identifier 'X' is already an enclosing loop's/);
  assert.match(errors[3]!, /'Madea' is made twice/);
  assert.match(errors[4]!, /the loop's name 'Bad-Name' must be alphanumeric/);
  assert.match(errors[5]!, /not among a resource's attributes/);
  assert.deepEqual([...template.resources.keys()], ['Same', 'Madea', 'Kept']);
});

test('problems of the expanded template are located where the loop wrote them', async (t) => {
  const registry = await testRegistry(t);
  const { template, diagnostics } = expand([
    'Resources:', // 3
    '  Fn::ForEach::Widgets:', // 4
    '    - Size', // 5
    '    - [S, XL]', // 6
    '    - Widget${Size}:', // 7
    '        Type: Test::Shop::Widget', // 8
    '        Properties:', // 9
    '          Name: widget', // 10
    '          Size: !Ref Size', // 11
    '          Color: !Ref Missing', // 12
  ]);
  assert.deepEqual(diagnostics, []);
  const result = await analyzeTemplate(template, {
    types: registryTypes(registry),
    parameters: {},
    requireValues: false,
    file: 'stack.yaml',
  });
  const errors = result.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.pointer}`);
  assert.deepEqual(errors.sort(), [
    '11:11 TP4005 /Resources/WidgetXL/Properties/Size',
    '12:23 TP4007 /Resources/WidgetS/Properties/Color/Ref',
    '12:23 TP4007 /Resources/WidgetXL/Properties/Color/Ref',
  ]);
  // The expanded document answers a generated resource's key with the loop body's key.
  assert.deepEqual(template.document.locate('/Resources/WidgetXL', 'key'), { line: 7, column: 7 });
});

test('DeletionPolicy and UpdateReplacePolicy may be Ref, Fn::If or Fn::FindInMap, decided from the parameters', () => {
  const lines = [
    'Parameters:',
    '  Keep: { Type: String, AllowedValues: [Retain, Delete], Default: Retain }',
    '  Env: { Type: String, Default: prod }',
    'Mappings:',
    '  Policies: { prod: { Replace: Retain }, test: { Replace: Delete } }',
    'Conditions:',
    '  IsProd: !Equals [!Ref Env, prod]',
    'Resources:',
    '  A:',
    '    Type: AWS::SQS::Queue',
    '    DeletionPolicy: !Ref Keep',
    '    UpdateReplacePolicy: !FindInMap [Policies, !Ref Env, Replace]',
    '  B:',
    '    Type: AWS::SQS::Queue',
    '    DeletionPolicy: !If [IsProd, Retain, Delete]',
    '  C:',
    '    Type: AWS::SQS::Queue',
    '    DeletionPolicy: !GetAtt A.Arn',
  ];
  const policies = (values: TemplateValues) => {
    const { template, errors } = expand(lines, values);
    return {
      errors,
      policies: [...template.resources.values()].map((r) => [r.deletionPolicy, r.updateReplacePolicy]),
    };
  };
  const prod = policies({});
  assert.deepEqual(prod.policies.slice(0, 2), [
    ['Retain', 'Retain'],
    ['Retain', 'Delete'],
  ]);
  assert.equal(prod.errors.length, 1);
  assert.match(prod.errors[0]!, /^20:29 TP4008 .*before any resource exists.* not A\.Arn/);
  const test_ = policies({ parameters: { Keep: 'Delete', Env: 'test' } });
  assert.deepEqual(test_.policies.slice(0, 2), [
    ['Delete', 'Delete'],
    ['Delete', 'Delete'],
  ]);
});

test('transforms Typeplane does not run are refused by name, saying what to do', () => {
  const refused = (transform: string) => {
    const loaded = loadTemplate(
      `Transform: ${transform}\nResources:\n  Q: { Type: AWS::SQS::Queue }\n`,
      't.yaml',
      languageExtensions(),
    );
    return loaded.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`);
  };
  const sam = refused('AWS::Serverless-2016-10-31\nGlobals:\n  Function: { Timeout: 10 }');
  // SAM's own section is not reported as unknown: the transform's refusal is the one finding.
  assert.equal(sam.length, 1, sam.join('\n'));
  assert.match(
    sam[0]!,
    /^1:1 TP4018 Transform AWS::Serverless-2016-10-31 \(SAM\) is not supported: .*--template-stage Processed/,
  );
  const include = refused('{ Name: AWS::Include, Parameters: { Location: "s3://b/snippet.yaml" } }');
  assert.match(
    include[0]!,
    /^1:14 TP4018 Transform AWS::Include is not supported: .*paste the snippet at s3:\/\/b\/snippet\.yaml/,
  );
  const both = refused('[AWS::LanguageExtensions, MyMacro]');
  assert.equal(both.length, 1);
  assert.match(
    both[0]!,
    /^1:38 TP4018 Transform MyMacro is a macro, which CloudFormation runs as an AWS Lambda function/,
  );
  // Without the transform's values (a recipe's template), AWS::LanguageExtensions is refused too.
  const alone = loadTemplate(
    'Transform: AWS::LanguageExtensions\nResources:\n  Q: { Type: AWS::SQS::Queue }\n',
  );
  assert.match(alone.diagnostics[0]!.message, /expanded in a stack's template only/);
});

test('expansion is bounded: loops over loops stop at 500 resources, large copies at the size bound, quickly', () => {
  const items = `[${Array.from({ length: 100 }, (_, i) => `i${i}`).join(', ')}]`;
  let started = performance.now();
  const nested = expand([
    'Resources:',
    '  Fn::ForEach::A:',
    '    - X',
    `    - ${items}`,
    '    - Fn::ForEach::B:',
    '        - Y',
    `        - ${items}`,
    '        - Fn::ForEach::C:',
    '            - Z',
    `            - ${items}`,
    '            - "Q${X}${Y}${Z}": { Type: AWS::SQS::Queue }',
  ]);
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
  assert.deepEqual(
    nested.errors.slice(1).map((e) => e.split(' ')[1]),
    ['TP4002'],
  );
  assert.match(
    nested.errors[0]!,
    /^13:15 TP4014 the expanded template has over 500 resources, CloudFormation's limit/,
  );
  assert.equal(nested.template.resources.size, 0);

  // 300 resources, each holding a 20,000-character string: 6 MB, over the 4 MiB an expansion makes.
  const long = 'x'.repeat(20_000);
  started = performance.now();
  const large = expand([
    'Resources:',
    '  Fn::ForEach::A:',
    '    - X',
    `    - [${Array.from({ length: 300 }, (_, i) => `i${i}`).join(', ')}]`,
    `    - "Q\${X}": { Type: AWS::SQS::Queue, Properties: { Note: ${long} } }`,
  ]);
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
  assert.match(large.errors[0]!, /TP4014 the loops make over 100,000 values or 4,194,304 characters/);

  // A string of many ${X} with a long item is refused before it is built.
  const many = '${X}'.repeat(50_000);
  const blown = expand(
    [
      'Parameters:',
      '  Items: { Type: CommaDelimitedList }',
      'Resources:',
      '  Fn::ForEach::A:',
      '    - X',
      '    - !Ref Items',
      `    - "Q&{X}": { Type: AWS::SQS::Queue, Properties: { Note: !Sub "${many}" } }`,
    ],
    { parameters: { Items: 'y'.repeat(10_000) } },
  );
  assert.match(blown.errors[0]!, /^9:66 TP4014 the loops make over/);

  // Loops nest at most 5 deep.
  const deep = expand([
    'Resources:',
    '  Fn::ForEach::L1: [A, [a], { Fn::ForEach::L2: [B, [b], { Fn::ForEach::L3: [C, [c], {',
    '    Fn::ForEach::L4: [D, [d], { Fn::ForEach::L5: [E, [e], { Fn::ForEach::L6: [F, [f], {',
    '      "Q${A}${F}": { Type: AWS::SQS::Queue } }] }] }] }] }] }]',
  ]);
  assert.match(deep.errors[0]!, /^5:61 TP4014 loops nest at most 5 deep; this one is inside 5/);
});

test('Fn::Transform (a macro or AWS::Include on a snippet) is refused by name where it is written', async (t) => {
  const registry = await testRegistry(t);
  const loaded = loadTemplate(
    [
      'Resources:',
      '  W:',
      '    Type: Test::Shop::Widget',
      '    Properties:',
      '      Name: w',
      '      Color:',
      '        Fn::Transform: { Name: String, Parameters: { InputString: red, Operation: Upper } }',
    ].join('\n'),
    'stack.yaml',
  );
  const result = await analyzeTemplate(loaded.template!, {
    types: registryTypes(registry),
    parameters: {},
    requireValues: false,
    file: 'stack.yaml',
  });
  assert.deepEqual(
    result.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`),
    [
      '7:9 TP4018 Fn::Transform String is a macro, which CloudFormation runs as an AWS Lambda function, and Typeplane runs none; deploy the template as AWS processed it instead (after a change set, `aws cloudformation get-template --stack-name <stack> --template-stage Processed` prints it), without this transform',
    ],
  );
});

test('a parameter only a loop iterates over, and a condition only a policy names, are used (no TP4013, TP4019)', async (t) => {
  const registry = await testRegistry(t);
  const { template, diagnostics } = expand([
    'Parameters:',
    '  Sizes: { Type: CommaDelimitedList, Default: "S,M" }',
    '  Env: { Type: String, Default: prod }',
    'Conditions:',
    '  IsProd: !Equals [!Ref Env, prod]',
    'Resources:',
    '  Fn::ForEach::Widgets:',
    '    - Size',
    '    - !Ref Sizes',
    '    - Widget${Size}:',
    '        Type: Test::Shop::Widget',
    '        DeletionPolicy: !If [IsProd, Retain, Delete]',
    '        Properties: { Name: widget, Size: !Ref Size }',
  ]);
  assert.deepEqual(diagnostics, []);
  const result = await analyzeTemplate(template, {
    types: registryTypes(registry),
    parameters: {},
    requireValues: false,
  });
  assert.deepEqual(result.diagnostics, []);
  assert.deepEqual(
    [...template.resources.values()].map((r) => `${r.logicalId} ${r.deletionPolicy}`),
    ['WidgetS Retain', 'WidgetM Retain'],
  );
});

test("the Rules section's functions are read in their short forms (!ValueOf, !EachMemberEquals, …), as published templates write them", () => {
  const { errors, template } = expand([
    'Parameters:',
    '  VpcId: { Type: "AWS::EC2::VPC::Id" }',
    '  Subnets: { Type: "List<AWS::EC2::Subnet::Id>" }',
    'Rules:',
    '  SubnetsInVPC:',
    '    Assertions:',
    '      - Assert: !EachMemberEquals [!ValueOf [Subnets, VpcId], !Ref VpcId]',
    '      - Assert: !EachMemberIn [!ValueOfAll ["AWS::EC2::Subnet::Id", VpcId], !RefAll "AWS::EC2::VPC::Id"]',
    '      - Assert: !Contains [[a, b], !Ref VpcId]',
    'Resources:',
    '  Q: { Type: AWS::SQS::Queue }',
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual((template.document.value as any).Rules.SubnetsInVPC.Assertions[0], {
    Assert: { 'Fn::EachMemberEquals': [{ 'Fn::ValueOf': ['Subnets', 'VpcId'] }, { Ref: 'VpcId' }] },
  });
});

test('a Fn::ForEach without the transform is refused once, at the loop, saying to declare it', () => {
  const loaded = loadTemplate(
    [
      'Resources:',
      '  Fn::ForEach::Queues: [Name, [a], { "Queue${Name}": { Type: AWS::SQS::Queue } }]',
      '  Kept: { Type: AWS::SQS::Queue }',
    ].join('\n'),
    'stack.yaml',
    languageExtensions(),
  );
  assert.deepEqual(
    loaded.diagnostics.map((d) => `${d.line}:${d.column} ${d.rule} ${d.message}`),
    [
      '2:3 TP4018 Fn::ForEach is a loop of the AWS::LanguageExtensions transform: declare `Transform: AWS::LanguageExtensions` to have it expanded',
    ],
  );
  assert.deepEqual([...loaded.template!.resources.keys()], ['Kept']);
});

test('a long item costs nothing where &{Identifier} is not written: its letters are kept only when asked for, once', () => {
  // 20,000 strings that might hold an identifier, under a loop over one item of 500,000 characters.
  const properties = Object.fromEntries(
    Array.from({ length: 20_000 }, (_, i) => [`P${i}`, { 'Fn::Sub': '{x}' }]),
  );
  const text = JSON.stringify({
    Transform: 'AWS::LanguageExtensions',
    Parameters: { Items: { Type: 'CommaDelimitedList' } },
    Resources: {
      'Fn::ForEach::A': [
        'X',
        { Ref: 'Items' },
        { 'Q${X}': { Type: 'AWS::SQS::Queue', Properties: properties } },
      ],
    },
  });
  const cpu = process.cpuUsage();
  const loaded = loadTemplate(
    text,
    'stack.json',
    languageExtensions({ parameters: { Items: 'y'.repeat(500_000) } }),
  );
  const spent = process.cpuUsage(cpu);
  assert.ok(spent.user + spent.system < 2_000_000, `took ${(spent.user + spent.system) / 1000} ms of CPU`);
  assert.equal(Object.keys(loaded.template!.resources.values().next().value!.properties).length, 20_000);
});

test('a problem a loop makes for each item is reported once, where it is written', () => {
  const { errors } = expand(
    [
      'Parameters:',
      '  Items: { Type: CommaDelimitedList }',
      'Resources:',
      '  Fn::ForEach::A: [X, !Ref Items, { Same: { Type: AWS::SQS::Queue } }]',
    ],
    { parameters: { Items: Array.from({ length: 20_000 }, (_, i) => `i${i}`).join(',') } },
  );
  assert.deepEqual(
    errors.map((e) => e.slice(0, e.indexOf(' ', e.indexOf(' ') + 1))),
    ['6:37 TP4014'],
  );
});
