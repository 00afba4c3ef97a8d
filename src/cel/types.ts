/**
 * @module The CEL types an expression is checked against, with the sizes its cost is estimated over.
 * A JSON Schema gives them for a rule's `self` (integers as `int`, numbers as `double`, objects with
 * `properties` as objects whose fields are known, other objects as maps, arrays as lists); an
 * admission policy's variables are `dyn`. Every string, list and map carries the most it can hold:
 * `maxLength`/`maxItems`/`maxProperties` where the schema says, else what fits in the largest request
 * body the server accepts (Kubernetes' way of bounding what the schema leaves unbounded).
 */

export type ScalarKind =
  'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'null_type' | 'duration' | 'timestamp' | 'type';

export type ValueType =
  | { readonly kind: 'dyn'; readonly maxSize?: number }
  | { readonly kind: ScalarKind; readonly maxSize?: number }
  | { readonly kind: 'list'; readonly elem: ValueType; readonly maxSize?: number }
  /** A JSON object read as a map: keys are strings. */
  | { readonly kind: 'map'; readonly value: ValueType; readonly maxSize?: number }
  /** A JSON object whose fields the schema names: selecting another one is an error. */
  | {
      readonly kind: 'object';
      readonly properties: ReadonlyMap<string, ValueType>;
      readonly maxSize?: number;
      /**
       * The type of a value as it is (see `sizedType`): it has these members and no other, so a
       * member read by a computed key and a key it iterates are sized by them. A schema's objects
       * are not exact: a schema may allow members it does not name.
       */
      readonly exact?: boolean;
    };

export const DYN: ValueType = Object.freeze({ kind: 'dyn' });

/** The largest request body the server accepts (the HTTP and Cloud Control front doors' limit). */
export const DEFAULT_SIZE_LIMIT = 1024 * 1024;

export function typeName(t: ValueType): string {
  switch (t.kind) {
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(string, ${typeName(t.value)})`;
    case 'object':
      return 'object';
    default:
      return t.kind;
  }
}

type Schema = { readonly [key: string]: unknown };

/**
 * The CEL type of values valid against `schema` (a part of `root`, whose `#/…` references it may
 * use). References are followed once each: a recursive schema makes a cyclic type, which checking
 * and cost estimation walk only as deep as an expression selects.
 */
export function typeFromSchema(
  schema: Schema,
  root: Schema = schema,
  sizeLimit = DEFAULT_SIZE_LIMIT,
): ValueType {
  return new SchemaTypes(root, sizeLimit).of(schema, 0);
}

/** Deeper than this a schema's types are `dyn` (published schemas nest a dozen levels at most). */
const MAX_DEPTH = 64;

class SchemaTypes {
  private readonly byRef = new Map<string, ValueType>();
  constructor(
    private readonly root: Schema,
    private readonly limit: number,
  ) {}

  of(schema: Schema, depth: number): ValueType {
    if (depth > MAX_DEPTH) return DYN;
    const ref = schema.$ref;
    if (typeof ref === 'string') return this.ofRef(ref, depth);
    const kind = singleType(schema);
    const props = isSchema(schema.properties) ? schema.properties : undefined;
    if (kind === 'object' || (kind === undefined && props)) return this.objectOf(schema, props, depth);
    switch (kind) {
      case 'integer':
        return { kind: 'int' };
      case 'number':
        return { kind: 'double' };
      case 'boolean':
        return { kind: 'bool' };
      case 'null':
        return { kind: 'null_type' };
      case 'string':
        return { kind: 'string', maxSize: bound(schema.maxLength, this.limit - 2) };
      case 'array': {
        const elem = isSchema(schema.items) ? this.of(schema.items, depth + 1) : DYN;
        return {
          kind: 'list',
          elem,
          maxSize: bound(schema.maxItems, Math.floor(this.limit / (minSize(elem) + 1))),
        };
      }
      default:
        if (kind === undefined && isSchema(schema.items)) return this.of({ ...schema, type: 'array' }, depth);
        return { kind: 'dyn', maxSize: this.limit };
    }
  }

  private objectOf(schema: Schema, props: Schema | undefined, depth: number): ValueType {
    if (props && Object.keys(props).length > 0) {
      const properties = new Map<string, ValueType>();
      for (const [name, sub] of Object.entries(props)) {
        properties.set(name, isSchema(sub) ? this.of(sub, depth + 1) : DYN);
      }
      return { kind: 'object', properties, maxSize: bound(schema.maxProperties, properties.size) };
    }
    const value = isSchema(schema.additionalProperties)
      ? this.of(schema.additionalProperties, depth + 1)
      : DYN;
    return {
      kind: 'map',
      value,
      maxSize: bound(schema.maxProperties, Math.floor(this.limit / (minSize(value) + 4))),
    };
  }

  private ofRef(ref: string, depth: number): ValueType {
    const known = this.byRef.get(ref);
    if (known) return known;
    const target = resolvePointer(this.root, ref);
    if (!target) return DYN;
    // A placeholder first, so a reference back to itself finds the type being made.
    const placeholder: { kind: 'object'; properties: Map<string, ValueType>; maxSize?: number } = {
      kind: 'object',
      properties: new Map(),
    };
    this.byRef.set(ref, placeholder);
    const made = this.of(target, depth + 1);
    if (made.kind === 'object') {
      for (const [k, v] of made.properties) placeholder.properties.set(k, v);
      placeholder.maxSize = made.maxSize;
      return placeholder;
    }
    this.byRef.set(ref, made);
    return made;
  }
}

function singleType(schema: Schema): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const nonNull = t.filter((x) => x !== 'null');
    return nonNull.length === 1 && typeof nonNull[0] === 'string' ? nonNull[0] : 'any';
  }
  return undefined;
}

function isSchema(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bound(declared: unknown, otherwise: number): number {
  return typeof declared === 'number' && Number.isFinite(declared) && declared >= 0
    ? Math.min(declared, otherwise)
    : otherwise;
}

/** The fewest bytes a value of the type takes in JSON, with a separator (`0,`, `"",`, `{},`). */
function minSize(t: ValueType): number {
  switch (t.kind) {
    case 'string':
    case 'list':
    case 'map':
    case 'object':
      return 2;
    case 'bool':
      return 4;
    case 'null_type':
      return 4;
    default:
      return 1;
  }
}

function resolvePointer(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isSchema(at) || !Object.hasOwn(at, token)) return undefined;
    at = at[token];
  }
  return isSchema(at) ? at : undefined;
}
