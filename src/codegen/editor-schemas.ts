/**
 * @module JSON Schemas for authoring resource schemas and manifests in an editor.
 *
 * A `$schema` line (JSON) or `# yaml-language-server: $schema=<file>` (YAML) pointing at one of these
 * gives completion, hover text and validation in VS Code and IntelliJ with no plugin. They say the
 * rules as far as JSON Schema can (names, keys, keyword shapes, which keywords exist); what needs the
 * whole document (pointers resolving, `$ref` targets) stays `typeplane validate`'s job.
 *
 * The resource schema one is the validator's own meta-schema with descriptions added, so the two
 * cannot drift apart; the manifest one is built from the manifest dialect's keyword tables.
 */
import { resourceSchemaMetaSchema } from '../schema/resource-schema/meta-schema.js';
import { COMMON_REF_ALIASES, COMMON_SCHEMAS } from '../schema/common.js';
import { SCHEMA_TYPES, SECRET_SCHEMA_KEYWORD, SENSITIVE_KEYWORDS } from '../schema/manifest/keywords.js';
import { CAPABILITY_PATTERN, NAMESPACE_PATTERN, TYPE_NAME_PATTERN } from '../schema/manifest/names.js';
import { pointerTokens } from '../schema/diagnostics.js';
import { RULE_REASONS, VALIDATION_KEYWORDS } from '../schema/validations.js';

type Schema = Record<string, unknown>;

export const RESOURCE_SCHEMA_EDITOR_ID = 'https://typeplane.dev/schemas/resource-schema.json';
export const MANIFEST_EDITOR_ID = 'https://typeplane.dev/schemas/manifest.json';
/** As the manifest dialect checks it (`names.ts`): a date, optionally `-preview`. */
const API_VERSION_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(-preview)?$';

const POINTER_HELP =
  "JSON pointers to properties, like '/properties/Arn' or '/properties/Tags/*/Key' ('*' for every item of a list).";

/**
 * A list of validation rules (CEL), the same on any schema node of both dialects; what JSON Schema
 * cannot say (the rule compiles, its cost, its fieldPath resolves) is `typeplane validate`'s.
 */
function validationRules(keyword: string): Schema {
  return {
    type: 'array',
    description: `${keyword === 'x-kubernetes-validations' ? 'As x-typeplane-validations (the Kubernetes spelling): ' : ''}Rules the value must keep that JSON Schema cannot say, in CEL, checked on every create and update (400 when one fails). See docs/policy.md.`,
    items: {
      type: 'object',
      required: ['rule'],
      additionalProperties: false,
      properties: {
        rule: {
          type: 'string',
          description:
            "A CEL expression that must be true of the value, self: 'self.MinReplicas <= self.MaxReplicas'. Reading oldSelf (the value before) makes it a transition rule, checked on updates.",
        },
        message: {
          type: 'string',
          description: 'What a refusal says. Without it and messageExpression: failed rule: <rule>.',
        },
        messageExpression: {
          type: 'string',
          description:
            "A CEL expression giving the refusal's message, a string; message is used when it fails.",
        },
        fieldPath: {
          type: 'string',
          description: "Where a refusal points, below the value: '.MinReplicas', \".labels['app']\".",
        },
        reason: { enum: RULE_REASONS, description: 'A machine-readable reason (default FieldValueInvalid).' },
        optionalOldSelf: {
          type: 'boolean',
          description: 'On a transition rule: check it on creates too, with oldSelf null.',
        },
      },
    },
  };
}

const RULE_KEYWORD_SCHEMAS = Object.fromEntries(VALIDATION_KEYWORDS.map((k) => [k, validationRules(k)]));

