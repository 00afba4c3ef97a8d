/**
 * @module Bicep extension types: resource types → `types.json`, `index.json`, `index.md`, `types.md`
 * in the bicep-types format, built and written with `@azure/bicep-types`.
 *
 * One extension per namespace (`Radius.Data`, `AWS.S3`): several manifests of one namespace merge.
 *
 * - Manifest types follow Radius's own generator: the body `<Namespace>/<type>@<apiVersion>` has
 *   `name` (Required, Identifier), `location`, `properties` (Required), `apiVersion` and `type`
 *   (ReadOnly, DeployTimeConstant literals) and `id` (ReadOnly); the children of `properties` are
 *   also on the body as read-only aliases; write-only (`x-radius-sensitive`) values are sensitive
 *   types. The extension is named `radius` + the namespace lower-cased without dots.
 * - Resource schemas follow bicep-types-aws: `AWS::S3::Bucket` is `AWS.S3/Bucket@default` whose body
 *   has `alias` (Required, Identifier), `name` and `properties`; read-only and write-only properties
 *   carry those flags, primary identifiers the Identifier flag.
 * - Beyond both: `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `minItems`, `maxItems` and
 *   descriptions are kept; a property's validation rules (CEL) are told in its description (each
 *   rule's message, or its text), the resource's own in that of `properties`.
 *
 * What Bicep cannot express is emitted as the nearest type it has (see `rules/bicep-expressible.ts`,
 * which warns about each case in `typeplane validate`): `number` → `int`, enums of numbers or booleans
 * → their base type, `patternProperties` → an object whose additional properties are any of the
 * patterns' values. Nothing here throws on a valid type.
 */
import {
  buildIndex,
  ObjectTypePropertyFlags,
  ScopeType,
  TypeBaseKind,
  TypeFactory,
  writeIndexJson,
  writeIndexMarkdown,
  writeMarkdown,
  writeTypesJson,
  type BicepType,
  type ObjectType,
  type ObjectTypeProperty,
  type TypeReference,
} from '@azure/bicep-types';
import type { ResourceType } from '../schema/index.js';
import { pointerTokens } from '../schema/diagnostics.js';
import { secretKeysNote } from './secret-keys.js';
import { rulesNote } from './validation-rules.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const { None, Required, ReadOnly, WriteOnly, DeployTimeConstant, Identifier } = ObjectTypePropertyFlags;

/** The version written in every extension's settings (Radius's generator writes the same). */
export const BICEP_EXTENSION_VERSION = '0.0.1';
/** The name of the types file `index.json` refers to. */
const TYPES_FILE = 'types.json';

/** One Bicep extension: the files `bicep publish-extension <index.json>` reads. */
export interface BicepExtension {
  /** `Radius.Data`, `AWS.S3`. */
  namespace: string;
  /** `settings.name` of the index: `radiusradiusdata`, `awss3`. */
  name: string;
  files: { 'types.json': string; 'types.md': string; 'index.json': string; 'index.md': string };
}

/**
 * The Bicep namespace of a type: a manifest's namespace, or the first two segments of a resource
 * schema's name joined by a dot (`AWS::S3::Bucket` → `AWS.S3`).
 */
export function bicepNamespace(type: Pick<ResourceType, 'typeName' | 'dialect'>): string {
  if (type.dialect === 'manifest') return type.typeName.slice(0, type.typeName.indexOf('/'));
  const [org, service] = type.typeName.split('::');
  return `${org}.${service}`;
}

/** `Radius.Data/postgreSqlDatabases@2025-08-01-preview`, `AWS.S3/Bucket@default`. */
export function bicepResourceName(type: ResourceType): string {
  if (type.dialect === 'manifest') return `${type.typeName}@${type.apiVersion}`;
  return `${bicepNamespace(type)}/${type.typeName.split('::')[2]}@default`;
}

/** `settings.name`: `radius` + the lower-cased namespace without dots for manifests (as Radius names them). */
export function bicepExtensionName(namespace: string, dialect: ResourceType['dialect']): string {
  const base = namespace.toLowerCase().replace(/\./g, '');
  return dialect === 'manifest' ? `radius${base}` : base;
}

