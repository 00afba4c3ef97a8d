/**
 * `Transform: AWS::LanguageExtensions` over real HTTP: a stack whose resources and outputs a
 * Fn::ForEach makes deploys, answers its outputs, plans a change of its collection as the resources
 * added and removed, and is deleted; Fn::Length, Fn::ToJsonString and Fn::FindInMap's DefaultValue
 * resolve; validate locates a problem of a generated resource in the loop as written. The published
 * samples (fn-foreach-s3-outputs.yaml, fn-foreach-ddb.yaml) validate against the AWS corpus, and one
 * deploys on the synthesizing state provider with its outputs read.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startTestService, WIDGET, type TestService } from '../helpers/service.js';
import { AWS_CORPUS, corpusSkip } from '../helpers/requirements.js';

const TEMPLATE = `
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::LanguageExtensions
Parameters:
  Colors: { Type: CommaDelimitedList, Default: "red,green" }
Mappings:
  Sizes: { red: { Size: L } }
Resources:
  Fn::ForEach::Widgets:
    - Color
    - !Ref Colors
    - Widget\${Color}:
        Type: Test::Shop::Widget
        Properties:
          Name: !Sub "w-\${Color}"
          Color: !Ref Color
          Size: !FindInMap [Sizes, !Ref Color, Size, { DefaultValue: S }]
          Count: !Length { Ref: Colors }
          Labels:
            - !ToJsonString { color: !Ref Color, all: !Ref Colors }
Outputs:
  Fn::ForEach::Names:
    - Color
    - !Ref Colors
    - Widget\${Color}Name:
        Value: !GetAtt [!Sub "Widget\${Color}", Name]
  Count:
    Value: !Length { Ref: Colors }
`;

let s: TestService;
before(async () => {
  s = await startTestService();
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
});
after(() => s?.close());

const outputsOf = (stack: { outputs: { name: string; value: unknown }[] }) =>
  Object.fromEntries(stack.outputs.map((o) => [o.name, o.value]));

test('a stack a Fn::ForEach makes deploys, answers its outputs, plans a changed collection and is deleted', async () => {
  const put = await s.call('PUT', '/v1/stacks/colors?wait=20', { template: TEMPLATE });
  assert.equal(put.status, 202, JSON.stringify(put.body));
  assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
  assert.deepEqual(outputsOf(put.body.stack), {
    WidgetredName: 'w-red',
    WidgetgreenName: 'w-green',
    Count: 2,
  });
  const red = await s.call('GET', '/v1/resources/Test::Shop::Widget/w-red');
  assert.deepEqual(red.body.properties, {
    Name: 'w-red',
    Color: 'red',
    Size: 'L',
    Count: 2,
    Labels: ['{"color":"red","all":["red","green"]}'],
  });
  const green = await s.call('GET', '/v1/resources/Test::Shop::Widget/w-green');
  assert.equal(green.body.properties.Size, 'S');

  const plan = await s.call('POST', '/v1/stacks/colors/plans', {
    template: TEMPLATE,
    parameters: { Colors: 'red,blue,black' },
  });
  assert.equal(plan.status, 201, JSON.stringify(plan.body));
  assert.deepEqual(Object.fromEntries(plan.body.changes.map((c: any) => [c.logicalId, c.action])), {
    Widgetred: 'Modify',
    Widgetblue: 'Add',
    Widgetblack: 'Add',
    Widgetgreen: 'Remove',
  });
  const applied = await s.call('POST', `/v1/stacks/colors/plans/${plan.body.planId}/apply?wait=20`);
  assert.equal(applied.body.stack.status, 'UPDATE_COMPLETE', JSON.stringify(applied.body.stack));
  assert.deepEqual(outputsOf(applied.body.stack), {
    WidgetredName: 'w-red',
    WidgetblueName: 'w-blue',
    WidgetblackName: 'w-black',
    Count: 3,
  });
  assert.equal((await s.call('GET', '/v1/resources/Test::Shop::Widget/w-green')).status, 404);

  const deleted = await s.call('DELETE', '/v1/stacks/colors?wait=20');
  assert.equal(deleted.body.stack.status, 'DELETE_COMPLETE', JSON.stringify(deleted.body.stack));
  assert.deepEqual((await s.call('GET', '/v1/resources/Test::Shop::Widget')).body.resourceDescriptions, []);
});

test("validate locates a generated resource's problem in the loop as written, and refuses a SAM template by name", async () => {
  const template = TEMPLATE.replace(
    'Size: !FindInMap [Sizes, !Ref Color, Size, { DefaultValue: S }]',
    'Size: XL',
  );
  const r = await s.call('POST', '/v1/stacks/validate', { template, parameters: { Colors: 'a' } });
  assert.equal(r.body.valid, false);
  assert.deepEqual(
    r.body.diagnostics.map((d: any) => `${d.line}:${d.column} ${d.rule} ${d.pointer}`),
    ['17:11 TP4005 /Resources/Widgeta/Properties/Size'],
  );
  const sam = await s.call('POST', '/v1/stacks/validate', {
    template:
      'Transform: AWS::Serverless-2016-10-31\nResources:\n  W: { Type: Test::Shop::Widget, Properties: { Name: w } }\n',
  });
  assert.equal(sam.body.valid, false);
  assert.match(
    sam.body.diagnostics[0].message,
    /^Transform AWS::Serverless-2016-10-31 \(SAM\) is not supported/,
  );
  // A deployment is refused with the same diagnostics, nothing created.
  const put = await s.call('PUT', '/v1/stacks/bad?wait=20', { template, parameters: { Colors: 'a' } });
  assert.equal(put.status, 400, JSON.stringify(put.body));
  assert.match(put.body.message, /the template is invalid: 1 error, first: TP4005/);
});

test('Fn::Length, Fn::ToJsonString and FindInMap DefaultValue without the transform are refused where written, saying to add it', async () => {
  const template = [
    'Parameters:',
    '  Colors: { Type: CommaDelimitedList, Default: "red,green" }',
    'Mappings:',
    '  Sizes: { red: { Size: L } }',
    'Resources:',
    '  W:',
    '    Type: Test::Shop::Widget',
    '    Properties:',
    '      Name: w',
    '      Size: !FindInMap [Sizes, red, Size, { DefaultValue: S }]',
    '      Count: !Length { Ref: Colors }',
    '      Labels:',
    '        - { "Fn::ToJsonString": { all: !Ref Colors } }',
    '',
  ].join('\n');
  const r = await s.call('POST', '/v1/stacks/validate', { template });
  assert.equal(r.body.valid, false, JSON.stringify(r.body));
  assert.deepEqual(
    r.body.diagnostics.map((d: any) => `${d.line} ${d.rule} ${d.pointer}`),
    [
      '11 TP4018 /Resources/W/Properties/Count/Fn::Length',
      '13 TP4018 /Resources/W/Properties/Labels/0/Fn::ToJsonString',
      '10 TP4018 /Resources/W/Properties/Size/Fn::FindInMap/3/DefaultValue',
    ],
  );
  for (const d of r.body.diagnostics)
    assert.match(d.message, /declare `Transform: AWS::LanguageExtensions` at the top of the template/);
  // With the transform the same template validates.
  const fixed = await s.call('POST', '/v1/stacks/validate', {
    template: `Transform: AWS::LanguageExtensions\n${template}`,
  });
  assert.equal(fixed.body.valid, true, JSON.stringify(fixed.body));
});

const skip = corpusSkip();
const FIXTURES = new URL('../fixtures/cloudformation-templates/', import.meta.url);

test(
  'the published fn-foreach samples validate against the AWS corpus, and fn-foreach-s3-outputs deploys with its Arn outputs',
  { skip },
  async (t) => {
    const aws = await startTestService({ stateProvider: { synthesize: ['AWS::*'] } });
    t.after(() => aws.close());
    for (const typeName of ['AWS::S3::Bucket', 'AWS::DynamoDB::Table']) {
      const doc = readFileSync(`${AWS_CORPUS}${typeName.replaceAll('::', '_')}.json`, 'utf8');
      assert.equal((await aws.call('POST', '/v1/types', doc)).status, 201, typeName);
    }
    for (const file of ['fn-foreach-s3-outputs.yaml', 'fn-foreach-ddb.yaml']) {
      const template = readFileSync(new URL(file, FIXTURES), 'utf8');
      const r = await aws.call('POST', '/v1/stacks/validate', { template });
      assert.equal(r.body.valid, true, `${file}: ${JSON.stringify(r.body.diagnostics)}`);
    }
    const put = await aws.call('PUT', '/v1/stacks/buckets?wait=30', {
      template: readFileSync(new URL('fn-foreach-s3-outputs.yaml', FIXTURES), 'utf8'),
    });
    assert.equal(put.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(put.body.stack));
    const outputs = outputsOf(put.body.stack);
    assert.deepEqual(Object.keys(outputs), ['S3BucketAArn', 'S3BucketBArn', 'S3BucketCArn']);
    const ids = Object.fromEntries(put.body.stack.resources.map((r: any) => [r.logicalId, r.identifier]));
    for (const id of ['A', 'B', 'C'])
      assert.equal(outputs[`S3Bucket${id}Arn`], `arn:aws:s3:::${ids[`S3Bucket${id}`]}`);
  },
);
