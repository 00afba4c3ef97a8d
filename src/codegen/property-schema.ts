/**
 * @module Per type, a JSON Schema of its properties for consumers: the model schema (draft-07) with
 * the type's read-only and write-only pointers written as `readOnly` / `writeOnly` on the properties
 * they name, descriptions and validation rules kept.
 */
import type { ResourceType } from '../schema/index.js';
import { pointerTokens } from '../schema/diagnostics.js';
import { carryRules } from './validation-rules.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `AWS::S3::Bucket` → `AWS.S3.Bucket.json`; `Radius.Data/redisCaches` → `Radius.Data.redisCaches.json`. */
export function propertiesSchemaFileName(type: Pick<ResourceType, 'typeName'>): string {
  return `${type.typeName.replace(/::|\//g, '.')}.json`;
}

/** The `$id` of a type's properties schema, relative to where the artifacts are served or written. */
export function propertiesSchemaId(type: Pick<ResourceType, 'typeName'>): string {
  return `https://typeplane.dev/schemas/types/${propertiesSchemaFileName(type)}`;
}

/**
 * The schema of a type's model (its desired state and what reads return).
 *
 * @example
 * await writeFile('AWS.S3.Bucket.json', JSON.stringify(typePropertiesSchema(bucket), null, 2));
 */
export function typePropertiesSchema(type: ResourceType): Schema {
  const schema = markedModel(type);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: propertiesSchemaId(type),
    title: type.apiVersion ? `${type.typeName}@${type.apiVersion}` : type.typeName,
    ...schema,
    description: type.description,
  };
}

/**
 * A copy of the model schema with `readOnly` and `writeOnly` set where the pointer lists say. A
 * pointer through a `$ref` marks the definition (shared by every use, as in the type itself). The
 * validation rules are also under `x-kubernetes-validations` (./validation-rules.ts).
 */
export function markedModel(type: ResourceType): Schema {
  const schema = carryRules(structuredClone(type.schema));
  const mark = (pointers: readonly string[], keyword: 'readOnly' | 'writeOnly') => {
    for (const pointer of pointers) for (const node of locate(schema, pointer)) node[keyword] = true;
  };
  mark(type.readOnlyProperties, 'readOnly');
  mark(type.writeOnlyProperties, 'writeOnly');
  return schema;
}

/** The schema nodes a property pointer (`/properties/a/*\/b`) names, through `$ref`s and compositions. */
function locate(root: Schema, pointer: string): Schema[] {
  const tokens = pointerTokens(pointer);
  if (tokens[0] !== 'properties' || tokens.length < 2) return [];
  let current: Schema[] = [root];
  for (const token of tokens.slice(1)) {
    const next: Schema[] = [];
    for (const node of current.flatMap((n) => expand(root, n))) {
      if (token === '*') {
        if (isObject(node.items)) next.push(node.items);
        if (isObject(node.additionalProperties)) next.push(node.additionalProperties);
        if (isObject(node.patternProperties))
          for (const v of Object.values(node.patternProperties)) if (isObject(v)) next.push(v);
      } else if (isObject(node.properties) && isObject(node.properties[token])) {
        next.push(node.properties[token]);
      }
    }
    current = next;
  }
  return current;
}

/** A node, the definition it refers to, and its composition branches (transitively, once each). */
function expand(root: Schema, node: Schema): Schema[] {
  const out: Schema[] = [];
  const stack = [node];
  const seen = new Set<Schema>();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
    const m = typeof n.$ref === 'string' ? /^#\/definitions\/([^/]+)$/.exec(n.$ref) : null;
    if (m && isObject(root.definitions)) {
      const def = root.definitions[pointerTokens('/' + m[1]!)[0]!];
      if (isObject(def)) stack.push(def);
    }
    for (const k of ['oneOf', 'anyOf', 'allOf'])
      if (Array.isArray(n[k])) for (const b of n[k] as unknown[]) if (isObject(b)) stack.push(b);
  }
  return out;
}
