/**
 * @module Manifest → `ResourceType`s, one per type and API version. Called only on documents without
 * errors, so shapes are as `schema.ts` checked them.
 *
 * The OpenAPI schema becomes a draft-07 JSON Schema of the resource model:
 * - the model gets a `name` property (the identifier) in front of the manifest's properties;
 * - `readOnly`, `writeOnly` and `x-radius-sensitive` / `x-typeplane-sensitive` leave the schema and
 *   become `readOnlyProperties` / `writeOnlyProperties` pointers (`/properties/status/binding`; array
 *   items and map values are `*`), and `deprecated` becomes `deprecatedProperties`; a marked node
 *   covers everything below it, so its descendants are not listed again;
 * - `nullable: true` adds `'null'` to the type (and to the enum, if any); `example` joins `examples`;
 *   OpenAPI 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` become the draft-07 numeric form;
 * - objects with `properties` accept no other members (`additionalProperties: false`); maps keep
 *   their value schema;
 * - `typeplane:` refs (and their aliases, like Radius's recipe status URL) point at copies of the
 *   built-in schemas in `definitions`;
 * - `type: any` (allowed only for the values of `platformOptions`) leaves the value unconstrained;
 * - keywords that do not apply to the node's type (TP3024) are left out;
 * - `schema` on a string (the shape of the secret it names) becomes `x-typeplane-secretSchema`;
 * - an empty schema (`{}`, TP3022) accepts any properties besides `name`;
 * - a Radius base property that `required` lists without declaring is declared with Radius's shape;
 * - a type with the `SupportsRecipes` capability gets `environment`, `application` and `recipe` (which
 *   recipe, with what parameters) unless it declares them, as Radius's portable resources have them;
 * - a type's API versions come in document order, `defaultApiVersion` last (the registry serves a
 *   manifest type in the API version it finds last).
 */
import { builtInRef, commonRefTarget, inlineCommonSchemas } from '../common.js';
import { escapePointerToken } from '../diagnostics.js';
import type { JsonSchema, Reference, ResourceType } from '../model.js';
import { smithyMembers, withOrigin } from '../resource-schema/reference-origins.js';
import { APPLIES_TO, SECRET_SCHEMA_KEYWORD, SENSITIVE_KEYWORDS, isSchemaType } from './keywords.js';
import { RESOURCE_NAME_PATTERN } from './names.js';
import {
  BASE_PROPERTIES,
  isBaseProperty,
  RECIPE_BASE_PROPERTIES,
  SUPPORTS_RECIPES,
} from './radius-properties.js';
import { isAnyType, isRecord } from './schema.js';
import { VALIDATION_KEYWORDS } from '../validations.js';

/** Where the model keeps the shape of the secret a string property names (the manifest's `schema`). */
export const SECRET_SCHEMA_ANNOTATION = 'x-typeplane-secretSchema';

type Node = Record<string, unknown>;

/** Keywords that do not carry over to the JSON Schema as they are. */
const TRANSLATED = new Set<string>([
  'x-typeplane-references',
  'readOnly',
  'writeOnly',
  ...SENSITIVE_KEYWORDS,
  'deprecated',
  'nullable',
  'example',
  'examples',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minimum',
  'maximum',
  'properties',
  'additionalProperties',
  'items',
  '$ref',
  SECRET_SCHEMA_KEYWORD,
]);

export const NAME_PROPERTY: Readonly<JsonSchema> = {
  type: 'string',
  pattern: RESOURCE_NAME_PATTERN,
  description: 'The resource name.',
};

interface Lists {
  readOnly: string[];
  writeOnly: string[];
  deprecated: string[];
  /** Built-in schemas referred to. */
  common: Set<string>;
  /** Members marked `x-typeplane-references: <type>`, with where the mark is written. */
  references: { typeName: string; member: string; origin: string }[];
  /** Create-only pointers besides `name`. */
  createOnly: string[];
}

/** What an ancestor already marks, so descendants are not listed twice. */
interface Inherited {
  readOnly: boolean;
  writeOnly: boolean;
  deprecated: boolean;
}

