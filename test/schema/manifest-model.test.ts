/**
 * Manifest → ResourceType: identifiers, the name property, read-only / write-only / deprecated
 * pointers, maps, nullable and the other OpenAPI translations, and that the model is a draft-07 schema
 * that accepts and refuses what the manifest means.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { checkManifest } from '../../src/schema/manifest/index.js';
import type { JsonSchema, ResourceType } from '../../src/schema/model.js';
import { validateDocument } from '../../src/schema/validate.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const lines = (...text: string[]) => text.join('\n') + '\n';

/** The types a valid manifest defines (fails the test when it is not valid). */
function typesOf(text: string): ResourceType[] {
  const result = validateDocument(text, { file: 'model.yaml' });
  assert.deepEqual(result.diagnostics, [], 'the manifest is valid');
  return result.types;
}

/** One type whose schema is `schemaLines` (indented by 10 spaces). */
function single(...schemaLines: string[]): ResourceType {
  const types = typesOf(
    lines(
      'namespace: Test.Area',
      'types:',
      '  widgets:',
      '    description: A widget.',
      '    apiVersions:',
      "      '2025-01-01-preview':",
      '        schema:',
      ...schemaLines.map((l) => ' '.repeat(10) + l),
    ),
  );
  assert.equal(types.length, 1);
  return types[0]!;
}

/** A draft-07 validator for the model (strict: the model uses no unknown keywords). */
function validator(type: ResourceType) {
  const ajv = addFormats(new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }));
  return ajv.compile(type.schema);
}

const prop = (type: ResourceType, ...path: string[]): JsonSchema => {
  let node: JsonSchema = type.schema;
  for (const name of path) node = (node.properties as Record<string, JsonSchema>)[name]!;
  return node;
};