/**
 * The extensions of `types`, one per namespace, sorted by namespace; within one, types are sorted by
 * name and API version so the same types always give the same bytes.
 *
 * @example
 * const [extension] = generateBicep(types);
 * await writeFile('out/index.json', extension.files['index.json']);
 */
export function generateBicep(types: readonly ResourceType[]): BicepExtension[] {
  const byNamespace = new Map<string, ResourceType[]>();
  for (const type of types) {
    const ns = bicepNamespace(type);
    const list = byNamespace.get(ns) ?? [];
    list.push(type);
    byNamespace.set(ns, list);
  }
  return [...byNamespace.keys()].sort(compare).map((ns) => extension(ns, byNamespace.get(ns)!));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function extension(namespace: string, types: ResourceType[]): BicepExtension {
  const sorted = [...types].sort(
    (a, b) => compare(a.typeName, b.typeName) || compare(a.apiVersion ?? '', b.apiVersion ?? ''),
  );
  const factory = new TypeFactory();
  for (const type of sorted) new ResourceConverter(factory, type).add();
  const dialect = sorted.some((t) => t.dialect === 'manifest') ? 'manifest' : 'resource-schema';
  const name = bicepExtensionName(namespace, dialect);
  const typeFiles = [{ relativePath: TYPES_FILE, types: factory.types }];
  const index = buildIndex(typeFiles, () => undefined, {
    name,
    version: BICEP_EXTENSION_VERSION,
    isSingleton: false,
  });
  return {
    namespace,
    name,
    files: {
      'types.json': writeTypesJson(factory.types) + '\n',
      'types.md': writeMarkdown(factory.types, `${namespace} @ ${BICEP_EXTENSION_VERSION}`),
      'index.json': writeIndexJson(index) + '\n',
      'index.md': writeIndexMarkdown(index, typeFiles),
    },
  };
}

/** Converts one resource type's model into Bicep types in a shared factory. */
class ResourceConverter {
  private readonly definitions: Schema;
  /** Converted definitions, by name; object definitions are added before their members (recursion). */
  private readonly definitionTypes = new Map<string, TypeReference>();
  private readonly inProgress = new Set<string>();

  constructor(
    private readonly factory: TypeFactory,
    private readonly type: ResourceType,
  ) {
    this.definitions = isObject(type.schema.definitions) ? type.schema.definitions : {};
  }

  add(): void {
    const { factory, type } = this;
    const resourceName = bicepResourceName(type);
    const qualified = resourceName.slice(0, resourceName.lastIndexOf('@'));
    const manifest = type.dialect === 'manifest';
    // The model of a manifest type has `name` beside its properties: in Bicep it is on the body.
    const root: Schema = manifest ? withoutName(type.schema) : type.schema;
    const propertiesName = manifest ? `${type.typeName.split('/')[1]}Properties` : `${qualified}Properties`;
    const properties = this.objectType(root, propertiesName);
    this.applyPointers(properties);

    const object = factory.lookupType(properties) as ObjectType;
    const string = () => factory.addStringType();
    // Rules on the resource as a whole are told where its properties are.
    const rules = rulesNote(type.schema, () => undefined);
    let body: Record<string, ObjectTypeProperty>;
    if (manifest) {
      body = {
        name: { type: string(), flags: Required | Identifier, description: 'The resource name.' },
        location: { type: string(), flags: None, description: 'The resource location.' },
        properties: {
          type: properties,
          flags: Required,
          ...description('The resource properties.', rules),
        },
        apiVersion: {
          type: factory.addStringLiteralType(type.apiVersion!),
          flags: ReadOnly | DeployTimeConstant,
          description: 'The API version.',
        },
        type: {
          type: factory.addStringLiteralType(type.typeName),
          flags: ReadOnly | DeployTimeConstant,
          description: 'The resource type.',
        },
        id: { type: string(), flags: ReadOnly, description: 'The resource id.' },
      };
      // Read-only aliases, so `db.host` reads like `db.properties.host`; the envelope wins a clash.
      for (const [key, property] of Object.entries(object.properties)) {
        if (Object.hasOwn(body, key)) continue;
        body[key] = { type: property.type, flags: ReadOnly, ...description(property.description) };
      }
    } else {
      const anyRequired = Object.values(object.properties).some((p) => (p.flags & Required) !== 0);
      body = {
        name: { type: string(), flags: None, description: 'the resource name' },
        alias: { type: string(), flags: Required | Identifier, description: 'the resource alias' },
        properties: {
          type: properties,
          flags: (anyRequired ? Required : None) | Identifier,
          ...description('properties of the resource', rules),
        },
      };
    }
    const bodyRef = factory.addObjectType(qualified, body);
    factory.addResourceType(resourceName, bodyRef, ScopeType.None, ScopeType.None);
  }

  /** Flags from the type's pointer lists, set on the properties they name (nested ones too). */
  private applyPointers(root: TypeReference): void {
    const { type } = this;
    const mark = (pointers: readonly string[], apply: (p: ObjectTypeProperty) => void) => {
      for (const pointer of pointers) {
        const property = this.resolve(root, pointer);
        if (property) apply(property);
      }
    };
    const manifest = type.dialect === 'manifest';
    mark(type.readOnlyProperties, (p) => (p.flags |= ReadOnly));
    // Radius writes secrets as sensitive types; CloudFormation-style schemas as WriteOnly (as bicep-types-aws).
    mark(type.writeOnlyProperties, (p) => {
      if (manifest) p.type = this.sensitive(p.type);
      else p.flags |= WriteOnly;
    });
    if (!manifest) mark(type.primaryIdentifier, (p) => (p.flags |= Identifier));
  }

  /** The property a pointer (`/properties/a/*\/b`) names, walking objects, arrays and maps. */
  private resolve(root: TypeReference, pointer: string): ObjectTypeProperty | undefined {
    const tokens = pointerTokens(pointer);
    if (tokens[0] !== 'properties' || tokens.length < 2) return undefined;
    let current: BicepType = this.factory.lookupType(root);
    let property: ObjectTypeProperty | undefined;
    for (const token of tokens.slice(1)) {
      if (token === '*') {
        if (current.type === TypeBaseKind.ArrayType) current = this.factory.lookupType(current.itemType);
        else if (current.type === TypeBaseKind.ObjectType && current.additionalProperties)
          current = this.factory.lookupType(current.additionalProperties);
        else return undefined;
        continue;
      }
      if (current.type !== TypeBaseKind.ObjectType || !Object.hasOwn(current.properties, token))
        return undefined;
      property = current.properties[token]!;
      current = this.factory.lookupType(property.type);
    }
    return property;
  }

  /** The sensitive form of a type: strings and string literals, objects; anything else as it is. */
  private sensitive(ref: TypeReference): TypeReference {
    const t = this.factory.lookupType(ref);
    switch (t.type) {
      case TypeBaseKind.StringType:
        return this.factory.addStringType(true, t.minLength, t.maxLength, t.pattern);
      case TypeBaseKind.StringLiteralType:
        // The format carries `sensitive` on literals too; the package's type does not declare it.
        return this.factory.addType({ ...t, sensitive: true } as BicepType);
      case TypeBaseKind.UnionType:
        return this.factory.addUnionType(t.elements.map((e) => this.sensitive(e)));
      case TypeBaseKind.ObjectType:
        t.sensitive = true;
        return ref;
      default:
        return ref;
    }
  }

  /** Any schema node → a Bicep type. `name` names the object types it creates. */
  private convert(node: unknown, name: string): TypeReference {
    const { factory } = this;
    if (!isObject(node)) return factory.addAnyType();
    if (typeof node.$ref === 'string') return this.ref(node.$ref, name);
    const constant = Object.hasOwn(node, 'const')
      ? [node.const]
      : Array.isArray(node.enum)
        ? node.enum
        : undefined;
    if (constant) return this.literals(constant, node, name);
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = node[keyword];
      if (!Array.isArray(branches)) continue;
      const typed = branches.filter(hasTypeInfo);
      // Branches that only constrain (`required: [A]` or `[B]`) leave the node's own type.
      if (typed.length > 0 && !isObject(node.properties))
        return union(
          factory,
          typed.map((b, i) => this.convert({ ...withoutKeyword(node, keyword), ...b }, `${name}${i + 1}`)),
        );
    }
    if (Array.isArray(node.allOf)) return this.convert(mergeAllOf(node), name);
    const types = Array.isArray(node.type)
      ? node.type
      : typeof node.type === 'string'
        ? [node.type]
        : inferred(node);
    if (types.length === 0) return factory.addAnyType();
    return union(
      factory,
      types.map((t) => this.ofType(String(t), node, name)),
    );
  }

  private ofType(t: string, node: Schema, name: string): TypeReference {
    const { factory } = this;
    switch (t) {
      case 'string':
        return factory.addStringType(
          undefined,
          count(node.minLength),
          count(node.maxLength),
          typeof node.pattern === 'string' ? node.pattern : undefined,
        );
      case 'integer':
      case 'number': {
        // Bicep has no floating-point type: a number is an int (fractions through `json('1.5')`).
        const min = bound(node.minimum, node.exclusiveMinimum, 1);
        const max = bound(node.maximum, node.exclusiveMaximum, -1);
        return factory.addIntegerType(min, max);
      }
      case 'boolean':
        return factory.addBooleanType();
      case 'null':
        return factory.addNullType();
      case 'array': {
        const items = Array.isArray(node.items)
          ? union(
              factory,
              node.items.map((item, i) => this.convert(item, `${name}Item${i + 1}`)),
            )
          : this.convert(node.items, `${name}Item`);
        return factory.addArrayType(items, count(node.minItems), count(node.maxItems));
      }
      case 'object':
        return this.objectType(node, name);
      default:
        return factory.addAnyType();
    }
  }

  /** An object type; maps (`additionalProperties` / `patternProperties` schemas) keep their value type. */
  private objectType(node: Schema, name: string, into?: TypeReference): TypeReference {
    const { factory } = this;
    const ref = into ?? factory.addObjectType(name, {});
    const object = factory.lookupType(ref) as ObjectType;
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties: Record<string, ObjectTypeProperty> = {};
    if (isObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties).sort(([a], [b]) => compare(a, b))) {
        Object.defineProperty(properties, key, {
          value: {
            type: this.convert(child, key),
            flags: required.has(key) ? Required : None,
            ...description(
              isObject(child) ? child.description : undefined,
              secretKeysNote(child),
              rulesNote(child, (ref) => resolveLocal(this.type.schema, ref)),
            ),
          },
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    // Constraint-only alternatives (`oneOf: [{required: [A]}, {required: [B]}]`): what every one requires.
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = node[keyword];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const sets = branches.map((b) => new Set(isObject(b) && Array.isArray(b.required) ? b.required : []));
      for (const key of sets[0]!)
        if (sets.every((s) => s.has(key)) && Object.hasOwn(properties, String(key)))
          properties[String(key)]!.flags |= Required;
    }
    object.properties = properties;
    const maps = [
      ...(isObject(node.patternProperties) ? Object.values(node.patternProperties) : []),
      ...(isObject(node.additionalProperties) ? [node.additionalProperties] : []),
    ];
    if (maps.length > 0) {
      object.additionalProperties = union(
        factory,
        maps.map((m) => this.convert(m, `${name}AdditionalProperties`)),
      );
    } else if (!isObject(node.properties) && node.additionalProperties !== false) {
      // A free-form object: any members.
      object.additionalProperties = factory.addAnyType();
    }
    return ref;
  }

  /** `#/definitions/X` → the definition's type (object definitions named after it); other pointers inlined. */
  private ref(ref: string, name: string): TypeReference {
    const { factory } = this;
    const m = /^#\/definitions\/([^/]+)$/.exec(ref);
    if (!m) {
      const target = resolveLocal(this.type.schema, ref);
      return target === undefined || this.inProgress.has(ref)
        ? factory.addAnyType()
        : this.inline(ref, target, name);
    }
    const def = pointerTokens('/' + decode(m[1]!))[0]!;
    const known = this.definitionTypes.get(def);
    if (known) return known;
    const target = Object.hasOwn(this.definitions, def) ? this.definitions[def] : undefined;
    if (target === undefined || this.inProgress.has(def)) return factory.addAnyType();
    const defName = def.replace(/^typeplane:/, '');
    if (isObject(target) && isObject(target.properties) && !target.oneOf && !target.anyOf && !target.allOf) {
      // Added before its members so a recursive reference finds it.
      const placeholder = factory.addObjectType(defName, {});
      this.definitionTypes.set(def, placeholder);
      return this.objectType(target, defName, placeholder);
    }
    const converted = this.inline(def, target, defName);
    this.definitionTypes.set(def, converted);
    return converted;
  }

  private inline(key: string, target: unknown, name: string): TypeReference {
    this.inProgress.add(key);
    try {
      return this.convert(target, name);
    } finally {
      this.inProgress.delete(key);
    }
  }

  /** An enum or const: strings become literals; numbers and booleans their base type (Bicep has no such literals). */
  private literals(values: unknown[], node: Schema, name: string): TypeReference {
    const { factory } = this;
    const parts: TypeReference[] = [];
    const others = new Set<string>();
    for (const value of values) {
      if (typeof value === 'string') parts.push(factory.addStringLiteralType(value));
      else if (value === null) parts.push(factory.addNullType());
      else if (typeof value === 'number') others.add(Number.isInteger(value) ? 'integer' : 'number');
      else if (typeof value === 'boolean') others.add('boolean');
      else others.add(Array.isArray(value) ? 'array' : 'object');
    }
    for (const t of others) parts.push(this.ofType(t, t === 'object' || t === 'array' ? {} : node, name));
    return union(factory, parts);
  }
}

function union(factory: TypeFactory, refs: TypeReference[]): TypeReference {
  const unique = [...new Map(refs.map((r) => [r.index, r])).values()];
  if (unique.length === 1) return unique[0]!;
  if (unique.length === 0) return factory.addAnyType();
  return factory.addUnionType(unique);
}

/** A member's description, with notes (like the keys of the secret it names) after it. */
function description(text: unknown, ...notes: (string | undefined)[]): { description?: string } {
  const parts = [typeof text === 'string' && text.trim() !== '' ? text : undefined, ...notes].filter(
    (p): p is string => p !== undefined,
  );
  return parts.length > 0 ? { description: parts.join(' ') } : {};
}

const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

/**
 * An integer bound from inclusive and exclusive bounds: the tighter whole number (`exclusiveMinimum:
 * 0` is `minValue: 1`; `minimum: 0.5` is `minValue: 1`). `direction` is 1 for minimums, -1 for maximums.
 */
function bound(inclusive: unknown, exclusive: unknown, direction: 1 | -1): number | undefined {
  const candidates: number[] = [];
  if (typeof inclusive === 'number' && Number.isFinite(inclusive))
    candidates.push(direction === 1 ? Math.ceil(inclusive) : Math.floor(inclusive));
  if (typeof exclusive === 'number' && Number.isFinite(exclusive))
    candidates.push(direction === 1 ? Math.floor(exclusive) + 1 : Math.ceil(exclusive) - 1);
  if (candidates.length === 0) return undefined;
  const value = direction === 1 ? Math.max(...candidates) : Math.min(...candidates);
  return Number.isSafeInteger(value) ? value : undefined;
}

function withoutName(schema: Schema): Schema {
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  delete properties.name;
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => r !== 'name') : [];
  return { ...schema, properties, required };
}

