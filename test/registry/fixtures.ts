/**
 * Resource types for the registry and model tests, built through the schema toolkit from JSON text so
 * they are what the engine would really get.
 */
import assert from 'node:assert/strict';
import { validateDocument } from '../../src/schema/validate.js';
import type { ResourceType } from '../../src/schema/model.js';

export function typeOf(document: Record<string, unknown>): ResourceType {
  const result = validateDocument(JSON.stringify(document, null, 2), { file: 'fixture.json' });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errors, [], 'fixture must be a valid resource schema');
  assert.equal(result.types.length, 1);
  return result.types[0]!;
}

/** A type exercising most of the property lists and schema features. */
export const thingDocument = {
  typeName: 'Acme::Test::Thing',
  description: 'A thing for tests.',
  definitions: {
    Tag: {
      type: 'object',
      additionalProperties: false,
      required: ['Key'],
      properties: { Key: { type: 'string', minLength: 1 }, Value: { type: 'string' } },
    },
    Item: {
      type: 'object',
      additionalProperties: false,
      required: ['Token'],
      properties: { Name: { type: 'string' }, Token: { type: 'string' }, Status: { type: 'string' } },
    },
  },
  properties: {
    Name: { type: 'string', pattern: '^[a-z][a-z0-9-]*$', maxLength: 63 },
    Region: { type: 'string', default: 'eu-west-1' },
    Size: { type: 'string', enum: ['S', 'M', 'L', 'XL'], default: 'M' },
    Count: { type: 'integer', minimum: 0 },
    Arn: { type: 'string' },
    Secret: { type: 'string' },
    Notes: { type: 'string', pattern: '(?s)^start.*end$' },
    Slow: { type: 'string', pattern: '^(a+)+$' },
    Created: { type: 'string', format: 'date-time' },
    Big: { type: 'integer', format: 'int64' },
    Stamp: { type: 'string', format: 'timestamp' },
    Tags: { type: 'array', insertionOrder: false, items: { $ref: '#/definitions/Tag' } },
    Items: { type: 'array', arrayType: 'AttributeList', items: { $ref: '#/definitions/Item' } },
    Config: {
      type: 'object',
      additionalProperties: false,
      required: ['Mode'],
      properties: {
        Mode: { type: 'string', enum: ['fast', 'safe'] },
        Retries: { type: 'integer', default: 3 },
        Password: { type: 'string' },
        Endpoint: { type: 'string' },
      },
    },
    Labels: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { '^[a-z]+$': { type: 'string' } },
    },
    Policy: { type: 'object' },
    Choice: {
      type: 'object',
      additionalProperties: false,
      properties: { A: { type: 'string' }, B: { type: 'string' } },
      oneOf: [{ required: ['A'] }, { required: ['B'] }],
    },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name', '/properties/Region'],
  readOnlyProperties: ['/properties/Arn', '/properties/Config/Endpoint', '/properties/Items/*/Status'],
  writeOnlyProperties: ['/properties/Secret', '/properties/Config/Password', '/properties/Items/*/Token'],
  createOnlyProperties: ['/properties/Name', '/properties/Region', '/properties/Tags/*/Key'],
};

export const thing = typeOf(thingDocument);

/** A type with a numeric identifier. */
export const counter = typeOf({
  typeName: 'Acme::Test::Counter',
  description: 'A counter.',
  properties: { Id: { type: 'integer' }, Enabled: { type: 'boolean' }, Label: { type: 'string' } },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Id'],
  readOnlyProperties: ['/properties/Id'],
});
