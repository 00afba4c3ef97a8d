/**
 * @module Template values shaped to a type's schema, as CloudFormation does: parameters and `Fn::Sub`
 * produce strings, so `"5432"` is a number where the schema wants one, `"true"` a boolean, and a
 * number is a string where a string is wanted. Nothing else is changed; validation follows.
 */
import type { ResourceType } from '../schema/index.js';

type Schema = Record<string, unknown>;

export function conformProperties(
  type: ResourceType,
  properties: Record<string, unknown>,
): Record<string, unknown> {
  const definitions = (type.schema.definitions ?? {}) as Record<string, Schema>;
  return conform(properties, type.schema, definitions, 0) as Record<string, unknown>;
}

function resolve(schema: Schema, definitions: Record<string, Schema>): Schema {
  let s = schema;
  for (let i = 0; i < 8 && typeof s.$ref === 'string' && s.$ref.startsWith('#/definitions/'); i++)
    s = definitions[s.$ref.slice('#/definitions/'.length)] ?? {};
  return s;
}

function conform(
  value: unknown,
  raw: Schema | undefined,
  definitions: Record<string, Schema>,
  depth: number,
): unknown {
  if (!raw || depth > 32) return value;
  const schema = resolve(raw, definitions);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  if (typeof value === 'string' && !types.includes('string')) {
    if (
      (types.includes('integer') || types.includes('number')) &&
      value.trim() !== '' &&
      Number.isFinite(Number(value))
    )
      return Number(value);
    if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    return value;
  }
  if (
    (typeof value === 'number' || typeof value === 'boolean') &&
    types.includes('string') &&
    types.length === 1
  )
    return String(value);
  if (Array.isArray(value))
    return value.map((v) => conform(v, schema.items as Schema | undefined, definitions, depth + 1));
  // Plain mappings only: an unknown value (a class instance) passes through untouched.
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = Object.hasOwn(properties, k) ? conform(v, properties[k], definitions, depth + 1) : v;
    return out;
  }
  return value;
}
