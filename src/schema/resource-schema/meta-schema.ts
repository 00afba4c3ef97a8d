/**
 * @module Typeplane's own meta-schema for resource schema documents (draft-07).
 *
 * It checks shape only: which keys exist, their types, and the restricted property-schema language.
 * What needs the whole document (pointers resolving, `$ref` targets existing, overlaps between
 * property lists) is checked by `semantic.ts`. Each failure is mapped to a rule id in `structure.ts`
 * from where it failed in this meta-schema (its absolute path, e.g.
 * `#/definitions/property/properties/additionalProperties/const`), so the paths below are part of that
 * contract. Every subschema object appears once (no shared constants): the path is found from the
 * failing subschema object itself.
 */

/** Keywords a property schema may use: draft-07 minus the unsupported ones, plus CloudFormation's. */
export const PROPERTY_KEYWORDS = [
  '$ref',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'readOnly',
  'writeOnly',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentEncoding',
  'contentMediaType',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'items',
  'maxProperties',
  'minProperties',
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'dependencies',
  'const',
  'enum',
  'type',
  'allOf',
  'anyOf',
  'oneOf',
  'insertionOrder',
  'arrayType',
  'relationshipRef',
  // Validation rules (CEL): their entries are checked by rules/validation-rules.ts, located.
  'x-typeplane-validations',
  'x-kubernetes-validations',
] as const;

/** Keywords refused inside property schemas, each with its own rule and advice. */
export const FORBIDDEN_PROPERTY_KEYWORDS: Record<
  string,
  { rule: 'TP2020' | 'TP2021' | 'TP2022' | 'TP2025' | 'TP2027'; advice: string }
> = {
  $id: {
    rule: 'TP2020',
    advice: 'remove it: property schemas live inside the resource schema and take no identity of their own',
  },
  $schema: { rule: 'TP2020', advice: 'remove it: only the document itself may name its meta-schema' },
  if: { rule: 'TP2021', advice: 'express the condition with oneOf/anyOf branches' },
  then: { rule: 'TP2021', advice: 'express the condition with oneOf/anyOf branches' },
  else: { rule: 'TP2021', advice: 'express the condition with oneOf/anyOf branches' },
  not: { rule: 'TP2021', advice: 'list the allowed values (enum) or shapes (oneOf) instead' },
  propertyNames: { rule: 'TP2022', advice: 'constrain member names with patternProperties' },
  additionalItems: { rule: 'TP2025', advice: 'give items a single schema; tuples are not supported' },
  definitions: { rule: 'TP2027', advice: 'move it to the top-level definitions and refer to it with $ref' },
};

export const POINTER_PATTERN = '^/properties/[^/]+(/[^/]+)*$';
export const LIST_POINTER_PATTERN = '^/(properties|definitions)/[^/]+(/[^/]+)*$';
export const NAME_PATTERN = '^[A-Za-z0-9]{1,64}$';
export const TYPE_NAME_PATTERN = '^[a-zA-Z0-9]{2,64}::[a-zA-Z0-9]{2,64}::[a-zA-Z0-9]{2,64}$';
/** A type a reference may name: a resource schema's `Org::Service::Resource` or a manifest's `Ns.Area/type`. */
export const REFERENCED_TYPE_PATTERN =
  '^([a-zA-Z0-9]{2,64}::[a-zA-Z0-9]{2,64}::[a-zA-Z0-9]{2,64}|[A-Za-z][A-Za-z0-9]*(\\.[A-Za-z][A-Za-z0-9]*)+/[a-z][A-Za-z0-9]{0,62})$';
/** A key of a reference's `ids`: a property of the referenced type, by name (`Name`) or pointer (`/properties/Name`). */
export const REFERENCE_TARGET_PATTERN = '^(/properties/[^/]+(/[^/]+)*|[^/]+)$';
/** Type configuration settings named `CloudFormation…` are reserved for CloudFormation's own use. */
export const RESERVED_CONFIGURATION_PREFIX = '^CloudFormation';
export const MIN_TIMEOUT_MINUTES = 2;
export const MAX_TIMEOUT_MINUTES = 2160;

// Functions, not constants: each use must be its own object (see above).
const nonNegativeInteger = () => ({ type: 'integer', minimum: 0 }) as const;
const stringList = () => ({ type: 'array', items: { type: 'string' } }) as const;
const jsonTypes = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/**
 * How ajv compiles the meta-schema. `verbose` puts the failing subschema on each error, from which
 * structure.ts finds where in the meta-schema it failed.
 */
