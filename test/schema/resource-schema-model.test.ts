/**
 * A valid resource schema normalises to a `ResourceType`: identifiers, property sets, handlers with
 * their timeouts, and references from `relationshipRef`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DEFAULT_TIMEOUT_MINUTES } from '../../src/schema/model.js';
import { assertClean, pretty, validate, type Json } from './helpers.js';

const schema = {
  typeName: 'Org::Network::Endpoint',
  description: 'A network endpoint.',
  definitions: {
    Encryption: {
      type: 'object',
      additionalProperties: false,
      properties: {
        KeyArn: {
          type: 'string',
          relationshipRef: { typeName: 'AWS::KMS::Key', propertyPath: '/properties/Arn' },
        },
      },
    },
    Rule: {
      type: 'object',
      additionalProperties: false,
      properties: {
        TopicArn: {
          type: 'string',
          relationshipRef: { typeName: 'AWS::SNS::Topic', propertyPath: '/properties/TopicArn' },
        },
        Priority: { type: 'integer' },
      },
    },
    Node: {
      type: 'object',
      additionalProperties: false,
      properties: {
        Peer: {
          type: 'string',
          relationshipRef: { typeName: 'Org::Network::Endpoint', propertyPath: '/properties/Name' },
        },
        Child: { $ref: '#/definitions/Node' },
      },
    },
  },
  properties: {
    Name: { type: 'string' },
    Arn: { type: 'string' },
    Password: { type: 'string' },
    Region: { type: 'string' },
    Legacy: { type: 'string' },
    VpcId: {
      type: 'string',
      relationshipRef: { typeName: 'AWS::EC2::VPC', propertyPath: '/properties/VpcId' },
    },
    SubnetIds: {
      type: 'array',
      insertionOrder: false,
      items: {
        type: 'string',
        relationshipRef: { typeName: 'AWS::EC2::Subnet', propertyPath: '/properties/SubnetId' },
      },
    },
    Encryption: { $ref: '#/definitions/Encryption' },
    Rules: { type: 'array', items: { $ref: '#/definitions/Rule' } },
    Tree: { $ref: '#/definitions/Node' },
    Tags: { $ref: 'typeplane:Tags' },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  additionalIdentifiers: [['/properties/Arn'], ['/properties/Region', '/properties/Name']],
  readOnlyProperties: ['/properties/Arn'],
  writeOnlyProperties: ['/properties/Password'],
  createOnlyProperties: ['/properties/Name'],
  conditionalCreateOnlyProperties: ['/properties/Region'],
  deprecatedProperties: ['/properties/Legacy'],
  tagging: { taggable: true, tagProperty: '/properties/Tags' },
  handlers: {
    create: { permissions: ['net:CreateEndpoint', 'kms:Decrypt'], timeoutInMinutes: 30 },
    read: { permissions: ['net:GetEndpoint'] },
    update: { permissions: ['net:UpdateEndpoint'], timeoutInMinutes: 2160 },
    delete: { permissions: ['net:DeleteEndpoint'] },
    list: { permissions: [] },
  },
} satisfies Json;

describe('normalising a resource schema', () => {
  const result = validate(pretty(schema));
  const type = result.types[0]!;

  it('is valid and gives one type', () => {
    assertClean(result);
  });

  it('keeps typeName, description, dialect and source', () => {
    assert.equal(type.typeName, 'Org::Network::Endpoint');
    assert.equal(type.description, 'A network endpoint.');
    assert.equal(type.dialect, 'resource-schema');
    assert.equal(type.apiVersion, undefined);
    assert.equal(type.source, 'x.json');
  });

  it('keeps identifiers in order', () => {
    assert.deepEqual(type.primaryIdentifier, ['/properties/Name']);
    assert.deepEqual(type.additionalIdentifiers, [
      ['/properties/Arn'],
      ['/properties/Region', '/properties/Name'],
    ]);
  });

  it('keeps the property sets', () => {
    assert.deepEqual(type.readOnlyProperties, ['/properties/Arn']);
    assert.deepEqual(type.writeOnlyProperties, ['/properties/Password']);
    assert.deepEqual(type.createOnlyProperties, ['/properties/Name']);
    assert.deepEqual(type.conditionalCreateOnlyProperties, ['/properties/Region']);
    assert.deepEqual(type.deprecatedProperties, ['/properties/Legacy']);
  });

  it(`takes handler timeouts, ${DEFAULT_TIMEOUT_MINUTES} minutes where absent`, () => {
    assert.equal(DEFAULT_TIMEOUT_MINUTES, 120);
    assert.deepEqual(type.handlers, {
      create: { permissions: ['net:CreateEndpoint', 'kms:Decrypt'], timeoutInMinutes: 30 },
      read: { permissions: ['net:GetEndpoint'], timeoutInMinutes: 120 },
      update: { permissions: ['net:UpdateEndpoint'], timeoutInMinutes: 2160 },
      delete: { permissions: ['net:DeleteEndpoint'], timeoutInMinutes: 120 },
      list: { permissions: [], timeoutInMinutes: 120 },
    });
  });

  it('collects references from relationshipRef, through $ref and arrays (as /*), once along a recursive definition', () => {
    assert.deepEqual(type.traits, {
      noReplace: false,
      references: [
        {
          typeName: 'AWS::EC2::VPC',
          ids: [{ target: '/properties/VpcId', member: '/properties/VpcId' }],
          relationshipRef: true,
        },
        {
          typeName: 'AWS::EC2::Subnet',
          ids: [{ target: '/properties/SubnetId', member: '/properties/SubnetIds/*' }],
          relationshipRef: true,
        },
        {
          typeName: 'AWS::KMS::Key',
          ids: [{ target: '/properties/Arn', member: '/properties/Encryption/KeyArn' }],
          relationshipRef: true,
        },
        {
          typeName: 'AWS::SNS::Topic',
          ids: [{ target: '/properties/TopicArn', member: '/properties/Rules/*/TopicArn' }],
          relationshipRef: true,
        },
        {
          typeName: 'Org::Network::Endpoint',
          ids: [{ target: '/properties/Name', member: '/properties/Tree/Peer' }],
          relationshipRef: true,
        },
      ],
    });
  });

  it('builds a draft-07 model schema without the dialect metadata, with built-ins inlined', () => {
    const model = type.schema as Record<string, unknown> & {
      properties: Record<string, unknown>;
      definitions: Record<string, unknown>;
    };
    assert.equal(model.type, 'object');
    assert.equal(model.additionalProperties, false);
    assert.deepEqual(model.required, ['Name']);
    assert.equal(model.description, 'A network endpoint.');
    assert.deepEqual(Object.keys(model.properties), Object.keys(schema.properties));
    assert.deepEqual(Object.keys(model.definitions).sort(), [
      'Encryption',
      'Node',
      'Rule',
      'typeplane:Tag',
      'typeplane:Tags',
    ]);
    assert.deepEqual(model.properties.Tags, { $ref: '#/definitions/typeplane:Tags' });
    for (const key of [
      'typeName',
      'primaryIdentifier',
      'handlers',
      'tagging',
      'readOnlyProperties',
      'createOnlyProperties',
    ]) {
      assert.equal(key in model, false, `${key} is not part of the model schema`);
    }
  });

  it('gives the same type from YAML', () => {
    const fromYaml = validate(stringify(schema), { file: 'x.yaml' });
    assertClean(fromYaml);
    assert.deepEqual({ ...fromYaml.types[0]!, source: 'x.json' }, type);
  });

  it('has no references when no property declares one', () => {
    const plain = validate(
      pretty({
        typeName: 'Org::Service::Thing',
        description: 'A thing.',
        properties: { Name: { type: 'string' } },
        additionalProperties: false,
        primaryIdentifier: ['/properties/Name'],
        createOnlyProperties: ['/properties/Name'],
        required: ['Name'],
      }),
    );
    assertClean(plain);
    assert.deepEqual(plain.types[0]!.traits.references, []);
    assert.deepEqual(plain.types[0]!.handlers, {});
    assert.deepEqual(plain.types[0]!.additionalIdentifiers, []);
  });

  it('gives no type when there is an error, and a type when there are only warnings', () => {
    const broken = validate(pretty({ ...schema, typeName: 'Endpoint' }));
    assert.equal(broken.valid, false);
    assert.deepEqual(broken.types, []);
    const warned = validate(pretty({ ...schema, createOnlyProperties: [] }));
    assert.equal(warned.valid, true);
    assert.equal(warned.diagnostics.length, 1);
    assert.equal(warned.diagnostics[0]!.rule, 'TP2042');
    assert.equal(warned.types.length, 1);
  });
});
