/**
 * @module Warming the checks up before a long run of documents.
 *
 * V8 optimizes the walks over a document's schema nodes once they have run a while, for what they
 * have met by then; a keyword or value kind first met later (a number enum, a `$ref` into
 * `properties`, an unknown format, a pattern key with a `/`) throws that code away, and the walk runs
 * slowly again until it is optimized anew, on another thread. Validating a small document that has
 * all of them first, a few times, lets the first optimization see most of them. Over the AWS corpus
 * (1,489 files), with two sites that threw code away on any data rewritten beside it (the Bicep
 * rule's list of types, the model's list of references): deoptimizations 16 -> 2, the semantic walk
 * and the property-schema check each compiled once instead of 4-5 times; CPU 944 -> 829 ms, wall
 * 716 -> 695 ms (21 interleaved runs each; most of the compiling ran beside the walk on a second
 * core, so the wall time gained less). It costs ~10 ms: on 100 files that was a loss, on 300 and
 * 700 files even; so only long runs are warmed up.
 */
import { validateDocument, type ValidationResult } from './validate.js';

/** From how many documents a run is warmed up first. */
export const WARM_UP_FROM = 500;

/** How many times the document is validated: once left more of the code to be thrown away. */
const ROUNDS = 3;

/**
 * A valid resource schema with the keywords, value kinds and warnings the AWS corpus has, rare ones
 * included. As a file's bytes, so that it is decoded, parsed and its findings placed as a file's
 * would be; made only for a run that is warmed up, not on every start.
 */
function warmUpDocument(): Buffer {
  return Buffer.from(
    JSON.stringify(
      {
        typeName: 'Typeplane::Warm::Up',
        description: 'Has every keyword and value kind the checks meet.',
        sourceUrl: 'https://example.com',
        definitions: {
          Tag: {
            type: 'object',
            additionalProperties: false,
            properties: {
              Key: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[a-z]+$' },
              Value: { type: 'string' },
            },
            required: ['Key', 'Value'],
          },
          Num: { type: 'number', minimum: 0.5, maximum: 10, multipleOf: 0.5, enum: [1, 2.5, 3] },
          Int: { type: 'integer', enum: [1, 2, 3], default: 1, exclusiveMinimum: 0 },
          Bool: { type: 'boolean', const: true },
          Str: { type: 'string', enum: ['a', 'b'], format: 'date-time', const: 'a' },
          Odd: { type: 'string', format: 'not-a-format', examples: ['x'] },
          Mixed: { type: ['string', 'number'], enum: ['a', 1.5, true, null] },
          Doubles: { type: 'number', enum: [0.5, 1.5], const: 2.5 },
          Nulls: { type: 'string', enum: ['a', null] },
          Map: {
            type: 'object',
            patternProperties: { '^[a-z]+$': { type: 'string' }, '^[a-z/~]+$': { type: 'integer' } },
            additionalProperties: false,
            minProperties: 1,
          },
          Branches: {
            // More than one `$ref` into properties, and met after others: feedback is kept only once a
            // function has run a while.
            oneOf: [
              { $ref: '#/definitions/Tag' },
              { type: 'string' },
              { $ref: '#/properties/Id' },
              { $ref: '#/properties/Secret' },
            ],
            anyOf: [{ type: 'string' }],
            allOf: [{ type: 'string' }],
          },
          List: {
            type: 'array',
            items: { $ref: '#/definitions/Tag' },
            insertionOrder: false,
            uniqueItems: true,
            minItems: 1,
            maxItems: 5,
            arrayType: 'AttributeList',
            contains: { type: 'object' },
          },
          Dep: {
            type: 'object',
            additionalProperties: false,
            properties: { A: { type: 'string' }, B: { type: 'string' } },
            dependencies: { A: ['B'], B: { required: ['A'] } },
          },
          Loose: { type: 'object', properties: { A: { type: 'string' } } },
          // Member names that are array indices, empty objects and lists of mixed values.
          Numbered: {
            type: 'object',
            additionalProperties: false,
            properties: { '200': { type: 'string' }, '404': { type: 'string', default: '' } },
            default: { '200': 'ok', '1': {} },
            examples: [{}, [], { a: { '1': 2 } }, [1.5, 'x', null, true]],
          },
          Empty: { type: 'object', additionalProperties: false, properties: {} },
        },
        properties: {
          Id: { type: 'string', readOnly: true },
          Name: {
            type: 'string',
            relationshipRef: { typeName: 'AWS::S3::Bucket', propertyPath: '/properties/BucketName' },
          },
          Alias: { $ref: '#/properties/Name' },
          Secret: { type: 'string', writeOnly: true },
          Tags: { type: 'array', items: { $ref: '#/definitions/Tag' } },
          Num: { $ref: '#/definitions/Num' },
          Int: { $ref: '#/definitions/Int' },
          Bool: { $ref: '#/definitions/Bool' },
          Str: { $ref: '#/definitions/Str' },
          Odd: { $ref: '#/definitions/Odd' },
          Mixed: { $ref: '#/definitions/Mixed' },
          Map: { $ref: '#/definitions/Map' },
          Branches: { $ref: '#/definitions/Branches' },
          List: { $ref: '#/definitions/List' },
          Dep: { $ref: '#/definitions/Dep' },
          Loose: { $ref: '#/definitions/Loose' },
          Nested: {
            type: 'object',
            additionalProperties: false,
            properties: {
              Deep: { type: 'object', additionalProperties: false, properties: { X: { type: 'number' } } },
            },
          },
        },
        additionalProperties: false,
        required: ['Name'],
        tagging: {
          taggable: true,
          tagOnCreate: true,
          tagUpdatable: true,
          cloudFormationSystemTags: true,
          tagProperty: '/properties/Tags',
        },
        readOnlyProperties: ['/properties/Id'],
        writeOnlyProperties: ['/properties/Secret'],
        createOnlyProperties: ['/properties/Name', '/properties/Missing'],
        deprecatedProperties: ['/properties/Nested/Deep/X'],
        primaryIdentifier: ['/properties/Name'],
        additionalIdentifiers: [['/properties/Id']],
        traits: {
          noReplace: true,
          references: [{ typeName: 'AWS::S3::Bucket', ids: { BucketName: '/properties/Name' } }],
        },
        handlers: {
          create: { permissions: ['s3:CreateBucket', 's3:*'], timeoutInMinutes: 30 },
          read: { permissions: ['s3:GetBucket', 's3:*'] },
          update: { permissions: ['s3:PutBucket', '*'] },
          delete: { permissions: ['s3:DeleteBucket'] },
          list: { permissions: ['s3:ListBuckets'] },
        },
      },
      null,
      2,
    ),
  );
}

/**
 * Validates the warm-up document as a run's files will be (with the same options), and forgets it:
 * nothing it leaves behind is seen by a caller but caches of compiled patterns. Returns the last
 * result, for tests.
 */
export function warmUpChecks(options: { bicepWarnings?: boolean } = {}): ValidationResult {
  const settings = { file: 'warm-up.json', ...(options.bicepWarnings ? { bicepWarnings: true } : {}) };
  const document = warmUpDocument();
  let result: ValidationResult | undefined;
  for (let i = 0; i < ROUNDS; i++) result = validateDocument(document, settings);
  return result!;
}
