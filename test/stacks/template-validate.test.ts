import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTemplate } from '../../src/stacks/template.js';
import { testRegistry, validateText } from './helpers.js';

const where = (d: { file?: string; line?: number; column?: number; rule: string }) =>
  `${d.file}:${d.line}:${d.column} ${d.rule}`;

test('YAML short forms read as their long forms, positions kept', () => {
  const { template, diagnostics } = loadTemplate(
    [
      'Resources:',
      '  A:',
      '    Type: Test::Shop::Widget',
      '    Properties:',
      '      Name: !Ref N',
      '      Color: !GetAtt B.Endpoint.Host',
      '      Labels: !Split [",", !Sub "${AWS::Region},x"]',
      '      Count: !Select [0, !If [C, [1], [2]]]',
    ].join('\n'),
    'short.yaml',
  );
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(template!.resources.get('A')!.properties, {
    Name: { Ref: 'N' },
    Color: { 'Fn::GetAtt': ['B', 'Endpoint.Host'] },
    Labels: { 'Fn::Split': [',', { 'Fn::Sub': '${AWS::Region},x' }] },
    Count: { 'Fn::Select': [0, { 'Fn::If': ['C', [1], [2]] }] },
  });
  assert.equal(template!.document.locate('/Resources/A/Properties/Labels/Fn::Split/1', 'value')?.line, 7);
});

test('every problem is reported at once, located, with its rule id and a fix', async (t) => {
  const registry = await testRegistry(t);
  const text = [
    'Parameters:', // 1
    '  Size:', // 2
    '    Type: String', // 3
    '    AllowedValues: [S, M]', // 4
    '  Unused:', // 5
    '    Type: Number', // 6
    '    Default: 3', // 7
    'Conditions:', // 8
    '  Never: !Equals [a, b]', // 9
    'Resources:', // 10
    '  W:', // 11
    '    Type: Test::Shop::Widgett', // 12
    '  V:', // 13
    '    Type: Test::Shop::Widget', // 14
    '    Properties:', // 15
    '      Name: Bad_Name', // 16
    '      Colour: red', // 17
    '      Id: x', // 18
    '      Size: !Ref Sise', // 19
    '      Color: !GetAtt U.Secret', // 20
    '  G:', // 21
    '    Type: Test::Shop::Gadget', // 22
    '    DependsOn: Nope', // 23
    '    Properties:', // 24
    '      Note: !GetAtt V.Nothing', // 25
    '      WidgetName: !Ref H', // 26
    '  H:', // 27
    '    Type: Test::Shop::Gadget', // 28
    '    Properties:', // 29
    '      Note: !GetAtt G.GadgetId', // 30
    '  U:', // 31
    '    Type: Test::Shop::Widget', // 32
    '    Properties: { Name: u }', // 33
  ].join('\n');
  const { diagnostics, analysis } = await validateText(registry, text, { Size: 'XL' });
  assert.equal(analysis, undefined);
  const found = diagnostics.map((d) => `${where(d)} ${d.severity}`);
  const expect = (fragment: string, messagePart: string) => {
    const d = diagnostics.find((x) => where(x) === fragment);
    assert.ok(d, `expected ${fragment} among\n${found.join('\n')}`);
    assert.match(d.message, new RegExp(messagePart));
  };
  expect('stack.yaml:2:3 TP4012', 'Size: the value given "XL" is not one of the AllowedValues');
  expect('stack.yaml:5:3 TP4013', 'never used');
  expect('stack.yaml:9:3 TP4019', 'never used');
  expect('stack.yaml:12:5 TP4004', 'did you mean Test::Shop::Widget\\?');
  expect('stack.yaml:16:7 TP4005', 'must match pattern');
  expect('stack.yaml:17:7 TP4005', "did you mean 'Color'");
  expect('stack.yaml:18:7 TP4006', 'read-only');
  expect('stack.yaml:19:18 TP4007', "did you mean 'Size'");
  expect('stack.yaml:20:22 TP4009', 'write-only');
  expect('stack.yaml:23:5 TP4016', "no resource named 'Nope'");
  expect('stack.yaml:25:21 TP4008', "has no attribute 'Nothing'");
  expect('stack.yaml:21:3 TP4010', 'G → H → G');
  assert.equal(diagnostics.find((d) => d.rule === 'TP4013')!.severity, 'warning');
});

