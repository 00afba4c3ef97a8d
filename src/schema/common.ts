/**
 * @module Built-in schemas a type may `$ref` by name (`typeplane:Tag`), so common shapes are written
 * once. When a type is normalised they are copied into its `definitions` under the same name, which
 * no user definition can take (user names are alphanumeric).
 */
import type { JsonSchema } from './model.js';

export const COMMON_REF_PREFIX = 'typeplane:';

export const COMMON_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  'typeplane:Tag': {
    type: 'object',
    description: 'A key-value tag.',
    additionalProperties: false,
    required: ['Key', 'Value'],
    properties: {
      Key: { type: 'string', minLength: 1, maxLength: 128 },
      Value: { type: 'string', maxLength: 256 },
    },
  },
  'typeplane:Tags': {
    type: 'array',
    description: 'A list of key-value tags.',
    uniqueItems: true,
    insertionOrder: false,
    items: { $ref: '#/definitions/typeplane:Tag' },
  },
  // Also what `https://radapp.io/schemas/v1#RecipeStatus` names: Radius's recipe status fields
  // (templateKind, templatePath, templateVersion) are here too.
  'typeplane:RecipeStatus': {
    type: 'object',
    description:
      'What the provider reports after provisioning: the recipe it ran, the outputs it produced and their binding.',
    additionalProperties: false,
    properties: {
      binding: { type: 'object', additionalProperties: { type: 'string' } },
      outputResources: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } },
      templateKind: {
        type: 'string',
        description: 'The kind of the recipe template, like bicep or terraform.',
      },
      templatePath: { type: 'string', description: 'Where the recipe template is.' },
      templateVersion: { type: 'string', description: 'The version of the recipe template.' },
    },
  },
};

/**
 * Other spellings of built-in schemas. The Radius schema design refers to the recipe status by URL
 * (`$ref: 'https://radapp.io/schemas/v1#RecipeStatus'`); it means the same built-in as the short form.
 */
export const COMMON_REF_ALIASES: Readonly<Record<string, string>> = {
  'https://radapp.io/schemas/v1#RecipeStatus': 'typeplane:RecipeStatus',
};

/** The short form (`typeplane:RecipeStatus`) of a built-in's ref or alias, or `undefined` if it names none. */
export function builtInRef(ref: string): string | undefined {
  const short = Object.hasOwn(COMMON_REF_ALIASES, ref) ? COMMON_REF_ALIASES[ref]! : ref;
  return short.startsWith(COMMON_REF_PREFIX) && commonSchema(short) ? short : undefined;
}

/** The definition name a ref resolves to in the normalised model, or `undefined` if unknown. */
export function commonSchema(ref: string): JsonSchema | undefined {
  return Object.hasOwn(COMMON_SCHEMAS, ref) ? COMMON_SCHEMAS[ref] : undefined;
}

/** `typeplane:Tag` → `#/definitions/typeplane:Tag`, the form used inside a normalised model. */
export function commonRefTarget(ref: string): string {
  return `#/definitions/${ref}`;
}

/**
 * Rewrite every `typeplane:` `$ref` in a model schema to a local one and copy the built-in schemas it
 * needs (transitively) into `definitions`, so the model is self-contained.
 */
export function inlineCommonSchemas(schema: JsonSchema): void {
  const needed = new Set<string>();
  // Walks schemas only: maps of named subschemas (properties, definitions, …) are entered member by
  // member, so a property named `default` or `enum` is still a schema, while the values of the data
  // keywords (`default`, `const`, `enum`, `examples`) are never taken for schemas.
  const rewriteMap = (map: unknown): void => {
    if (typeof map === 'object' && map !== null && !Array.isArray(map))
      for (const child of Object.values(map)) rewrite(child);
  };
  const rewrite = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const record = node as Record<string, unknown>;
    if (
      typeof record.$ref === 'string' &&
      record.$ref.startsWith(COMMON_REF_PREFIX) &&
      commonSchema(record.$ref)
    ) {
      needed.add(record.$ref);
      record.$ref = commonRefTarget(record.$ref);
    }
    for (const key of ['properties', 'patternProperties', 'definitions', 'dependencies'])
      rewriteMap(record[key]);
    for (const key of ['items', 'additionalProperties', 'contains']) rewrite(record[key]);
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(record[key])) (record[key] as unknown[]).forEach(rewrite);
  };
  rewrite(schema);
  if (needed.size === 0) return;
  const definitions = ((schema.definitions as Record<string, unknown> | undefined) ??= {});
  const queue = [...needed];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (Object.hasOwn(definitions, name)) continue;
    const copy = structuredClone(COMMON_SCHEMAS[name]!);
    definitions[name] = copy;
    // Built-ins refer to each other in the local form already.
    JSON.stringify(copy, (_k, v: unknown) => {
      if (typeof v === 'string' && v.startsWith(`#/definitions/${COMMON_REF_PREFIX}`))
        queue.push(v.slice('#/definitions/'.length));
      return v;
    });
  }
}
