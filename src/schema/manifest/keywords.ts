/**
 * @module The schema language of manifests: a restricted OpenAPI 3.0 subset.
 */
import { closestName } from '../similar-names.js';
import { VALIDATION_KEYWORDS } from '../validations.js';

export const SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export const isSchemaType = (value: unknown): value is SchemaType =>
  typeof value === 'string' && (SCHEMA_TYPES as readonly string[]).includes(value);

/** Keywords that mark a property secret: written, never read back. */
export const SENSITIVE_KEYWORDS = ['x-radius-sensitive', 'x-typeplane-sensitive'] as const;

/** Keywords whose value must be a boolean. */
export const BOOLEAN_KEYWORDS = [
  'nullable',
  'deprecated',
  'readOnly',
  'writeOnly',
  'uniqueItems',
  ...SENSITIVE_KEYWORDS,
] as const;

/** Keywords whose value must be a whole number ≥ 0. */
export const COUNT_KEYWORDS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;

/**
 * On a string that names a secret (a Kubernetes secret, say), the shape of that secret: an object
 * schema whose properties are its keys. From the Radius schema design; see docs/radius-differences.md.
 */
export const SECRET_SCHEMA_KEYWORD = 'schema';

/**
 * Keywords that apply to values of some types only. On any other type they constrain nothing: a
 * warning (TP3024), as Radius accepts them; the model leaves them out.
 */
export const APPLIES_TO: Readonly<Record<string, readonly SchemaType[]>> = {
  [SECRET_SCHEMA_KEYWORD]: ['string'],
  minLength: ['string'],
  'x-typeplane-references': ['string', 'integer'],
  maxLength: ['string'],
  pattern: ['string'],
  format: ['string', 'number', 'integer'],
  minimum: ['number', 'integer'],
  maximum: ['number', 'integer'],
  exclusiveMinimum: ['number', 'integer'],
  exclusiveMaximum: ['number', 'integer'],
  multipleOf: ['number', 'integer'],
  items: ['array'],
  minItems: ['array'],
  maxItems: ['array'],
  uniqueItems: ['array'],
  properties: ['object'],
  additionalProperties: ['object'],
  required: ['object'],
  minProperties: ['object'],
  maxProperties: ['object'],
};

/** Typeplane's own keywords (and the design's `schema`): on a type they do not apply to they are an error. */
export const STRICTLY_TYPED_KEYWORDS: ReadonlySet<string> = new Set([
  'x-typeplane-references',
  SECRET_SCHEMA_KEYWORD,
]);

/** Every keyword a schema node may use. */
export const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  // "this value is the identifier of a resource of that type" (the one-member form of a reference)
  'x-typeplane-references',
  '$ref',
  'description',
  'title',
  'default',
  'example',
  'examples',
  'enum',
  ...BOOLEAN_KEYWORDS,
  ...Object.keys(APPLIES_TO),
  // Validation rules (CEL), on any node: checked by ../rules/validation-rules.ts.
  ...VALIDATION_KEYWORDS,
]);

/** Keywords the schema root may use: it describes the resource model, not a value. */
export const ROOT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'description',
  'title',
  ...VALIDATION_KEYWORDS,
]);

/** Keywords that may stand next to `$ref`: they describe the property, not its shape. */
export const REF_SIBLINGS: ReadonlySet<string> = new Set([
  '$ref',
  'description',
  'title',
  'readOnly',
  'writeOnly',
  'deprecated',
  ...SENSITIVE_KEYWORDS,
]);

/** Composition keywords (TP3008), each with what to write instead. */
export const COMPOSITION_KEYWORDS: Readonly<Record<string, string>> = {
  allOf: 'merge the schemas into one object with all their properties',
  anyOf: 'use one schema with optional properties, or an enum for alternative values',
  oneOf: 'use one schema with optional properties, or an enum for alternative values',
  not: 'list the allowed values with enum instead',
  discriminator: "model the variants as one object with a 'kind' enum property",
};

/** JSON Schema keywords outside the manifest subset (TP3011), each with what to write instead. */
export const UNSUPPORTED_KEYWORDS: Readonly<Record<string, string>> = {
  patternProperties:
    'describe a map with additionalProperties: { type: ... }; key patterns are not supported',
  propertyNames: 'map keys cannot be constrained; describe the values with additionalProperties',
  const: 'use enum with a single value',
  definitions: "manifests have no definitions; inline the schema, or $ref a built-in 'typeplane:' schema",
  $defs: "manifests have no definitions; inline the schema, or $ref a built-in 'typeplane:' schema",
  $schema: 'remove it: the schema language of a manifest is fixed',
  $id: 'remove it: manifest schemas take no identity of their own',
  $comment: 'use a YAML comment (# ...) instead',
  if: 'conditional schemas are not supported; use optional properties',
  then: 'conditional schemas are not supported; use optional properties',
  else: 'conditional schemas are not supported; use optional properties',
  dependencies: 'dependencies between properties are not supported; describe them in the description',
  dependentRequired: 'dependencies between properties are not supported; describe them in the description',
  dependentSchemas: 'dependencies between properties are not supported; describe them in the description',
  contains: "'contains' is not supported; constrain every item with items",
  additionalItems: 'give items a single schema; tuples are not supported',
  prefixItems: 'give items a single schema; tuples are not supported',
  unevaluatedProperties: 'nested objects with properties accept no other members anyway; remove it',
  unevaluatedItems: 'remove it',
  xml: 'remove it: resources are JSON',
  openAPIV3Schema:
    "write the schema directly under 'schema': an early Radius design nested it under openAPIV3Schema, as Kubernetes does",
  externalDocs: 'put the link in the description',
};

/**
 * The known keyword closest to `key` (at most `maxEdits` edits away, two by default), to suggest for a
 * typo; {@link closestName} allows more edits for longer names (pointers, property names).
 */
export function closestKeyword(key: string, known: Iterable<string>, maxEdits = 2): string | undefined {
  return closestName(key, known, { maxEdits });
}