describe('manifest model', () => {
  test('one ResourceType per type and API version, named <namespace>/<type>', () => {
    const types = typesOf(
      lines(
        'namespace: Test.Area',
        'types:',
        '  widgets:',
        '    description: A widget.',
        '    apiVersions:',
        "      '2025-01-01':",
        '        schema: { type: object, properties: { size: { type: string } } }',
        "      '2025-06-01-preview':",
        '        schema: { type: object, properties: { size: { type: integer } } }',
        '  gadgets:',
        '    description: A gadget.',
        '    capabilities: [SupportsRecipes]',
        '    apiVersions:',
        "      '2025-01-01':",
        '        schema: { type: object }',
      ),
    );
    assert.deepEqual(
      types.map((t) => [t.typeName, t.apiVersion, t.dialect, t.description, t.source]),
      [
        ['Test.Area/widgets', '2025-01-01', 'manifest', 'A widget.', 'model.yaml'],
        ['Test.Area/widgets', '2025-06-01-preview', 'manifest', 'A widget.', 'model.yaml'],
        ['Test.Area/gadgets', '2025-01-01', 'manifest', 'A gadget.', 'model.yaml'],
      ],
    );
    assert.deepEqual(prop(types[0]!, 'size'), { type: 'string' });
    assert.deepEqual(prop(types[1]!, 'size'), { type: 'integer' });
  });

  test('the older name: form gives the namespace', () => {
    const types = typesOf(
      lines(
        'name: Old.Style',
        'types:',
        '  things:',
        '    description: A thing.',
        '    apiVersions:',
        "      '2024-02-29':",
        '        schema: { type: object }',
      ),
    );
    assert.equal(types[0]!.typeName, 'Old.Style/things');
  });

  test('the name is the identifier: declared, required, create-only', () => {
    const type = single('type: object', 'properties:', '  size:', '    type: string', 'required: [size]');
    assert.deepEqual(type.schema, {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9-]{0,62}$', description: 'The resource name.' },
        size: { type: 'string' },
      },
      required: ['name', 'size'],
    });
    assert.deepEqual(type.primaryIdentifier, ['/properties/name']);
    assert.deepEqual(type.createOnlyProperties, ['/properties/name']);
    assert.deepEqual(type.additionalIdentifiers, []);
    assert.deepEqual(type.conditionalCreateOnlyProperties, []);
    assert.deepEqual(type.handlers, {});
    assert.deepEqual(type.traits, { noReplace: false, references: [] });

    const validate = validator(type);
    assert.equal(validate({ name: 'db-1', size: 'S' }), true);
    assert.equal(validate({ size: 'S' }), false, 'name is required');
    assert.equal(validate({ name: '1db', size: 'S' }), false, 'name must start with a letter');
    assert.equal(validate({ name: 'db', size: 'S', extra: 1 }), false, 'no undeclared properties');
  });

  test('read-only and write-only pointers, CloudFormation style', () => {
    const type = single(
      'type: object',
      'properties:',
      '  password:',
      '    type: string',
      '    x-radius-sensitive: true',
      '  apiKey:',
      '    type: string',
      '    x-typeplane-sensitive: true',
      '  token:',
      '    type: string',
      '    writeOnly: true',
      '  status:',
      '    type: object',
      '    properties:',
      '      binding:',
      '        type: object',
      '        readOnly: true',
      '        properties:',
      '          host: { type: string, readOnly: true }',
      '          port: { type: integer }',
      '      phase: { type: string }',
      '  endpoints:',
      '    type: array',
      '    items:',
      '      type: object',
      '      properties:',
      '        url: { type: string, readOnly: true }',
      '        secret: { type: string, x-radius-sensitive: true }',
      '  credentials:',
      '    type: object',
      '    additionalProperties:',
      '      type: object',
      '      properties:',
      '        value: { type: string, x-radius-sensitive: true }',
    );
    // A marked node covers what is below it: /properties/status/binding/host is not listed again.
    assert.deepEqual(type.readOnlyProperties, ['/properties/status/binding', '/properties/endpoints/*/url']);
    assert.deepEqual(type.writeOnlyProperties, [
      '/properties/password',
      '/properties/apiKey',
      '/properties/token',
      '/properties/endpoints/*/secret',
      '/properties/credentials/*/value',
    ]);
    // The markers leave the schema.
    const text = JSON.stringify(type.schema);
    for (const keyword of ['readOnly', 'writeOnly', 'x-radius-sensitive', 'x-typeplane-sensitive'])
      assert.ok(!text.includes(keyword), keyword);
    assert.deepEqual(prop(type, 'password'), { type: 'string' });
  });

  test('the design-note example: status is read-only as a whole, password write-only', () => {
    const types = typesOf(
      lines(
        'namespace: Typeplane.Data',
        'types:',
        '  postgresDatabases:',
        '    description: A PostgreSQL database.',
        '    apiVersions:',
        "      '2025-01-01-preview':",
        '        schema:',
        '          type: object',
        '          properties:',
        '            size: { type: string, enum: [S, M, L, XL], default: S }',
        '            password: { type: string, x-radius-sensitive: true }',
        '            status:',
        '              type: object',
        '              readOnly: true',
        '              properties:',
        '                binding:',
        '                  type: object',
        '                  readOnly: true',
        '                  properties:',
        '                    host: { type: string, readOnly: true }',
        '                    port: { type: integer, readOnly: true }',
        '                    username: { type: string, readOnly: true }',
      ),
    );
    const type = types[0]!;
    assert.equal(type.typeName, 'Typeplane.Data/postgresDatabases');
    assert.deepEqual(type.readOnlyProperties, ['/properties/status']);
    assert.deepEqual(type.writeOnlyProperties, ['/properties/password']);
    assert.deepEqual(prop(type, 'status', 'binding'), {
      type: 'object',
      properties: { host: { type: 'string' }, port: { type: 'integer' }, username: { type: 'string' } },
      additionalProperties: false,
    });
  });

  test('maps keep their value schema; objects with properties are closed; bare objects stay open', () => {
    const type = single(
      'type: object',
      'properties:',
      '  labels:',
      '    type: object',
      '    additionalProperties: { type: string, maxLength: 10 }',
      '  connections:',
      '    type: object',
      '    additionalProperties:',
      '      type: object',
      '      properties:',
      '        source: { type: string }',
      '      required: [source]',
      '  settings:',
      '    type: object',
      '  closed:',
      '    type: object',
      '    properties: {}',
    );
    assert.deepEqual(prop(type, 'labels'), {
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 10 },
    });
    assert.deepEqual(prop(type, 'connections'), {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['source'],
        properties: { source: { type: 'string' } },
        additionalProperties: false,
      },
    });
    assert.deepEqual(prop(type, 'settings'), { type: 'object' });
    assert.deepEqual(prop(type, 'closed'), { type: 'object', properties: {}, additionalProperties: false });

    const validate = validator(type);
    assert.equal(
      validate({ name: 'a', labels: { team: 'web', any: 'x' }, connections: { db: { source: 'x' } } }),
      true,
    );
    assert.equal(
      validate({ name: 'a', labels: { team: 'far-too-long' } }),
      false,
      'map values keep their schema',
    );
    assert.equal(validate({ name: 'a', connections: { db: {} } }), false, 'map values keep their required');
    assert.equal(
      validate({ name: 'a', connections: { db: { source: 'x', other: 1 } } }),
      false,
      'nested objects are closed',
    );
    assert.equal(validate({ name: 'a', settings: { anything: [1] } }), true, 'a bare object is open');
  });

  test('nullable adds null to the type and to the enum', () => {
    const type = single(
      'type: object',
      'properties:',
      '  note: { type: string, nullable: true }',
      '  tier: { type: string, enum: [gold, silver], nullable: true }',
      '  count: { type: integer, nullable: false }',
    );
    assert.deepEqual(prop(type, 'note'), { type: ['string', 'null'] });
    assert.deepEqual(prop(type, 'tier'), { type: ['string', 'null'], enum: ['gold', 'silver', null] });
    assert.deepEqual(prop(type, 'count'), { type: 'integer' });
    const validate = validator(type);
    assert.equal(validate({ name: 'a', note: null, tier: null }), true);
    assert.equal(validate({ name: 'a', count: null }), false);
  });

  test('OpenAPI 3.0 forms become draft-07: example, boolean exclusive bounds, deprecated', () => {
    const type = single(
      'type: object',
      'properties:',
      '  ratio:',
      '    type: number',
      '    minimum: 0',
      '    exclusiveMinimum: true',
      '    maximum: 1',
      '    exclusiveMaximum: false',
      '    example: 0.5',
      '  level: { type: integer, exclusiveMaximum: 10 }',
      '  legacy: { type: string, deprecated: true, title: Legacy }',
    );
    assert.deepEqual(prop(type, 'ratio'), {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1,
      examples: [0.5],
    });
    assert.deepEqual(prop(type, 'level'), { type: 'integer', exclusiveMaximum: 10 });
    assert.deepEqual(prop(type, 'legacy'), { type: 'string', title: 'Legacy' });
    assert.deepEqual(type.deprecatedProperties, ['/properties/legacy']);
    const validate = validator(type);
    assert.equal(validate({ name: 'a', ratio: 0 }), false, 'exclusive minimum');
    assert.equal(validate({ name: 'a', ratio: 1 }), true, 'inclusive maximum');
  });

  test('built-in schemas are copied into definitions', () => {
    const type = single(
      'type: object',
      'properties:',
      '  tags:',
      "    $ref: 'typeplane:Tags'",
      '    description: Tags for the resource.',
      '  status:',
      "    $ref: 'typeplane:RecipeStatus'",
      '    readOnly: true',
    );
    assert.deepEqual(prop(type, 'tags'), {
      $ref: '#/definitions/typeplane:Tags',
      description: 'Tags for the resource.',
    });
    assert.deepEqual(Object.keys(type.schema.definitions as object).sort(), [
      'typeplane:RecipeStatus',
      'typeplane:Tag',
      'typeplane:Tags',
    ]);
    assert.deepEqual(type.readOnlyProperties, ['/properties/status']);
    // `insertionOrder` (in typeplane:Tags) is a CloudFormation keyword, unknown to strict ajv.
    const validate = addFormats(new Ajv({ strict: false, allowUnionTypes: true })).compile(type.schema);
    assert.equal(validate({ name: 'a', tags: [{ Key: 'team', Value: 'web' }] }), true);
    assert.equal(validate({ name: 'a', tags: [{ Key: 'team' }] }), false);
  });

  test('type: any is accepted for the values of platformOptions only, and left unconstrained', () => {
    const type = single(
      'type: object',
      'properties:',
      '  platformOptions:',
      '    type: object',
      '    additionalProperties:',
      '      type: any',
      '      description: Passed to the recipe.',
    );
    assert.deepEqual(prop(type, 'platformOptions'), {
      type: 'object',
      additionalProperties: { description: 'Passed to the recipe.' },
    });
    assert.equal(
      validator(type)({ name: 'a', platformOptions: { kubernetes: { replicas: 2 }, aws: 'x' } }),
      true,
    );
  });

  test('the model shares no objects with the document', () => {
    const document = {
      namespace: 'Test.Area',
      types: {
        widgets: {
          description: 'A widget.',
          apiVersions: {
            '2025-01-01': {
              schema: { type: 'object', properties: { size: { type: 'string', enum: ['S'], default: 'S' } } },
            },
          },
        },
      },
    };
    const before = structuredClone(document);
    const { types } = checkManifest(document);
    const size = prop(types[0]!, 'size');
    (size.enum as string[]).push('M');
    size.type = 'integer';
    assert.deepEqual(document, before);
  });

  test('a property named __proto__ is refused, at its name, and reaches no prototype', () => {
    const text = lines(
      'namespace: Test.Area',
      'types:',
      '  widgets:',
      '    description: A widget.',
      '    apiVersions:',
      "      '2025-01-01-preview':",
      '        schema:',
      '          type: object',
      '          properties:',
      '            __proto__:',
      '              type: object',
      '              properties:',
      '                polluted: { type: string }',
    );
    const result = validateDocument(text, { file: 'model.yaml' });
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.diagnostics.map((d) => [d.rule, d.pointer, d.line, d.column]),
      [['TP1015', '/types/widgets/apiVersions/2025-01-01-preview/schema/properties/__proto__', 10, 13]],
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('warnings do not stop normalisation; errors do', () => {
    const ok = checkManifest({
      namespace: 'Test.Area',
      types: {
        widgets: {
          description: 'A widget.',
          apiVersions: {
            '2025-01-01': {
              schema: { type: 'object', properties: { c: { type: 'string', format: 'colour' } } },
            },
          },
        },
      },
    });
    assert.deepEqual(
      ok.findings.map((f) => f.rule),
      ['TP3017'],
    );
    assert.equal(ok.types.length, 1);
    const bad = checkManifest({
      namespace: 'Test.Area',
      types: {
        widgets: { description: 'A widget.', apiVersions: { '2025-01-01': { schema: { type: 'object' } } } },
        gadgets: {
          description: 'A gadget.',
          apiVersions: { '2025-01-01': { schema: { type: 'object', properties: { c: {} } } } },
        },
      },
    });
    assert.deepEqual(
      bad.findings.map((f) => f.rule),
      ['TP3007'],
    );
    assert.deepEqual(bad.types, [], 'no type from a document with an error, not even the valid one');
  });
});