/** Descriptions for the meta-schema, by JSON pointer into it. */
const RESOURCE_SCHEMA_HELP: Record<string, string> = {
  '': 'A resource schema: one resource type, CloudFormation style. Check it with `typeplane validate`.',
  '/properties/$schema': 'The schema this document follows; editors use it for completion.',
  '/properties/typeName':
    "The type's name, three parts: 'Organization::Service::Resource', like 'AWS::S3::Bucket'.",
  '/properties/description': 'One sentence saying what the resource is.',
  '/properties/sourceUrl': "Where the provider's source lives.",
  '/properties/documentationUrl': 'Where the type is documented.',
  '/properties/traits': "Typeplane's modelling traits: replacement and references to other types.",
  '/properties/traits/properties/noReplace':
    'Refuse a create-or-replace (PUT) of an existing resource instead of replacing it.',
  '/properties/traits/properties/references': 'Properties that hold identifiers of resources of other types.',
  '/properties/definitions': "Reusable property schemas, referred to as { $ref: '#/definitions/<name>' }.",
  '/properties/properties':
    "The resource's properties: names of up to 64 letters and digits, each a property schema.",
  '/properties/required': 'Properties every request must give.',
  '/properties/additionalProperties': 'Always false: a resource has only the properties it declares.',
  '/properties/primaryIdentifier':
    'The pointers of the properties that identify a resource, in order; usually one read-only or create-only property.',
  '/properties/additionalIdentifiers': 'Other property lists that also identify a resource uniquely.',
  '/properties/readOnlyProperties': `Properties the provider sets and clients cannot. ${POINTER_HELP}`,
  '/properties/writeOnlyProperties': `Properties clients set that are never returned (secrets). ${POINTER_HELP}`,
  '/properties/createOnlyProperties': `Properties that cannot change after creation: changing one replaces the resource. ${POINTER_HELP}`,
  '/properties/conditionalCreateOnlyProperties': `Properties whose change may replace the resource. ${POINTER_HELP}`,
  '/properties/deprecatedProperties': `Properties kept for compatibility; do not use in new requests. ${POINTER_HELP}`,
  '/properties/handlers':
    'The operations the provider implements, each with the permissions it needs and its time limit.',
  '/properties/tagging': 'Whether and how the resource is tagged.',
  '/definitions/handler/properties/permissions': 'Permissions the handler needs, like s3:CreateBucket.',
  '/definitions/handler/properties/timeoutInMinutes':
    'Minutes an operation may run before it fails (2 to 2160; default 120).',
  '/definitions/property':
    'A property schema: draft-07 JSON Schema without if/then/else, not or propertyNames.',
  '/definitions/property/properties/type':
    'The JSON type of the value: string, integer, number, boolean, object, array or null (or a list of them).',
  '/definitions/property/properties/$ref': "A definition of this document: '#/definitions/<name>'.",
  '/definitions/property/properties/description':
    'What the property means; shown to users of the type in their editors and in Bicep.',
  '/definitions/property/properties/additionalProperties':
    'Always false: objects with properties accept no others. Use patternProperties for maps.',
  '/definitions/property/properties/patternProperties':
    'A map: member names matching a pattern, each with this schema. Not together with properties.',
  '/definitions/property/properties/insertionOrder':
    'Whether the order of the list matters (CloudFormation).',
  '/definitions/property/properties/relationshipRef':
    'The property holds a property of a resource of another type.',
  '/definitions/property/properties/readOnly': 'Use readOnlyProperties at the top level instead.',
  '/definitions/property/properties/writeOnly': 'Use writeOnlyProperties at the top level instead.',
};

/** The JSON Schema of resource schema documents, with descriptions for the editor. */
export function resourceSchemaEditorSchema(): Schema {
  const schema = structuredClone(resourceSchemaMetaSchema) as unknown as Schema;
  schema.$id = RESOURCE_SCHEMA_EDITOR_ID;
  for (const [pointer, text] of Object.entries(RESOURCE_SCHEMA_HELP)) {
    const node = at(schema, pointer);
    if (node) node.description = text;
  }
  // The validator takes any shape there (its own rule says what is wrong, located): the editor the entries' keys.
  Object.assign(at(schema, '/properties')!, RULE_KEYWORD_SCHEMAS);
  Object.assign(at(schema, '/definitions/property/properties')!, RULE_KEYWORD_SCHEMAS);
  // The validator's one-keyword form (a pattern) gives no completion: offer the names as an enum.
  const property = at(schema, '/definitions/property/properties')!;
  const jsonTypes = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];
  property.type = {
    description: (property.type as Schema).description,
    anyOf: [
      { enum: jsonTypes },
      { type: 'array', items: { enum: jsonTypes }, minItems: 1, uniqueItems: true },
    ],
  };
  return schema;
}

function at(schema: Schema, pointer: string): Schema | undefined {
  let node: unknown = schema;
  for (const token of pointerTokens(pointer)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Schema)[token];
  }
  return typeof node === 'object' && node !== null ? (node as Schema) : undefined;
}