function withoutKeyword(node: Schema, keyword: string): Schema {
  const { [keyword]: _removed, ...rest } = node;
  return rest;
}

/** `allOf` branches merged into the node: properties and required lists joined, other keywords kept. */
function mergeAllOf(node: Schema): Schema {
  const { allOf, ...rest } = node;
  const merged: Schema = { ...rest };
  for (const branch of allOf as unknown[]) {
    if (!isObject(branch)) continue;
    for (const [key, value] of Object.entries(branch)) {
      if (key === 'properties' && isObject(value))
        merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...value };
      else if (key === 'required' && Array.isArray(value))
        merged.required = [...(Array.isArray(merged.required) ? merged.required : []), ...value];
      else if (!(key in merged)) merged[key] = value;
    }
  }
  return merged;
}

function inferred(node: Schema): string[] {
  if (isObject(node.properties) || isObject(node.patternProperties) || isObject(node.additionalProperties))
    return ['object'];
  if (node.items !== undefined) return ['array'];
  return [];
}

function hasTypeInfo(node: unknown): boolean {
  if (!isObject(node)) return false;
  return ['$ref', 'type', 'const', 'enum', 'properties', 'items', 'oneOf', 'anyOf', 'allOf'].some((k) =>
    Object.hasOwn(node, k),
  );
}

function resolveLocal(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const token of pointerTokens(decode(ref.slice(1)))) {
    if (!isObject(node) || !Object.hasOwn(node, token)) return undefined;
    node = node[token];
  }
  return node;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
