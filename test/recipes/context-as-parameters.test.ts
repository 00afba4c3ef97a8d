/**
 * A composed create binds an instance's context reads as parameters (one template text for every
 * instance of a recipe version) and has the stacks reuse that text's analysis, bound to each
 * instance's values. What it makes must be exactly what the inline binding (the context's values
 * written into the template, analysed anew: what the instance's stack deploys when it is adopted)
 * makes: the same resources, properties, names and outputs, secrets alike — for text read in Fn::Sub,
 * read whole, read in a condition, and absent.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InstanceRecord, RecipeVersion } from '../../src/recipes/records.js';
import { bindInstance } from '../../src/recipes/instance-stack.js';
import type { MadeResource } from '../../src/stacks/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BOX_TYPE, LOGIN_TYPE, RECIPE_PARAMETERS, registerSampleTypes, SAMPLE_TYPE } from './fixtures.js';

const TEMPLATE = `
${RECIPE_PARAMETERS}
Conditions:
  Large: !Equals [!GetAtt context.resource.properties.size, L]
Resources:
  Database:
    Type: ${BOX_TYPE}
    Properties:
      Name: !Sub '\${context.resource.name}_\${Suffix}'
      Size: !GetAtt context.resource.properties.size
      Password: !Ref Password
      Host: !Sub '\${context.environment.name}.\${context.application.name}.db'
  Login:
    Type: ${LOGIN_TYPE}
    Condition: Large
    Properties:
      User: !Sub '\${context.resource.name}_user'
      Database: !GetAtt context.application.name
Outputs:
  result:
    Value:
      values:
        status.binding.hostname: !GetAtt Database.Host
        status.binding.username: !If [Large, !Ref Login, none]
        status.binding.secret: !Sub '\${Database}/\${Password}'
`;

let s: TestService;
before(async () => {
  s = await startTestService({});
  await registerSampleTypes(s);
});
after(() => s.close());

const version: RecipeVersion = {
  environment: 'default',
  typeName: SAMPLE_TYPE,
  recipe: 'default',
  version: 1,
  template: TEMPLATE,
  parameters: {},
  templateKind: 'cloudformation',
  templatePath: 'default.template',
} as unknown as RecipeVersion;

function recordOf(identifier: string): InstanceRecord {
  return {
    typeName: SAMPLE_TYPE,
    identifier,
    environment: 'default',
    recipe: 'default',
    version: 1,
    stack: `tp-recipe-test-${identifier}`,
    generated: { Password: `a-generated-password-of-${identifier}` },
    createdBy: 'token',
    phase: 'creating',
  };
}

const propertiesOf = (resource: unknown) => (resource as { properties: Record<string, unknown> }).properties;

/** What each resource is made with, in order, and the outputs: as the composed and direct creates see them. */
async function evaluated(
  identifier: string,
  desired: Record<string, unknown>,
  symbolic: boolean,
  recipe = version,
) {
  const type = (await s.registry.get(SAMPLE_TYPE)).type;
  const record = recordOf(identifier);
  const bound = bindInstance(type, record, recipe, desired, symbolic);
  const template = await s.stacks.direct(record.stack, bound.text, bound.parameters, {
    seed: `seed-${identifier}`,
    stackId: `stack-id-${identifier}`,
    reuse: symbolic,
  });
  assert.ok(template, 'made without a stack');
  const made = new Map<string, MadeResource>();
  const resources = [];
  for (const logicalId of template.order) {
    const resource = template.resource(logicalId, made);
    resources.push(resource ?? `${logicalId}: its condition is false`);
    if (!resource) continue;
    const id = String(resource.properties.Name ?? resource.properties.User);
    made.set(logicalId, { identifier: id, model: { ...resource.properties } });
  }
  return { text: bound.text, resources, outputs: template.outputs(made) };
}

test('context bound as parameters evaluates as the context written into the template does, instance by instance', async () => {
  const instances: [string, Record<string, unknown>][] = [
    ['orders', { name: 'orders', size: 'L', application: 'shop' }],
    ['billing', { name: 'billing', size: 'S' }],
    ['ledger', { name: 'ledger', size: 'L', application: 'books' }],
    ['orders', { name: 'orders', size: 'L', application: 'shop' }],
  ];
  const texts = new Set<string>();
  for (const [identifier, desired] of instances) {
    const inline = await evaluated(identifier, desired, false);
    const symbolic = await evaluated(identifier, desired, true);
    const { text, ...made } = symbolic;
    texts.add(text);
    assert.deepEqual(made, { resources: inline.resources, outputs: inline.outputs }, identifier);
    // The generated password reaches its resource, and the output built from it stays a secret.
    assert.equal(propertiesOf(inline.resources[0]).Password, `a-generated-password-of-${identifier}`);
    assert.equal(made.outputs.find((o) => o.name === 'result')?.secret, true);
  }
  // The instances with an application share one text; the one without has a text of its own (an
  // absent value is no parameter): two in all, where inline binding gives one per instance.
  assert.equal(texts.size, 2);
});

const COUNTER_TYPE = 'Test::Recipe::Counter';
const counter = (count: object) =>
  JSON.stringify({
    typeName: COUNTER_TYPE,
    description: 'A counter a recipe makes, for tests.',
    properties: { Id: { type: 'string' }, Count: count },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Id'],
  });

test('a type registered again since is analysed anew: its values are shaped by the type as it now is', async () => {
  const register = async (doc: string) => {
    const r = await s.call('POST', '/v1/types', doc, { 'content-type': 'application/json' });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
  };
  await register(counter({ type: 'string' }));
  const counting: RecipeVersion = {
    ...version,
    template: `
Resources:
  Counter:
    Type: ${COUNTER_TYPE}
    Properties:
      Id: !Sub 'c-\${context.resource.name}'
      Count: !GetAtt context.resource.name
`,
  };
  const count = async (symbolic: boolean) =>
    (await evaluated('42', { name: '42', size: 'S' }, symbolic, counting)).resources[0];
  assert.deepEqual(await count(true), await count(false));
  assert.equal(propertiesOf(await count(true)).Count, '42');
  // Count becomes a number: a template's text becomes one where the schema wants one (conform).
  await register(counter({ type: 'integer' }));
  assert.equal(propertiesOf(await count(false)).Count, 42);
  assert.deepEqual(await count(true), await count(false));
});