export const META_SCHEMA_AJV_OPTIONS = {
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
  verbose: true,
} as const;

export const resourceSchemaMetaSchema = {
  $id: 'https://typeplane.dev/schemas/resource-schema.json',
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Typeplane resource schema',
  type: 'object',
  required: ['typeName', 'description', 'properties', 'primaryIdentifier', 'additionalProperties'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    $id: { type: 'string' },
    $comment: { type: 'string' },
    title: { type: 'string' },
    typeName: { type: 'string', pattern: TYPE_NAME_PATTERN },
    description: { type: 'string' },
    sourceUrl: { type: 'string' },
    documentationUrl: { type: 'string' },
    replacementStrategy: { enum: ['create_then_delete', 'delete_then_create'] },
    taggable: { type: 'boolean' },
    tagging: { $ref: '#/definitions/tagging' },
    // Validation rules on the resource as a whole (checked by rules/validation-rules.ts).
    'x-typeplane-validations': true,
    'x-kubernetes-validations': true,
    // Typeplane's modelling traits (Smithy): see ReferenceId in model.ts.
    traits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        noReplace: { type: 'boolean' },
        references: {
          type: 'array',
          items: {
            type: 'object',
            required: ['typeName'],
            additionalProperties: false,
            properties: {
              typeName: { type: 'string', pattern: REFERENCED_TYPE_PATTERN },
              // Smithy's reference members: the relationship's name, and the service the target belongs to.
              rel: { type: 'string', minLength: 1 },
              service: { type: 'string', minLength: 1 },
              // Omitted: implicit, the referenced type's identifiers by name (see Reference.ids).
              ids: {
                type: 'object',
                minProperties: 1,
                propertyNames: { pattern: REFERENCE_TARGET_PATTERN },
                additionalProperties: { type: 'string', pattern: POINTER_PATTERN },
              },
            },
          },
        },
      },
    },
    definitions: {
      type: 'object',
      propertyNames: { pattern: NAME_PATTERN },
      additionalProperties: { $ref: '#/definitions/property' },
    },
    properties: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: NAME_PATTERN },
      additionalProperties: { $ref: '#/definitions/property' },
    },
    required: stringList(),
    additionalProperties: { const: false },
    allOf: { $ref: '#/definitions/schemaArray' },
    anyOf: { $ref: '#/definitions/schemaArray' },
    oneOf: { $ref: '#/definitions/schemaArray' },
    primaryIdentifier: { $ref: '#/definitions/identifier' },
    additionalIdentifiers: {
      type: 'array',
      minItems: 1,
      items: { $ref: '#/definitions/identifier' },
    },
    readOnlyProperties: { $ref: '#/definitions/pointerList' },
    writeOnlyProperties: { $ref: '#/definitions/pointerList' },
    createOnlyProperties: { $ref: '#/definitions/pointerList' },
    conditionalCreateOnlyProperties: { $ref: '#/definitions/pointerList' },
    deprecatedProperties: { $ref: '#/definitions/pointerList' },
    nonPublicProperties: { $ref: '#/definitions/pointerList' },
    nonPublicDefinitions: stringList(),
    propertyTransform: { type: 'object', additionalProperties: { type: 'string' } },
    resourceLink: {
      type: 'object',
      required: ['templateUri', 'mappings'],
      additionalProperties: false,
      properties: {
        $comment: { type: 'string' },
        templateUri: { type: 'string' },
        mappings: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    // The provider configuration meta-schema: a closed object of named settings, without definitions
    // of its own (its $refs point at the document's).
    typeConfiguration: {
      type: 'object',
      required: ['properties', 'additionalProperties'],
      additionalProperties: false,
      properties: {
        description: { type: 'string' },
        properties: {
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: NAME_PATTERN, not: { pattern: RESERVED_CONFIGURATION_PREFIX } },
          additionalProperties: { $ref: '#/definitions/property' },
        },
        required: stringList(),
        additionalProperties: { const: false },
        deprecatedProperties: { $ref: '#/definitions/pointerList' },
        allOf: { $ref: '#/definitions/schemaArray' },
        anyOf: { $ref: '#/definitions/schemaArray' },
        oneOf: { $ref: '#/definitions/schemaArray' },
      },
    },
    handlers: {
      type: 'object',
      additionalProperties: false,
      properties: {
        create: { $ref: '#/definitions/handler' },
        read: { $ref: '#/definitions/handler' },
        update: { $ref: '#/definitions/handler' },
        delete: { $ref: '#/definitions/handler' },
        list: { $ref: '#/definitions/handler' },
      },
    },
  },
  definitions: {
    pointer: { type: 'string', pattern: POINTER_PATTERN },
    // Published schemas repeat entries and point into definitions here; both are harmless.
    pointerList: { type: 'array', items: { type: 'string', pattern: LIST_POINTER_PATTERN } },
    identifier: { type: 'array', minItems: 1, uniqueItems: true, items: { $ref: '#/definitions/pointer' } },
    schemaArray: { type: 'array', minItems: 1, items: { $ref: '#/definitions/property' } },
    handler: {
      type: 'object',
      required: ['permissions'],
      additionalProperties: false,
      properties: {
        permissions: stringList(),
        timeoutInMinutes: { type: 'integer', minimum: MIN_TIMEOUT_MINUTES, maximum: MAX_TIMEOUT_MINUTES },
        handlerSchema: { type: 'object' },
      },
    },
    tagging: {
      type: 'object',
      additionalProperties: false,
      properties: {
        taggable: { type: 'boolean' },
        tagOnCreate: { type: 'boolean' },
        tagUpdatable: { type: 'boolean' },
        cloudFormationSystemTags: { type: 'boolean' },
        tagProperty: { $ref: '#/definitions/pointer' },
        permissions: stringList(),
      },
    },
    property: {
      type: 'object',
      additionalProperties: false,
      // `type: 'object'` so that a non-object (reported by `type` above) does not also fail here.
      not: { type: 'object', required: ['properties', 'patternProperties'] },
      // Values fixed by enum or const are still typed, so generated code and inputs know their type.
      dependencies: { enum: ['type'], const: ['type'] },
      properties: {
        $ref: { type: 'string' },
        $comment: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        examples: { type: 'array' },
        default: true,
        readOnly: { type: 'boolean' },
        writeOnly: { type: 'boolean' },
        multipleOf: { type: 'number', exclusiveMinimum: 0 },
        maximum: { type: 'number' },
        exclusiveMaximum: { type: 'number' },
        minimum: { type: 'number' },
        exclusiveMinimum: { type: 'number' },
        maxLength: nonNegativeInteger(),
        minLength: nonNegativeInteger(),
        pattern: { type: 'string' },
        format: { type: 'string' },
        contentEncoding: { type: 'string' },
        contentMediaType: { type: 'string' },
        maxItems: nonNegativeInteger(),
        minItems: nonNegativeInteger(),
        uniqueItems: { type: 'boolean' },
        contains: { $ref: '#/definitions/property' },
        items: { $ref: '#/definitions/property' },
        maxProperties: nonNegativeInteger(),
        minProperties: nonNegativeInteger(),
        required: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        properties: {
          type: 'object',
          propertyNames: { pattern: NAME_PATTERN },
          additionalProperties: { $ref: '#/definitions/property' },
        },
        patternProperties: {
          type: 'object',
          additionalProperties: { $ref: '#/definitions/property' },
        },
        additionalProperties: { const: false },
        dependencies: {
          type: 'object',
          additionalProperties: { type: ['array', 'object'] },
        },
        const: true,
        enum: { type: 'array', minItems: 1 },
        // One keyword type for both forms: `pattern` applies to a string, `items` to a list.
        type: {
          type: ['string', 'array'],
          pattern: `^(${jsonTypes.join('|')})$`,
          minItems: 1,
          uniqueItems: true,
          items: { enum: jsonTypes },
        },
        allOf: { $ref: '#/definitions/schemaArray' },
        anyOf: { $ref: '#/definitions/schemaArray' },
        oneOf: { $ref: '#/definitions/schemaArray' },
        insertionOrder: { type: 'boolean' },
        arrayType: { enum: ['AttributeList', 'Standard'] },
        relationshipRef: {
          type: 'object',
          required: ['typeName', 'propertyPath'],
          additionalProperties: false,
          properties: {
            typeName: { type: 'string', pattern: TYPE_NAME_PATTERN },
            // Not `#/definitions/pointer`: a bad path here breaks TP2033, not TP2005.
            propertyPath: { type: 'string', pattern: POINTER_PATTERN },
          },
        },
        // Validation rules: any shape here, checked with located problems by rules/validation-rules.ts.
        'x-typeplane-validations': true,
        'x-kubernetes-validations': true,
      },
    },
  },
} as const;
