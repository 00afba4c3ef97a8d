/**
 * The JSON Schemas consumers get, checked with a draft-07 validator (ajv): the editor schemas accept
 * every bundled and corpus document (no false alarms in an editor) and refuse what the dialects
 * refuse; a type's properties schema marks read-only and write-only members; the stack template
 * schema checks each resource's Properties according to its Type.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import {
  manifestEditorSchema,
  resourceSchemaEditorSchema,
  stackTemplateSchema,
  typePropertiesSchema,
} from '../../src/codegen/index.js';
import { validateDocument, type ResourceType } from '../../src/schema/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const corpus = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));
const ajv = () => new Ajv({ strict: false, allErrors: true, validateFormats: false });

function filesIn(dir: string, pattern: RegExp): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => pattern.test(f))
        .map((f) => join(dir, f))
    : [];
}

test('the manifest editor schema accepts every bundled and corpus manifest', () => {
  const check = ajv().compile(manifestEditorSchema());
  const files = [
    ...filesIn(join(root, 'examples'), /\.ya?ml$/),
    ...filesIn(join(corpus, 'radius-manifests'), /\.ya?ml$/),
    // Radius's own: empty schemas, no descriptions, 'location'.
    ...filesIn(join(root, 'test/fixtures/radius/built-in-providers'), /\.ya?ml$/),
    // The sample of the Radius schema design, as it stands there.
    ...filesIn(join(root, 'test/fixtures/radius'), /\.ya?ml$/),
  ];
  assert.ok(files.length >= 10);
  assert.ok(files.some((f) => f.endsWith('radius-design-postgresDatabases.yaml')));
  for (const file of files) {
    const doc = parse(readFileSync(file, 'utf8'));
    if (!('types' in doc)) continue;
    assert.equal(check(doc), true, `${file}: ${JSON.stringify(check.errors?.slice(0, 3))}`);
  }
});

test('the manifest editor schema refuses unknown keys and types, as validate does', () => {
  const check = ajv().compile(manifestEditorSchema());
  const doc = (schema: unknown) => ({
    namespace: 'Acme.Things',
    types: { things: { description: 'A thing.', apiVersions: { '2025-01-01': { schema } } } },
  });
  assert.equal(check(doc({ type: 'object', properties: { a: { type: 'string' } } })), true);
  assert.equal(check(doc({ type: 'object', properties: { a: { type: 'strng' } } })), false);
  assert.equal(
    check(doc({ type: 'object', properties: { a: { type: 'string', patternProperties: {} } } })),
    false,
  );
  assert.equal(check({ namespace: 'no-dots', types: {} }), false);
  // Radius's namespace rule: two PascalCase segments of two characters or more.
  assert.equal(check({ namespace: 'Acme.X', types: {} }), false);
  assert.equal(check({ types: {} }), false, 'a namespace is required');
  // The design's recipe status URL and the secret a string names are accepted; other refs are not.
  const status = { $ref: 'https://radapp.io/schemas/v1#RecipeStatus' };
  assert.equal(check(doc({ type: 'object', properties: { recipe: status } })), true);
  assert.equal(check(doc({ type: 'object', properties: { a: { $ref: '#/definitions/A' } } })), false);
  const secret = { type: 'string', schema: { type: 'object', properties: { password: { type: 'string' } } } };
  assert.equal(check(doc({ type: 'object', properties: { secret } })), true);
});

test('the resource schema editor schema accepts the AWS corpus and our examples, with descriptions', () => {
  const schema = resourceSchemaEditorSchema();
  const check = ajv().compile(schema);
  const files = [
    ...filesIn(join(root, 'examples'), /\.json$/),
    ...filesIn(join(corpus, 'aws-resource-schemas'), /\.json$/).filter((_, i) => i % 10 === 0),
  ];
  for (const file of files)
    assert.equal(
      check(JSON.parse(readFileSync(file, 'utf8'))),
      true,
      `${file}: ${JSON.stringify(check.errors?.slice(0, 3))}`,
    );
  const properties = schema.properties as Record<string, { description?: string }>;
  assert.match(properties.readOnlyProperties!.description!, /clients cannot/);
  assert.equal(
    check({
      typeName: 'Acme-Bad',
      description: 'x',
      properties: { A: {} },
      primaryIdentifier: ['/properties/A'],
      additionalProperties: false,
    }),
    false,
  );
});

const queues = (): ResourceType => {
  const result = validateDocument(readFileSync(join(root, 'examples/queues.yaml'), 'utf8'), {
    file: 'queues.yaml',
  });
  assert.equal(result.valid, true);
  return result.types[0]!;
};
const secretType = (): ResourceType => {
  const result = validateDocument(
    JSON.stringify({
      typeName: 'Acme::Vault::Secret',
      description: 'A secret.',
      additionalProperties: false,
      definitions: {
        Rotation: { type: 'object', additionalProperties: false, properties: { Days: { type: 'integer' } } },
      },
      properties: {
        Name: { type: 'string', description: 'The name.' },
        Value: { type: 'string' },
        Arn: { type: 'string' },
        Rotation: { $ref: '#/definitions/Rotation' },
      },
      required: ['Name'],
      readOnlyProperties: ['/properties/Arn'],
      writeOnlyProperties: ['/properties/Value'],
      createOnlyProperties: ['/properties/Name'],
      primaryIdentifier: ['/properties/Name'],
    }),
    { file: 'secret.json' },
  );
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
  return result.types[0]!;
};

test("a type's properties schema marks read-only and write-only members and keeps descriptions", () => {
  const schema = typePropertiesSchema(secretType());
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  assert.equal(properties.Arn!.readOnly, true);
  assert.equal(properties.Value!.writeOnly, true);
  assert.equal(properties.Name!.description, 'The name.');
  assert.equal(schema.description, 'A secret.');
  const check = ajv().compile(schema);
  assert.equal(check({ Name: 'a', Rotation: { Days: 3 } }), true);
  assert.equal(check({ Name: 'a', Rotation: { Days: 'three' } }), false, 'definitions still resolve');
  const q = typePropertiesSchema(queues()).properties as Record<string, Record<string, unknown>>;
  assert.equal(q.url!.readOnly, true);
});

test("the stack template schema checks each resource's Properties according to its Type", () => {
  const check = ajv().compile(stackTemplateSchema([queues(), secretType()]));
  const template = (resources: Record<string, unknown>) => ({ Resources: resources });
  assert.equal(
    check(
      template({
        Orders: { Type: 'Typeplane.Messaging/queues', Properties: { name: 'orders', retentionHours: 24 } },
        Pinned: {
          Type: 'Typeplane.Messaging/queues@2025-01-01-preview',
          Properties: { name: 'p', fifo: { Ref: 'Fifo' } },
        },
        Key: {
          Type: 'Acme::Vault::Secret',
          Properties: { Name: { 'Fn::Sub': '${AWS::StackName}-key' }, Value: 'x' },
          DependsOn: 'Orders',
        },
      }),
    ),
    true,
    JSON.stringify(check.errors),
  );
  const refused = (resources: Record<string, unknown>) => {
    assert.equal(check(template(resources)), false, JSON.stringify(resources));
  };
  refused({ Q: { Type: 'Typeplane.Messaging/queues', Properties: { retentionHours: 'a day' } } });
  refused({ Q: { Type: 'Typeplane.Messaging/queues', Properties: { retentionHours: 1000 } } });
  refused({ K: { Type: 'Acme::Vault::Secret', Properties: { Name: 'k', Arn: 'arn:set-by-provider' } } });
  refused({ K: { Type: 'Acme::Vault::Secret', Properties: {} } });
  refused({ K: { Type: 'Acme::Unknown::Thing', Properties: {} } });
  // A loop of AWS::LanguageExtensions stands where resources (or outputs) do.
  const loop = ['Name', ['a', 'b'], { 'Q${Name}': { Type: 'Typeplane.Messaging/queues', Properties: {} } }];
  assert.equal(
    check({ Transform: 'AWS::LanguageExtensions', Resources: { 'Fn::ForEach::Queues': loop } }),
    true,
    JSON.stringify(check.errors),
  );
  refused({ 'Fn::ForEach::Queues': loop.slice(0, 2) });
});
