/**
 * @module A type's properties as an editor shows them: every property pointer a schema declares
 * (`/properties/Tags/*\/Key`), where each is written in the document, and a property's description,
 * type, constraints and marks as hover text.
 */
import type { ResourceType } from '../schema/index.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bounds on what is listed: a schema is walked this deep, and this many properties at most. */
const MAX_DEPTH = 4;
const MAX_PROPERTIES = 2_000;
const MAX_REF_HOPS = 16;

/** A `$ref` to `#/definitions/…` (or `#/$defs/…`) followed to its schema, with the path it is written at. */
function resolved(root: Schema, schema: Schema, path: string[]): { schema: Schema; path: string[] } {
  for (let hops = 0; hops < MAX_REF_HOPS && typeof schema.$ref === 'string'; hops++) {
    const match = /^#\/(definitions|\$defs)\/([^/]+)$/.exec(schema.$ref);
    const section = match ? root[match[1]!] : undefined;
    const target = match && isObject(section) ? section[decodeToken(match[2]!)] : undefined;
    if (!isObject(target)) break;
    schema = target;
    path = [match![1]!, decodeToken(match![2]!)];
  }
  return { schema, path };
}

const decodeToken = (t: string) => t.replace(/~1/g, '/').replace(/~0/g, '~');
export const encodeToken = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');

export interface PropertyAt {
  schema: Schema;
  /** Where its schema is written in the document (member names). */
  path: string[];
}

/**
 * The property a pointer names (`/properties/A/B`, `/properties/Tags/*\/Key`), following `$ref`s,
 * nested `properties` and `items`; undefined when the schema does not declare it.
 */
export function propertyAt(root: Schema, pointer: string): PropertyAt | undefined {
  const tokens = pointer.split('/').slice(1).map(decodeToken);
  if (tokens[0] !== 'properties' || tokens.length < 2) return undefined;
  const top = root.properties;
  if (!isObject(top) || !isObject(top[tokens[1]!])) return undefined;
  let at: PropertyAt = { schema: top[tokens[1]!] as Schema, path: ['properties', tokens[1]!] };
  for (const token of tokens.slice(2)) {
    const here = resolved(root, at.schema, at.path);
    if (token === '*') {
      if (!isObject(here.schema.items)) return undefined;
      at = { schema: here.schema.items, path: [...here.path, 'items'] };
      continue;
    }
    let inner = here;
    // A list's items' members are written without '*' too, as CloudFormation's pointers are.
    if (!isObject(inner.schema.properties) && isObject(inner.schema.items))
      inner = resolved(root, inner.schema.items, [...inner.path, 'items']);
    const members = inner.schema.properties;
    if (!isObject(members) || !isObject(members[token])) return undefined;
    at = { schema: members[token] as Schema, path: [...inner.path, 'properties', token] };
  }
  return { ...resolved(root, at.schema, at.path), path: at.path };
}

export interface ListedProperty {
  /** Member names from the top: `['Tags', '*', 'Key']`. */
  names: string[];
  schema: Schema;
}

/** Every property the schema declares, nested ones too (through `$ref`s, `properties` and `items`), bounded. */
export function listProperties(root: Schema): ListedProperty[] {
  const listed: ListedProperty[] = [];
  const visit = (members: unknown, names: string[], seen: ReadonlySet<Schema>) => {
    if (!isObject(members)) return;
    for (const [name, value] of Object.entries(members)) {
      if (listed.length >= MAX_PROPERTIES || !isObject(value)) return;
      const here = [...names, name];
      let { schema } = resolved(root, value, []);
      listed.push({ names: here, schema });
      if (here.length >= MAX_DEPTH || seen.has(schema)) continue;
      const inner = new Set(seen).add(schema);
      const path = [...here];
      if (isObject(schema.items)) {
        schema = resolved(root, schema.items, []).schema;
        path.push('*');
      }
      visit(schema.properties, path, inner);
    }
  };
  visit(root.properties, [], new Set());
  return listed;
}

export const pointerOf = (names: readonly string[]) => `/properties/${names.map(encodeToken).join('/')}`;

/** The marks a type gives a property, by its pointer. */
export function marksOf(
  type: Pick<
    ResourceType,
    'schema' | 'readOnlyProperties' | 'writeOnlyProperties' | 'createOnlyProperties' | 'primaryIdentifier'
  >,
  names: readonly string[],
): string[] {
  const pointer = pointerOf(names);
  const marks: string[] = [];
  const required =
    names.length === 1 && Array.isArray(type.schema.required) && type.schema.required.includes(names[0]);
  if (required) marks.push('required');
  if (type.primaryIdentifier.includes(pointer)) marks.push('identifier');
  if (type.readOnlyProperties.includes(pointer)) marks.push('read-only');
  if (type.writeOnlyProperties.includes(pointer)) marks.push('write-only');
  if (type.createOnlyProperties.includes(pointer)) marks.push('create-only');
  return marks;
}

/** The short type of a property schema: `string`, `array of string`, `enum S | M | L`. */
export function typeLabel(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const type = Array.isArray(schema.type)
    ? schema.type.join(' | ')
    : typeof schema.type === 'string'
      ? schema.type
      : '';
  if (type === 'array' && isObject(schema.items)) {
    const items = schema.items;
    const inner =
      typeof items.type === 'string'
        ? items.type
        : typeof items.$ref === 'string'
          ? items.$ref.split('/').pop()!
          : '';
    return inner ? `array of ${inner}` : 'array';
  }
  if (!type && typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  return type || 'any';
}

const CONSTRAINTS = [
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'default',
] as const;

/** Hover text (Markdown) for a property: name, type, marks, description and constraints. */
export function describeProperty(name: string, schema: Schema, marks: readonly string[]): string {
  const lines = [`**${name}**: \`${typeLabel(schema)}\`${marks.length > 0 ? ` — ${marks.join(', ')}` : ''}`];
  if (typeof schema.description === 'string') lines.push('', schema.description);
  const constraints = CONSTRAINTS.filter((k) => schema[k] !== undefined).map(
    (k) => `- ${k}: \`${JSON.stringify(schema[k])}\``,
  );
  if (constraints.length > 0) lines.push('', ...constraints);
  return lines.join('\n');
}