const KEYWORD_HELP: Record<string, string> = {
  type: "The value's type. 'any' only for the values of platformOptions.",
  description: 'What the property means; shown to users of the type (editors, Bicep, OpenAPI).',
  title: 'A short name for the property.',
  default: 'The value used when a request gives none.',
  example: 'An example value.',
  examples: 'Example values.',
  enum: 'The allowed values.',
  $ref: "A built-in schema, like 'typeplane:Tag' or 'typeplane:RecipeStatus' (also spelt 'https://radapp.io/schemas/v1#RecipeStatus').",
  [SECRET_SCHEMA_KEYWORD]:
    "On a string that names a secret: the secret's keys, as type: object with properties. Read by consumers, like fromSecret in Bicep.",
  'x-typeplane-references':
    "The value is the identifier of a resource of this type, like 'Typeplane.Data/postgresDatabases'.",
  readOnly: 'Set by the provider; clients cannot set it.',
  writeOnly: 'Given by clients, never returned.',
  'x-radius-sensitive': 'A secret: given by clients, never returned or logged (as writeOnly).',
  'x-typeplane-sensitive': 'A secret: given by clients, never returned or logged (as writeOnly).',
  nullable: 'null is allowed too.',
  deprecated: 'Kept for compatibility; do not use in new requests.',
  minLength: 'Fewest characters.',
  maxLength: 'Most characters.',
  pattern: 'A regular expression the whole string must match (RE2 syntax: no backreferences).',
  format: 'A well-known string format: uri, email, date-time, ipv4, uuid, …',
  minimum: 'Smallest value.',
  maximum: 'Largest value.',
  exclusiveMinimum: 'true: the minimum itself is not allowed.',
  exclusiveMaximum: 'true: the maximum itself is not allowed.',
  multipleOf: 'The value must be a multiple of this.',
  items: 'The schema of every item.',
  minItems: 'Fewest items.',
  maxItems: 'Most items.',
  uniqueItems: 'No item may appear twice.',
  properties: 'The members of the object, each with its schema.',
  additionalProperties: 'A map: any member name, each value with this schema. Not together with properties.',
  required: 'Members that must be given.',
  minProperties: 'Fewest members.',
  maxProperties: 'Most members.',
};

