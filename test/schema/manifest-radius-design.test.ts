/**
 * What the Radius-specific forms of a manifest mean in Typeplane's model: the design's sample
 * (test/fixtures/radius/radius-design-postgresDatabases.yaml), the radapp.io recipe status, `schema` on a string,
 * an empty schema, Radius's base properties, `platformOptions`, and keywords that do not apply.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { generateTypeScript } from '../../src/codegen/typescript.js';
import { compileType } from '../../src/registry/compile.js';
import type { ResourceType } from '../../src/schema/model.js';
import { validateDocument } from '../../src/schema/validate.js';
import { manifestWithSchema as manifest } from './helpers.js';

const SAMPLE = readFileSync(
  new URL('../fixtures/radius/radius-design-postgresDatabases.yaml', import.meta.url),
);

const lines = (...text: string[]) => text.join('\n') + '\n';

/** `rule line:column` of each diagnostic of the manifest with these schema lines. */
const located = (...schemaLines: string[]) =>
  validateDocument(manifest(...schemaLines), { file: 'x.yaml' }).diagnostics.map(
    (d) => `${d.rule} ${d.line}:${d.column}`,
  );

function only(text: string): ResourceType {
  const result = validateDocument(text, { file: 'x.yaml' });
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  assert.equal(result.types.length, 1);
  return result.types[0]!;
}

const schemaOf = (type: ResourceType) => type.schema as { properties: Record<string, any>; [k: string]: any };

