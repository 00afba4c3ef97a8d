/**
 * Registering a recipe type-checks it against its type before any instance exists: every problem at
 * once, each located in the recipe's own text with its rule, over real HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { BOX, BOX_TYPE, LOGIN, LOGIN_TYPE, RECIPE, SAMPLE_MANIFEST, SAMPLE_TYPE } from './fixtures.js';

let s: TestService;

/** A type whose required read-only Endpoint a recipe must produce, and whose Token is write-only. */
const SERVICE_TYPE = 'Test::Recipe::Service';
const SERVICE = JSON.stringify({
  typeName: SERVICE_TYPE,
  description: 'A service with a required output, for recipe checks.',
  properties: {
    Name: { type: 'string' },
    Replicas: { type: 'integer' },
    Labels: { type: 'object', properties: { team: { type: 'string' } }, additionalProperties: false },
    Endpoint: { type: 'string' },
    Port: { type: 'integer' },
    Token: { type: 'string' },
  },
  additionalProperties: false,
  required: ['Name', 'Endpoint'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  readOnlyProperties: ['/properties/Endpoint', '/properties/Port'],
  writeOnlyProperties: ['/properties/Token'],
});

before(async () => {
  s = await startTestService();
  for (const doc of [BOX, LOGIN, SERVICE, SAMPLE_MANIFEST]) {
    const r = await s.call('POST', '/v1/types', doc, {
      'content-type': doc.startsWith('{') ? 'application/json' : 'application/yaml',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
});
after(() => s.close());

const check = async (typeName: string, template: string, extra: Record<string, unknown> = {}) => {
  const r = await s.call('POST', '/v1/recipes/check', { typeName, template, file: 'recipe.yaml', ...extra });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as {
    valid: boolean;
    diagnostics: { rule: string; line: number; column: number; message: string; severity: string }[];
  };
};
const located = (d: { rule: string; line: number; column: number }) => `${d.rule} ${d.line}:${d.column}`;

test('the sample recipe fits the sample type: valid, no errors, and it names the types it makes', async () => {
  const r = await check(SAMPLE_TYPE, RECIPE);
  assert.equal(r.valid, true, JSON.stringify(r.diagnostics));
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
});

test('every problem at once, each at its line: unknown context paths (with a suggestion), a misfit input, a misplaced output, a leaked secret, a missing required output, a parameter without value', async () => {
  const template = [
    'Parameters:', //                                               1
    '  Password: { Type: String, NoEcho: true }', //                 2
    '  Orphan: { Type: String }', //                                 3
    'Resources:', //                                                 4
    '  Db:', //                                                      5
    `    Type: ${BOX_TYPE}`, //                                      6
    '    Properties:', //                                            7
    '      Name: !GetAtt context.resource.properties.Nmae', //       8
    '      Size: !GetAtt context.resource.properties.Replicas', //   9
    '      Password: !Ref Password', //                             10
    '      Host: !Sub "${context.resource.properties.Labels}"', //  11
    'Outputs:', //                                                  12
    '  Port:', //                                                   13
    '    Value: !Ref Password', //                                  14
    '  Name:', //                                                   15
    '    Value: x', //                                              16
    '  Extra:', //                                                  17
    '    Value: y', //                                              18
  ].join('\n');
  const r = await check(SERVICE_TYPE, template);
  assert.equal(r.valid, false);
  const got = r.diagnostics.map(located);
  for (const want of [
    'TP7001 8:21', // Nmae
    'TP7002 9:21', // an integer into an enum of strings
    'TP7002 11:18', // an object inside Fn::Sub
    'TP7004 14:5', // a NoEcho value to the read-only Port, which is not write-only
    'TP7008 14:5', // a string into the integer Port
    'TP7006 2:3', // Password gets no value (it is not generated)
    'TP7006 3:3', // nor does Orphan
  ])
    assert.ok(got.includes(want), `${want} missing from ${JSON.stringify(got)}`);
  assert.ok(
    got.some((g) => g.startsWith('TP7005')),
    'the required read-only Endpoint is never produced',
  );
  assert.ok(
    got.includes('TP7009 15:3'),
    'Name is no read-only property: the output fills nothing, a warning',
  );
  assert.ok(got.includes('TP7009 17:3'), 'nor does Extra');
  // The unknown path stands for a value: the stacks' analysis does not also call its property invalid.
  assert.ok(!got.some((g) => g.startsWith('TP4005 8:')), JSON.stringify(got));
  assert.match(r.diagnostics.find((d) => d.rule === 'TP7001')!.message, /did you mean Name\?/);
});

test("the template's own problems (TP4xxx) are located in the recipe's text, not in the template the stacks analyse", async () => {
  const template = [
    'Resources:',
    '  Db:',
    `    Type: ${BOX_TYPE}`,
    '    Properties:',
    '      Name: !Sub "${context.resource.name}"',
    '      Colour: red',
    '  Other:',
    '    Type: Test::Recipe::Nothing',
  ].join('\n');
  const r = await check(SAMPLE_TYPE, template);
  const got = r.diagnostics.map(located);
  assert.ok(got.includes('TP4005 6:7') || got.some((g) => g.startsWith('TP4005 6:')), JSON.stringify(got));
  assert.ok(
    got.some((g) => g.startsWith('TP4004 8:')),
    JSON.stringify(got),
  );
});

test('an explicit output map must land on properties the type has, read-only or write-only', async () => {
  const template = [
    'Metadata:',
    '  Typeplane::Recipe:',
    '    Outputs: { A: Endpoint, B: Nmae, C: Replicas }',
    'Resources:',
    '  Db:',
    `    Type: ${BOX_TYPE}`,
    '    Properties:',
    '      Name: !GetAtt context.resource.name',
    'Outputs:',
    '  A: { Value: !GetAtt Db.Host }',
    '  B: { Value: x }',
    '  C: { Value: 3 }',
  ].join('\n');
  const r = await check(SERVICE_TYPE, template);
  const messages = r.diagnostics.filter((d) => d.rule === 'TP7003').map((d) => `${d.line} ${d.message}`);
  assert.equal(messages.length, 2, JSON.stringify(r.diagnostics));
  assert.match(messages[0]!, /^11 B fills Nmae, which Test::Recipe::Service does not have/);
  assert.match(messages[1]!, /^12 C fills Replicas, which is neither read-only nor write-only/);
  assert.ok(
    !r.diagnostics.some((d) => d.line === 10 && d.severity === 'error'),
    'A lands on Endpoint, and fits',
  );
});

test('secrets: result.secrets must land on write-only properties, and a write-only property bound by name needs a NoEcho parameter', async () => {
  const template = [
    'Parameters:',
    '  Token: { Type: String }',
    'Resources:',
    '  Db:',
    `    Type: ${BOX_TYPE}`,
    '    Properties:',
    '      Name: !GetAtt context.resource.name',
    '      Password: !Ref Token',
    'Outputs:',
    '  result:',
    '    Value:',
    '      values:',
    '        Endpoint: !GetAtt Db.Host',
    '      secrets:',
    '        Port: !Ref Token',
  ].join('\n');
  const r = await check(SERVICE_TYPE, template);
  const got = r.diagnostics.map(located);
  assert.ok(got.includes('TP7004 2:3'), JSON.stringify(got));
  assert.ok(
    got.some((g) => g.startsWith('TP7004 15:')),
    JSON.stringify(got),
  );
});

test('registering a recipe that does not fit answers 400 with the located diagnostics, and registers nothing', async () => {
  const r = await s.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE.replace('properties.size', 'properties.sizes'),
    file: 'broken.yaml',
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.errorCode, 'InvalidRequest');
  const d = (r.body.details as { rule: string; line: number; message: string }[]).find(
    (x) => x.rule === 'TP7001',
  );
  assert.ok(d, JSON.stringify(r.body));
  assert.match(d.message, /did you mean size\?/);
  assert.equal(d.line, 18);
  const listed = await s.call('GET', `/v1/recipes?typeName=${encodeURIComponent(SAMPLE_TYPE)}`);
  assert.deepEqual(listed.body.recipes, []);
});

test('a recipe that makes its own type, and a template kind this server cannot run, are refused with what to do', async () => {
  const self = await s.call('POST', '/v1/recipes/check', {
    typeName: BOX_TYPE,
    template: `Resources:\n  Me:\n    Type: ${BOX_TYPE}\n    Properties:\n      Name: !GetAtt context.resource.name\n`,
  });
  assert.equal(self.body.valid, false);
  assert.ok(
    self.body.diagnostics.some((d: { message: string }) =>
      /makes Test::Recipe::Database itself/.test(d.message),
    ),
  );
  const kind = await s.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    templateKind: 'terraform',
  });
  assert.equal(kind.status, 400);
  assert.match(kind.body.message, /templateKind terraform cannot run on this server.*docs\/recipes\.md/);
});

test('a first recipe for a type that already has resources (made by another provider) is refused: it would not know them', async () => {
  const made = await s.call('POST', `/v1/resources/${encodeURIComponent(BOX_TYPE)}`, {
    desiredState: { Name: 'before', Password: 'long-enough-secret' },
  });
  assert.equal(made.status, 202, JSON.stringify(made.body));
  assert.equal((await settle(s, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const r = await s.call('POST', '/v1/recipes', {
    typeName: BOX_TYPE,
    template: `Resources:\n  L:\n    Type: ${LOGIN_TYPE}\n    Properties:\n      User: !GetAtt context.resource.name\n`,
  });
  assert.equal(r.status, 409, JSON.stringify(r.body));
  assert.match(r.body.message, /has 1 resource made without a recipe.*delete it first/);
});

test("a Radius recipe's result.resources is accepted as written (the instance's stack knows what it made); other result keys are not", async () => {
  const withResources = RECIPE.replace(
    '      values:\n',
    "      resources:\n        - !Sub '/planes/typeplane/${Database}'\n      values2: {}\n      values:\n",
  );
  const r = await check(SAMPLE_TYPE, withResources);
  const rules = r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.rule} ${d.message}`);
  assert.equal(rules.length, 1, JSON.stringify(rules));
  assert.match(rules[0]!, /^TP7007 result takes 'values' and 'secrets'/);
});