/** The JSON Schema of manifest documents (Radius-style), with descriptions for the editor. */
export function manifestEditorSchema(): Schema {
  const keywordSchemas: Record<string, unknown> = {
    // 'any' in any case, as Radius reads it (only for the values of platformOptions).
    type: { anyOf: [{ enum: [...SCHEMA_TYPES, 'any'] }, { type: 'string', pattern: '^[Aa][Nn][Yy]$' }] },
    description: { type: 'string' },
    title: { type: 'string' },
    default: {},
    example: {},
    examples: { type: 'array' },
    enum: { type: 'array', minItems: 1 },
    $ref: { enum: [...Object.keys(COMMON_SCHEMAS), ...Object.keys(COMMON_REF_ALIASES)] },
    [SECRET_SCHEMA_KEYWORD]: { $ref: '#/definitions/schema' },
    'x-typeplane-references': { type: 'string' },
    nullable: { type: 'boolean' },
    deprecated: { type: 'boolean' },
    readOnly: { type: 'boolean' },
    writeOnly: { type: 'boolean' },
    uniqueItems: { type: 'boolean' },
    ...Object.fromEntries(SENSITIVE_KEYWORDS.map((k) => [k, { type: 'boolean' }])),
    minLength: { type: 'integer', minimum: 0 },
    maxLength: { type: 'integer', minimum: 0 },
    minItems: { type: 'integer', minimum: 0 },
    maxItems: { type: 'integer', minimum: 0 },
    minProperties: { type: 'integer', minimum: 0 },
    maxProperties: { type: 'integer', minimum: 0 },
    pattern: { type: 'string' },
    format: { type: 'string' },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    exclusiveMinimum: { type: ['boolean', 'number'] },
    exclusiveMaximum: { type: ['boolean', 'number'] },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    items: { $ref: '#/definitions/schema' },
    properties: { type: 'object', additionalProperties: { $ref: '#/definitions/schema' } },
    additionalProperties: { anyOf: [{ $ref: '#/definitions/schema' }, { const: false }] },
    required: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    ...RULE_KEYWORD_SCHEMAS,
  };
  const withHelp = (name: string) => ({
    ...(keywordSchemas[name] as Schema),
    ...(KEYWORD_HELP[name] ? { description: KEYWORD_HELP[name] } : {}),
  });
  const schemaNode: Schema = {
    type: 'object',
    description: 'The schema of a value (an OpenAPI 3.0 subset).',
    additionalProperties: false,
    properties: Object.fromEntries(Object.keys(keywordSchemas).map((k) => [k, withHelp(k)])),
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: MANIFEST_EDITOR_ID,
    title: 'Typeplane manifest',
    description:
      'A manifest: resource types of one namespace, Radius style, each with its API versions and their schemas. Check it with `typeplane validate`.',
    type: 'object',
    additionalProperties: false,
    // Radius reads the namespace from 'namespace'; Typeplane also reads the older 'name'.
    anyOf: [{ required: ['namespace'] }, { required: ['name'] }],
    properties: {
      namespace: {
        type: 'string',
        pattern: NAMESPACE_PATTERN.source,
        maxLength: 128,
        description:
          "The namespace of the types: two PascalCase names joined by a dot, like 'Radius.Data' or 'MyCompany.Resources'.",
      },
      name: {
        type: 'string',
        pattern: NAMESPACE_PATTERN.source,
        description: "The older spelling of 'namespace'.",
      },
      location: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Radius: addresses of the providers, by location name (accepted, unused).',
      },
      types: {
        type: 'object',
        description: 'The types, by name: camelCase, like postgreSqlDatabases.',
        propertyNames: { pattern: TYPE_NAME_PATTERN.source },
        additionalProperties: { $ref: '#/definitions/type' },
      },
    },
    definitions: {
      type: {
        type: 'object',
        additionalProperties: false,
        // Both optional, as in Radius: without a description or API versions, validate warns.
        properties: {
          description: {
            type: 'string',
            description: 'One sentence saying what the resource is (validate warns when it is missing).',
          },
          capabilities: {
            type: 'array',
            items: { type: 'string', pattern: CAPABILITY_PATTERN.source },
            description: 'Radius capabilities, like SupportsRecipes.',
          },
          apiVersions: {
            type: 'object',
            propertyNames: { pattern: API_VERSION_PATTERN },
            additionalProperties: { $ref: '#/definitions/apiVersion' },
            description: "The type's API versions, like '2025-08-01-preview', each with its schema.",
          },
          defaultApiVersion: {
            type: 'string',
            description: 'The API version clients get when they name none; one of apiVersions.',
          },
          'x-typeplane-configuration': {
            type: 'object',
            additionalProperties: false,
            required: ['properties'],
            description:
              "Settings an operator sets for the type ('typeplane type configure'), handed to its provider; like a resource schema's typeConfiguration.",
            properties: {
              description: { type: 'string' },
              properties: {
                type: 'object',
                minProperties: 1,
                additionalProperties: { type: 'object', required: ['type'] },
              },
              required: { type: 'array', items: { type: 'string' } },
            },
          },
          'x-typeplane-noReplace': {
            type: 'boolean',
            description: 'Refuse a create-or-replace (PUT) of an existing resource instead of replacing it.',
          },
          'x-typeplane-references': {
            type: 'array',
            description: 'Properties that hold identifiers of resources of other types.',
            items: {
              type: 'object',
              required: ['typeName'],
              additionalProperties: false,
              properties: {
                typeName: { type: 'string', description: 'The referenced type.' },
                ids: {
                  type: 'object',
                  additionalProperties: { type: 'string', pattern: '^/properties/' },
                  description:
                    "The referenced type's identifier properties, each mapped to a member: { name: /properties/database }.",
                },
              },
            },
          },
        },
      },
      apiVersion: {
        type: 'object',
        additionalProperties: false,
        required: ['schema'],
        properties: {
          schema: {
            type: 'object',
            additionalProperties: false,
            description:
              "The schema of the resource: type: object with its properties. An empty schema ({}) leaves the resource's properties unvalidated.",
            properties: {
              type: { const: 'object', description: 'Always object.' },
              description: { type: 'string' },
              title: { type: 'string' },
              properties: {
                type: 'object',
                additionalProperties: { $ref: '#/definitions/schema' },
                description: "The resource's properties ('name' is added and reserved).",
              },
              required: {
                type: 'array',
                items: { type: 'string' },
                description: 'Properties every request must give.',
              },
              additionalProperties: { const: false },
              ...RULE_KEYWORD_SCHEMAS,
            },
          },
        },
      },
      schema: schemaNode,
    },
  };
}