export function manifestToModel(document: Node, source?: string): ResourceType[] {
  const namespace = String(document.namespace ?? document.name);
  const out: ResourceType[] = [];
  const types = isRecord(document.types) ? document.types : {};
  for (const [name, definition] of Object.entries(types)) {
    const type = definition as Node;
    const at = `/types/${escapePointerToken(name)}`;
    const versions = isRecord(type.apiVersions) ? type.apiVersions : {};
    // The registry serves the API version that comes last: `defaultApiVersion`, if given.
    const entries = Object.entries(versions);
    const chosen = entries.findIndex(([apiVersion]) => apiVersion === type.defaultApiVersion);
    if (chosen >= 0) entries.push(...entries.splice(chosen, 1));
    for (const [apiVersion, entry] of entries) {
      const lists: Lists = {
        readOnly: [],
        writeOnly: [],
        deprecated: [],
        common: new Set(),
        references: [],
        createOnly: [],
      };
      const schema = modelSchema(
        (entry as Node).schema as Node,
        lists,
        `${at}/apiVersions/${escapePointerToken(apiVersion)}/schema`,
        Array.isArray(type.capabilities) && type.capabilities.includes(SUPPORTS_RECIPES),
      );
      const resourceType: ResourceType = {
        typeName: `${namespace}/${name}`,
        apiVersion,
        dialect: 'manifest',
        description: typeof type.description === 'string' ? type.description : '',
        schema,
        primaryIdentifier: ['/properties/name'],
        additionalIdentifiers: [],
        readOnlyProperties: lists.readOnly,
        writeOnlyProperties: lists.writeOnly,
        createOnlyProperties: ['/properties/name', ...lists.createOnly],
        conditionalCreateOnlyProperties: [],
        deprecatedProperties: lists.deprecated,
        handlers: {},
        traits: {
          noReplace: type['x-typeplane-noReplace'] === true,
          references: [
            ...manifestReferences(type, at),
            // The property holds the referenced type's (single) identifier: target '' says so.
            ...lists.references.map((r) =>
              withOrigin({ typeName: r.typeName, ids: [{ target: '', member: r.member }] }, r.origin),
            ),
          ],
        },
      };
      const configuration = type['x-typeplane-configuration'] as Node | undefined;
      if (configuration !== undefined)
        resourceType.typeConfiguration = { ...configuration, type: 'object', additionalProperties: false };
      if (source !== undefined) resourceType.source = source;
      out.push(resourceType);
    }
  }
  return out;
}

/** The model schema of one API version (written at `at`): `name` plus the manifest's properties. */
function modelSchema(root: Node, lists: Lists, at: string, recipes = false): JsonSchema {
  const properties: JsonSchema = { name: { ...NAME_PROPERTY } };
  const none: Inherited = { readOnly: false, writeOnly: false, deprecated: false };
  if (isRecord(root.properties)) {
    for (const [name, child] of Object.entries(root.properties)) {
      const token = escapePointerToken(name);
      setOwn(
        properties,
        name,
        convert(child as Node, `/properties/${token}`, none, lists, `${at}/properties/${token}`),
      );
    }
  }
  const required = ['name'];
  if (Array.isArray(root.required))
    for (const r of root.required as string[]) if (!required.includes(r)) required.push(r);
  for (const r of required) {
    if (isBaseProperty(r) && !Object.hasOwn(properties, r))
      setOwn(properties, r, structuredClone(BASE_PROPERTIES[r]));
  }
  // An empty schema describes nothing: resources may have any properties.
  const open = Object.keys(root).length === 0;
  if (recipes && !open)
    for (const [name, base] of Object.entries(RECIPE_BASE_PROPERTIES)) {
      if (Object.hasOwn(properties, name)) continue;
      setOwn(properties, name, structuredClone(base));
      // A resource keeps the environment and recipe it was made with (its recipe's parameters may change).
      if (name === 'environment') lists.createOnly.push('/properties/environment');
      if (name === 'recipe') lists.createOnly.push('/properties/recipe/name');
    }
  const schema: JsonSchema = { type: 'object', additionalProperties: open, properties, required };
  for (const keyword of VALIDATION_KEYWORDS) if (root[keyword] !== undefined) schema[keyword] = root[keyword];
  if (lists.common.size > 0) {
    // Copy the built-ins (and those they use) through a holder: refs were already made local above.
    const holder: JsonSchema = { allOf: [...lists.common].map(($ref) => ({ $ref })) };
    inlineCommonSchemas(holder);
    schema.definitions = holder.definitions;
  }
  return schema;
}