test('parameters: kinds, constraints, missing values; NoEcho values are never quoted', async (t) => {
  const registry = await testRegistry(t);
  const text = [
    'Parameters:',
    '  Count: { Type: Number, MinValue: 1, MaxValue: 5 }',
    '  Names: { Type: CommaDelimitedList }',
    '  Ports: { Type: "List<Number>" }',
    '  Secret: { Type: String, NoEcho: true, AllowedPattern: "[a-z]+", MinLength: 4 }',
    '  Needed: { Type: String }',
    'Resources:',
    '  W:',
    '    Type: Test::Shop::Widget',
    '    Properties:',
    '      Name: !Ref Needed',
    '      Count: !Ref Count',
    '      Labels: !Ref Names',
    '      Secret: !Ref Secret',
    '      Color: !Join ["-", !Ref Ports]',
  ].join('\n');
  const bad = await validateText(
    registry,
    text,
    { Count: '9', Names: 'a,b', Ports: '80,x', Secret: 'HUNTER2' },
    true,
  );
  const messages = bad.diagnostics.map((d) => `${d.rule} ${d.message}`).join('\n');
  assert.match(messages, /TP4012 parameter Count: the value given "9" is above MaxValue 5/);
  assert.match(messages, /TP4012 parameter Ports: the value given "x" is not a number/);
  assert.match(
    messages,
    /TP4012 parameter Secret: the value given \(hidden: NoEcho\) does not match AllowedPattern/,
  );
  assert.match(messages, /TP4012 parameter Needed has no value and no Default/);
  assert.doesNotMatch(messages, /HUNTER2/);

  const good = await validateText(
    registry,
    text,
    { Count: 3, Names: 'a,b', Ports: [80, 443], Secret: 'hunter', Needed: 'w1' },
    true,
  );
  assert.deepEqual(good.diagnostics, []);
  assert.deepEqual(good.analysis!.parameters.get('Ports'), [80, 443]);
  assert.deepEqual(good.analysis!.parameters.get('Names'), ['a', 'b']);
  assert.deepEqual([...good.analysis!.secretParameters], ['Secret']);

  // AWS-specific types hold strings (or lists); an SSM parameter type holds a parameter's name (its
  // value is read at plan and deploy: test/stacks/ssm-parameter-types.test.ts); a malformed one says
  // what the forms are.
  const aws = await validateText(
    registry,
    [
      'Parameters:',
      '  Subnets: { Type: "List<AWS::EC2::Subnet::Id>" }',
      '  Image: { Type: "AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>", Default: /aws/ami }',
      '  Bad: { Type: "AWS::SSM::Parameter::Value<Image>", Default: v }',
      'Resources:',
      '  W: { Type: Test::Shop::Widget, Properties: { Name: w, Labels: !Ref Subnets, Color: !Ref Image } }',
      '  V: { Type: Test::Shop::Widget, Properties: { Name: !Ref Bad } }',
    ].join('\n'),
    { Subnets: 'subnet-1,subnet-2' },
  );
  assert.deepEqual(
    aws.diagnostics.map((d) => `${where(d)} ${d.message}`),
    [
      'stack.yaml:4:10 TP4011 Type "AWS::SSM::Parameter::Value<Image>" is not an SSM parameter type: write AWS::SSM::Parameter::Name or AWS::SSM::Parameter::Value<T>, T one of String, List<String>, CommaDelimitedList, an AWS-specific type (AWS::EC2::Image::Id) or a list of one',
    ],
  );
});

test('syntax errors and malformed sections are located', async (t) => {
  const registry = await testRegistry(t);
  const syntax = await validateText(registry, 'Resources:\n  A: [\n');
  assert.equal(syntax.diagnostics[0]!.rule, 'TP1006');
  const malformed = await validateText(
    registry,
    'Resourcez: {}\nResources:\n  A:\n    Type: Test::Shop::Widget\n    Properties: { Name: a }\n    DeletionPolicy: Maybe\n',
  );
  assert.deepEqual(
    malformed.diagnostics.map((d) => where(d)),
    ['stack.yaml:1:1 TP4001', 'stack.yaml:6:5 TP4003'],
  );
});

test('a template whose Type names a manifest type with its API version', async (t) => {
  const registry = await testRegistry(t);
  await registry.register(
    [
      'namespace: Test.Data',
      'types:',
      '  boxes:',
      '    description: A box.',
      '    apiVersions:',
      "      '2025-01-01':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            size: { type: string }',
    ].join('\n'),
  );
  const ok = await validateText(
    registry,
    'Resources:\n  B:\n    Type: Test.Data/boxes@2025-01-01\n    Properties: { name: b1, size: L }\n',
  );
  assert.deepEqual(ok.diagnostics, []);
  const wrong = await validateText(
    registry,
    'Resources:\n  B:\n    Type: Test.Data/boxes@2024-01-01\n    Properties: { name: b1 }\n',
  );
  assert.equal(where(wrong.diagnostics[0]!), 'stack.yaml:3:5 TP4020');
  assert.match(wrong.diagnostics[0]!.message, /serves Test.Data\/boxes@2025-01-01/);
});
