/**
 * @module The keywords a document may have at a place, and their values, read from the JSON Schemas
 * Typeplane serves for editors (src/codegen/editor-schemas.ts: the resource schema validator's own
 * meta-schema with descriptions, the manifest dialect's keyword tables, the template sections): so
 * completion and hover say what the validators accept, from one source.
 */
import { manifestEditorSchema, resourceSchemaEditorSchema, stackTemplateSchema } from '../codegen/index.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export type SchemaKind = 'resource-schema' | 'manifest' | 'template';

const schemas = new Map<SchemaKind, Schema>();

function editorSchema(kind: SchemaKind): Schema {
  let schema = schemas.get(kind);
  if (!schema) {
    schema =
      kind === 'resource-schema'
        ? resourceSchemaEditorSchema()
        : kind === 'manifest'
          ? manifestEditorSchema()
          : stackTemplateSchema([]);
    schemas.set(kind, schema);
  }
  return schema;
}

/** Bound on the schemas a walk follows (`$ref`s and alternatives). */
const MAX_SCHEMAS = 64;

/** The schemas a value at `path` must meet (alternatives and `$ref`s followed). */
export function schemasAt(kind: SchemaKind, path: readonly (string | number)[]): Schema[] {
  const root = editorSchema(kind);
  let current = expand(root, [root]);
  for (const step of path) {
    const next: Schema[] = [];
    for (const schema of current) {
      if (typeof step === 'number') {
        if (isObject(schema.items)) next.push(schema.items);
        continue;
      }
      const named = isObject(schema.properties) ? schema.properties[step] : undefined;
      if (isObject(named)) {
        next.push(named);
        continue;
      }
      let matched = false;
      if (isObject(schema.patternProperties))
        for (const [pattern, value] of Object.entries(schema.patternProperties))
          if (isObject(value) && safeTest(pattern, step)) {
            next.push(value);
            matched = true;
          }
      if (!matched && isObject(schema.additionalProperties)) next.push(schema.additionalProperties);
    }
    current = expand(root, next);
    if (current.length === 0) break;
  }
  return current;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return false;
  }
}

/** `$ref`s followed and `allOf`/`anyOf`/`oneOf` branches added, bounded. */
function expand(root: Schema, schemas: Schema[]): Schema[] {
  const out: Schema[] = [];
  const queue = [...schemas];
  while (queue.length > 0 && out.length < MAX_SCHEMAS) {
    const schema = queue.shift()!;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) {
      let target: unknown = root;
      for (const token of schema.$ref.slice(2).split('/'))
        target = isObject(target) ? target[token] : undefined;
      if (isObject(target)) queue.push(target);
    }
    out.push(schema);
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(schema[key]))
        for (const branch of schema[key] as unknown[]) if (isObject(branch)) queue.push(branch);
  }
  return out;
}

export interface Keyword {
  name: string;
  description?: string;
}

/** The member names the schema names at `path` (the object's), with their descriptions. */
export function keywordsAt(kind: SchemaKind, path: readonly (string | number)[]): Keyword[] {
  const found = new Map<string, Keyword>();
  for (const schema of schemasAt(kind, path)) {
    if (!isObject(schema.properties)) continue;
    for (const [name, value] of Object.entries(schema.properties)) {
      if (found.has(name)) continue;
      const description = describe(kind, value);
      found.set(name, { name, ...(description ? { description } : {}) });
    }
  }
  return [...found.values()];
}

/** The values the schema allows at `path`, when it lists them. */
export function valuesAt(kind: SchemaKind, path: readonly (string | number)[]): unknown[] {
  const values: unknown[] = [];
  for (const schema of schemasAt(kind, path)) {
    if (Array.isArray(schema.enum)) values.push(...(schema.enum as unknown[]));
    if ('const' in schema) values.push(schema.const);
    if (schema.type === 'boolean') values.push(true, false);
  }
  return [...new Set(values)];
}

/** A keyword's description at `path`, for hover. */
export function keywordDescription(kind: SchemaKind, path: readonly (string | number)[]): string | undefined {
  for (const schema of schemasAt(kind, path)) {
    const description = describe(kind, schema);
    if (description) return description;
  }
  return undefined;
}

function describe(kind: SchemaKind, schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema.description === 'string') return schema.description;
  const [first] = expand(editorSchema(kind), [schema]).filter((s) => typeof s.description === 'string');
  return first?.description as string | undefined;
}