/** One schema node, at property pointer `pointer`, written at `at` in the document. */
function convert(node: Node, pointer: string, inherited: Inherited, lists: Lists, at: string): JsonSchema {
  const readOnly = node.readOnly === true;
  const writeOnly = node.writeOnly === true || SENSITIVE_KEYWORDS.some((key) => node[key] === true);
  const deprecated = node.deprecated === true;
  if (readOnly && !inherited.readOnly) lists.readOnly.push(pointer);
  if (writeOnly && !inherited.writeOnly) lists.writeOnly.push(pointer);
  if (deprecated && !inherited.deprecated) lists.deprecated.push(pointer);
  if (typeof node['x-typeplane-references'] === 'string') {
    lists.references.push({
      typeName: node['x-typeplane-references'],
      member: pointer,
      origin: `${at}/x-typeplane-references`,
    });
  }
  const below: Inherited = {
    readOnly: inherited.readOnly || readOnly,
    writeOnly: inherited.writeOnly || writeOnly,
    deprecated: inherited.deprecated || deprecated,
  };

  const out: JsonSchema = {};
  const ref = typeof node.$ref === 'string' ? builtInRef(node.$ref) : undefined;
  if (ref !== undefined) {
    lists.common.add(ref);
    out.$ref = commonRefTarget(ref);
  }
  const type = isSchemaType(node.type) ? node.type : undefined;
  const applies = (key: string) =>
    type === undefined || !Object.hasOwn(APPLIES_TO, key) || APPLIES_TO[key]!.includes(type);
  for (const [key, value] of Object.entries(node)) {
    if (TRANSLATED.has(key) || (key === 'type' && isAnyType(value)) || !applies(key)) continue;
    // `enum` and `default` are data: copied, so the model shares nothing with the document.
    out[key] = key === 'enum' || key === 'default' || key === 'required' ? structuredClone(value) : value;
  }

  // Numeric bounds: OpenAPI 3.0 writes an exclusive bound as `minimum` plus `exclusiveMinimum: true`.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (!applies(bound)) continue;
    const flag = node[exclusive];
    if (flag === true) out[exclusive] = node[bound];
    else if (node[bound] !== undefined) out[bound] = node[bound];
    if (typeof flag === 'number') out[exclusive] = flag;
  }

  const examples = [...(Array.isArray(node.examples) ? node.examples : [])];
  if (Object.hasOwn(node, 'example')) examples.unshift(node.example);
  if (examples.length > 0) out.examples = structuredClone(examples);

  if (node.nullable === true && type !== undefined) {
    out.type = [node.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  }

  if (type === 'string' && isRecord(node[SECRET_SCHEMA_KEYWORD])) {
    // The secret's keys are not members of the resource: their marks go to lists nobody reads.
    const aside: Lists = {
      readOnly: [],
      writeOnly: [],
      deprecated: [],
      common: lists.common,
      references: [],
      createOnly: [],
    };
    out[SECRET_SCHEMA_ANNOTATION] = convert(
      node[SECRET_SCHEMA_KEYWORD],
      pointer,
      { readOnly: false, writeOnly: false, deprecated: false },
      aside,
      `${at}/${SECRET_SCHEMA_KEYWORD}`,
    );
  }
  // `properties: {}` beside a map's value schema is no properties at all (as Radius reads it).
  const declared = isRecord(node.properties) ? node.properties : undefined;
  const fixed = declared && (Object.keys(declared).length > 0 || !isRecord(node.additionalProperties));
  if (!applies('properties')) {
    // Neither properties nor a map on a value that is not an object (TP3024).
  } else if (fixed) {
    const properties: JsonSchema = {};
    for (const [name, child] of Object.entries(declared)) {
      const token = escapePointerToken(name);
      setOwn(
        properties,
        name,
        convert(child as Node, `${pointer}/${token}`, below, lists, `${at}/properties/${token}`),
      );
    }
    out.properties = properties;
    out.additionalProperties = false;
  } else if (isRecord(node.additionalProperties)) {
    out.additionalProperties = convert(
      node.additionalProperties,
      `${pointer}/*`,
      below,
      lists,
      `${at}/additionalProperties`,
    );
  } else if (node.additionalProperties === false) {
    out.additionalProperties = false;
  }
  if (isRecord(node.items) && applies('items'))
    out.items = convert(node.items, `${pointer}/*`, below, lists, `${at}/items`);
  return out;
}

/** Set a member named by the user: `__proto__` must become a member, not the prototype. */
function setOwn(target: JsonSchema, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `x-typeplane-references` of type `type` (written at `at`); see `Reference.ids` for an omitted `ids`. */
function manifestReferences(type: Node, at: string): Reference[] {
  const list = Array.isArray(type['x-typeplane-references'])
    ? (type['x-typeplane-references'] as Node[])
    : [];
  return list.map((ref, i) => {
    const where = `${at}/x-typeplane-references/${i}`;
    const ids = Object.entries((ref.ids ?? {}) as Node).map(([target, member]) =>
      withOrigin(
        {
          target: target.startsWith('/') ? target : `/properties/${escapePointerToken(target)}`,
          member: String(member),
        },
        `${where}/ids/${escapePointerToken(target)}`,
      ),
    );
    return withOrigin({ typeName: String(ref.typeName), ids, ...smithyMembers(ref) }, `${where}/typeName`);
  });
}