describe("the Radius schema design's sample manifest", () => {
  test('validates with one warning, for its missing description, at the type', () => {
    const result = validateDocument(SAMPLE, { file: 'sample.yaml' });
    assert.equal(result.valid, true);
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.severity} ${d.rule} ${d.line}:${d.column} ${d.pointer}`),
      ['warning TP3021 10:5 /types/postgresDatabases'],
    );
  });

  test('becomes one type: the name: key as its namespace, status read-only, size required, and (SupportsRecipes) environment, application and recipe', () => {
    const [type, ...rest] = validateDocument(SAMPLE, { file: 'sample.yaml' }).types;
    assert.equal(rest.length, 0);
    assert.equal(type!.typeName, 'MyCompany.Resources/postgresDatabases');
    assert.equal(type!.apiVersion, '2025-01-01-preview');
    assert.equal(type!.description, '');
    // SupportsRecipes: what a Radius portable resource has besides, to choose its environment and recipe.
    assert.deepEqual(Object.keys(schemaOf(type!).properties), [
      'name',
      'size',
      'status',
      'environment',
      'application',
      'recipe',
    ]);
    assert.deepEqual(Object.keys(schemaOf(type!).properties.recipe.properties), ['name', 'parameters']);
    assert.deepEqual(schemaOf(type!).required, ['name', 'size']);
    assert.deepEqual(type!.readOnlyProperties, ['/properties/status']);
    assert.deepEqual(schemaOf(type!).properties.size.enum, ['S', 'M', 'L', 'XL']);
  });

  test('its radapp.io recipe status is the built-in typeplane:RecipeStatus, copied into the model', () => {
    const [type] = validateDocument(SAMPLE, { file: 'sample.yaml' }).types;
    const status = schemaOf(type!).properties.status;
    assert.deepEqual(status.properties.recipe, { $ref: '#/definitions/typeplane:RecipeStatus' });
    const recipeStatus = schemaOf(type!).definitions['typeplane:RecipeStatus'];
    // Radius's own recipe status fields, beside Typeplane's binding and outputs.
    for (const field of ['templateKind', 'templatePath', 'templateVersion', 'binding', 'outputResources'])
      assert.ok(recipeStatus.properties[field], field);
  });

  test("the schema of its secret string is kept in the model: the secret's keys", () => {
    const [type] = validateDocument(SAMPLE, { file: 'sample.yaml' }).types;
    const secret = schemaOf(type!).properties.status.properties.binding.properties.secret;
    assert.deepEqual(secret, {
      type: 'string',
      'x-typeplane-secretSchema': {
        type: 'object',
        properties: { password: { type: 'string' } },
        additionalProperties: false,
      },
    });
  });

  test('generated types say which keys the secret named by binding.secret holds', () => {
    const types = validateDocument(SAMPLE, { file: 'sample.yaml' }).types;
    const code = generateTypeScript(types, ['sample.yaml']);
    assert.match(code, /\/\*\* Names a secret whose keys are `password`\. \*\/\n +secret\?: string;/);
  });

  test("the engine validates its resources: sizes S to XL, no status from the user's side", () => {
    const [type] = validateDocument(SAMPLE, { file: 'sample.yaml' }).types;
    const compiled = compileType(type!);
    assert.deepEqual(compiled.validateInput({ name: 'sample-db', size: 'L' }), []);
    assert.notDeepEqual(compiled.validateInput({ name: 'sample-db', size: 'XXL' }), []);
    assert.notDeepEqual(compiled.validateInput({ name: 'sample-db' }), [], 'size is required');
    assert.deepEqual(
      compiled.validateOutput({
        name: 'sample-db',
        size: 'L',
        status: {
          binding: { hostname: 'db', username: 'admin', secret: 'db-secret' },
          recipe: { templateKind: 'bicep', templatePath: 'ghcr.io/recipes/postgres:1.0' },
        },
      }),
      [],
    );
  });
});

describe('Radius forms in the model', () => {
  test("$ref 'https://radapp.io/schemas/v1#RecipeStatus' means what 'typeplane:RecipeStatus' means", () => {
    const long = only(
      manifest(
        'type: object',
        'properties:',
        '  recipe2:',
        "    $ref: 'https://radapp.io/schemas/v1#RecipeStatus'",
      ),
    );
    const short = only(
      manifest('type: object', 'properties:', '  recipe2:', "    $ref: 'typeplane:RecipeStatus'"),
    );
    assert.deepEqual(long.schema, short.schema);
  });

  test('another radapp.io schema is not a built-in: TP3009 at the $ref', () => {
    assert.deepEqual(
      located('type: object', 'properties:', '  x:', "    $ref: 'https://radapp.io/schemas/v1#Other'"),
      ['TP3009 11:21'],
    );
  });

  test('an empty schema accepts any properties besides the name, with a warning', () => {
    const result = validateDocument(manifest('{}'), { file: 'x.yaml' });
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.severity} ${d.rule} ${d.line}:${d.column}`),
      ['warning TP3022 8:11'],
    );
    const compiled = compileType(result.types[0]!);
    assert.deepEqual(compiled.validateInput({ name: 'w1', anything: { nested: [1, 'two'] }, n: 3 }), []);
    assert.notDeepEqual(compiled.validateInput({ anything: 1 }), [], 'the name is still required');
    assert.notDeepEqual(compiled.validateInput({ name: '-bad' }), [], 'and still a name');
  });

  test('the generated type of an empty schema admits any property besides the name', () => {
    const code = generateTypeScript(validateDocument(manifest('{}'), { file: 'x.yaml' }).types, ['x.yaml']);
    assert.match(
      code,
      /export interface TestAreaWidgets \{\n(.*\n)*? {2}name: string;\n {2}\[key: string\]: unknown;\n\}/,
    );
  });

  test('type: object without properties is a type with no properties besides the name', () => {
    const compiled = compileType(only(manifest('type: object')));
    assert.deepEqual(compiled.validateInput({ name: 'w1' }), []);
    assert.notDeepEqual(compiled.validateInput({ name: 'w1', size: 'S' }), []);
  });

  test('a base property required but not declared is declared with the shape Radius gives it', () => {
    const type = only(
      manifest(
        'type: object',
        'properties:',
        '  size: { type: string }',
        'required: [environment, application, connections]',
      ),
    );
    const properties = schemaOf(type).properties;
    assert.deepEqual(Object.keys(properties), ['name', 'size', 'environment', 'application', 'connections']);
    assert.equal(properties.environment.type, 'string');
    assert.equal(properties.connections.additionalProperties.properties.source.type, 'string');
    const compiled = compileType(type);
    const connections = { db: { source: '/planes/radius/local/db' } };
    assert.deepEqual(
      compiled.validateInput({ name: 'w1', environment: 'e', application: 'a', connections }),
      [],
    );
    assert.notDeepEqual(compiled.validateInput({ name: 'w1', application: 'a', connections }), []);
    assert.notDeepEqual(
      compiled.validateInput({ name: 'w1', environment: 'e', application: 'a', connections: { db: {} } }),
      [],
      'a connection names its source',
    );
  });

  test('base properties are not added when nothing requires them', () => {
    assert.deepEqual(Object.keys(schemaOf(only(manifest('type: object', 'required: []'))).properties), [
      'name',
    ]);
  });

  test('the values of platformOptions are unconstrained, with type: any in any case or no type', () => {
    for (const values of ['{ type: any }', '{ type: ANY, description: Anything. }', '{}']) {
      const type = only(
        manifest(
          'type: object',
          'properties:',
          '  platformOptions:',
          '    type: object',
          `    additionalProperties: ${values}`,
        ),
      );
      const compiled = compileType(type);
      assert.deepEqual(
        compiled.validateInput({
          name: 'w1',
          platformOptions: { replicas: 3, labels: { a: 'b' }, on: true },
        }),
        [],
        values,
      );
    }
  });

  test('a keyword that does not apply to the type is a warning and is left out of the model', () => {
    const result = validateDocument(
      manifest(
        'type: object',
        'properties:',
        '  port:',
        '    type: integer',
        '    maxLength: 5',
        '    minimum: 1',
      ),
      { file: 'x.yaml' },
    );
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.severity} ${d.rule} ${d.pointer}`),
      ['warning TP3024 /types/widgets/apiVersions/2025-01-01/schema/properties/port/maxLength'],
    );
    assert.deepEqual(schemaOf(result.types[0]!).properties.port, { type: 'integer', minimum: 1 });
  });

  test('properties: {} beside a map of values is a map', () => {
    const type = only(
      manifest(
        'type: object',
        'properties:',
        '  labels:',
        '    type: object',
        '    properties: {}',
        '    additionalProperties: { type: string }',
      ),
    );
    const compiled = compileType(type);
    assert.deepEqual(compiled.validateInput({ name: 'w1', labels: { team: 'data' } }), []);
    assert.notDeepEqual(compiled.validateInput({ name: 'w1', labels: { team: 1 } }), []);
  });

  test('an example must be a value of the type, as Radius checks it', () => {
    assert.deepEqual(
      located('type: object', 'properties:', '  port:', '    type: integer', "    example: 'eighty'"),
      ['TP3013 12:24'],
    );
  });

  test('a document with a namespace and no types is a manifest that registers nothing', () => {
    const result = validateDocument(lines('namespace: MyCompany.Resources'), { file: 'x.yaml' });
    assert.equal(result.dialect, 'manifest');
    assert.equal(result.valid, true);
    assert.deepEqual(result.types, []);
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.severity} ${d.rule}`),
      ['warning TP3020'],
    );
  });

  test('a key repeated in a JSON manifest is refused at the repeat, as in YAML', () => {
    const text = [
      '{',
      '  "namespace": "Test.Area",',
      '  "types": {',
      '    "widgets": { "description": "A.", "apiVersions": { "2025-01-01": { "schema": { "type": "object" } } } },',
      '    "widgets": { "description": "B.", "apiVersions": { "2025-01-01": { "schema": { "type": "object" } } } }',
      '  }',
      '}',
    ].join('\n');
    const result = validateDocument(text, { file: 'x.json' });
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.diagnostics.map((d) => `${d.rule} ${d.line}:${d.column} ${d.pointer}`),
      ['TP1005 5:5 /types/widgets'],
    );
    assert.deepEqual(result.types, []);
    const once = text.replace(/,\n {4}"widgets": \{ "description": "B\.".*\n/, '\n');
    assert.equal(validateDocument(once, { file: 'x.json' }).valid, true);
  });
});
