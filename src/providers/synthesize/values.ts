/**
 * @module Values written from a property's schema: `type`, `const`, `enum`, `pattern` (RE2),
 * `format`, lengths, bounds, `multipleOf`, nested objects and arrays, `$ref`, `allOf`, `anyOf`,
 * `oneOf`. A well-known shape (shapes.ts) is offered first and kept when the schema accepts it;
 * otherwise the schema alone decides.
 *
 * Cost is bounded: past a few levels (or inside a `$ref` already entered on the way) only required
 * members are written, an array gets its `minItems` (one item when it may have any), and a value
 * needing more than {@link MAX_ITEMS} items, {@link MAX_DEPTH} levels or {@link MAX_NODES} nodes in
 * all is not written (the caller leaves it out).
 */
import { patternMatcher, stringMatching } from './pattern.js';
import { wellKnown } from './shapes.js';
import { kebab, type Seed, type Subject } from './subject.js';

type Schema = Record<string, unknown>;

/** Levels below which optional members are written too. */
const FULL_DEPTH = 4;
const MAX_DEPTH = 12;
export const MAX_ITEMS = 50;
const MAX_NODES = 2000;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A written value; `undefined` stands for "none could be written". */
type Written = { value: unknown } | undefined;

/** Where a value is written: its path from the top, its seed, the `$ref`s entered on the way, its depth. */
interface Position {
  path: readonly (string | number)[];
  seed: Seed;
  refs: readonly string[];
  depth: number;
}

/** The position of a member (a property name or an array index) of the value at `at`. */
function member(at: Position, key: string | number, seed: Seed): Position {
  return { path: [...at.path, key], seed, refs: at.refs, depth: at.depth + 1 };
}

export class ValueWriter {
  private nodes = 0;

  constructor(
    private readonly root: Schema,
    private readonly subject: Subject,
  ) {}

  /** A value for `node` at `path` (member names and array positions from the top). */
  value(node: unknown, path: readonly (string | number)[], seed: Seed): Written {
    this.nodes = 0;
    return this.write(node, { path, seed, refs: [], depth: 0 });
  }

  /**
   * A name CloudFormation would give a resource whose template leaves it out, without a stack:
   * `<Kind>-<13 characters>`, as the schema allows it (lower case, no hyphen, shortened).
   */
  name(node: unknown, path: readonly string[], seed: Seed, lowerCase: boolean): Written {
    const schema = this.resolve(node, []).schema;
    if (!schema) return undefined;
    const suffix = seed.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 13);
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 255;
    const kind = this.subject.kind.slice(0, Math.max(0, max - suffix.length - 1));
    const candidates = [`${kind}-${suffix}`, `${kind}${suffix}`, `${kind}_${suffix}`]
      .flatMap((c) => (lowerCase ? [c.toLowerCase()] : [c, c.toLowerCase()]))
      .filter((c) => c.length <= max);
    for (const c of candidates) if (conformsString(c, schema)) return { value: c };
    return this.value(schema, path, seed);
  }

  private write(node: unknown, at: Position): Written {
    if (++this.nodes > MAX_NODES || at.depth > MAX_DEPTH) return undefined;
    const { schema, refs } = this.resolve(node, at.refs);
    if (!schema) return undefined;
    const here = { ...at, refs };
    if ('const' in schema) return { value: structuredClone(schema.const) };
    if (Array.isArray(schema.enum)) return this.choice(schema, here);
    const branches = Array.isArray(schema.anyOf)
      ? schema.anyOf
      : Array.isArray(schema.oneOf)
        ? schema.oneOf
        : undefined;
    if (branches) {
      const { anyOf: _a, oneOf: _o, ...base } = schema;
      for (const branch of branches) {
        const written = this.write(merge(base, this.resolve(branch, refs).schema ?? {}), here);
        if (written) return written;
      }
      return undefined;
    }
    for (const type of typesOf(schema)) {
      const written = this.ofType(type, schema, here);
      if (written) return written;
    }
    return undefined;
  }

  /** The schema with its `$ref`s followed and `allOf` merged; the refs entered on the way. */
  private resolve(node: unknown, refs: readonly string[]): { schema: Schema | undefined; refs: string[] } {
    if (node === true || node === undefined) return { schema: {}, refs: [...refs] };
    let schema = isObject(node) ? node : undefined;
    const entered = [...refs];
    for (let hops = 0; schema && typeof schema.$ref === 'string'; hops++) {
      const ref = schema.$ref;
      if (hops > 8 || entered.filter((r) => r === ref).length >= 2)
        return { schema: undefined, refs: entered };
      entered.push(ref);
      const target = localRef(this.root, ref);
      if (!isObject(target)) return { schema: undefined, refs: entered };
      const { $ref: _ref, ...siblings } = schema;
      schema = Object.keys(siblings).length > 0 ? merge(target, siblings) : target;
    }
    if (schema && Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      let merged: Schema = rest;
      for (const part of allOf) {
        const resolved = this.resolve(part, entered).schema;
        if (!resolved) return { schema: undefined, refs: entered };
        merged = merge(merged, resolved);
      }
      schema = merged;
    }
    return { schema, refs: entered };
  }

  /** An enum's member: one reading like AWS's for the place, else an active-sounding one, else the first. */
  private choice(schema: Schema, at: Position): Written {
    const members = (schema.enum as unknown[]).filter((v) => v !== null);
    if (members.length === 0) return undefined;
    const key = (v: unknown) => JSON.stringify(v);
    const allowed = new Set(members.map(key));
    for (const candidate of this.known(at)) if (allowed.has(key(candidate))) return { value: candidate };
    const active = members.find((m) => typeof m === 'string' && PREFERRED_STATE.test(m));
    return { value: structuredClone(active ?? members[0]) };
  }

  /** The well-known values for the place. */
  private known(at: Position): unknown[] {
    const names = at.path.filter((p): p is string => typeof p === 'string');
    return wellKnown({ names, item: typeof at.path.at(-1) === 'number', seed: at.seed }, this.subject);
  }

  private ofType(type: string, schema: Schema, at: Position): Written {
    switch (type) {
      case 'string':
        return this.string(schema, at);
      case 'integer':
      case 'number':
        return this.number(schema, at, type === 'integer');
      case 'boolean':
        return { value: this.known(at).find((v) => typeof v === 'boolean') ?? false };
      case 'object':
        return this.object(schema, at);
      case 'array':
        return this.array(schema, at);
      default:
        return undefined;
    }
  }

  private string(schema: Schema, at: Position): Written {
    const { seed } = at;
    const name = at.path.filter((p): p is string => typeof p === 'string').at(-1) ?? this.subject.kind;
    const candidates = [
      ...this.known(at),
      ...formatted(schema.format, this.subject, seed),
      ...(/(Message|Reason|Description|Details?)s?$/.test(name) ? [''] : []),
      `${kebab(name)}-${seed.hex(8)}`,
    ];
    for (const c of candidates) if (typeof c === 'string' && conformsString(c, schema)) return { value: c };
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    if (typeof schema.pattern === 'string') {
      const e = this.subject.emulated;
      const made = stringMatching({
        pattern: schema.pattern,
        minLength,
        maxLength,
        seed: seed.derive('pattern'),
        arnFields: ['arn', e.partition, this.subject.service, e.region, e.accountId],
      });
      return made !== undefined && conformsString(made, schema) ? { value: made } : undefined;
    }
    // A plain word, lengthened or shortened to the lengths allowed.
    let word = `${kebab(name)}-${seed.hex(8)}`;
    if (word.length < minLength) word += seed.hex(minLength - word.length);
    if (maxLength !== undefined) word = word.slice(0, maxLength);
    return conformsString(word, schema) ? { value: word } : undefined;
  }

  private number(schema: Schema, at: Position, integer: boolean): Written {
    for (const c of this.known(at))
      if (typeof c === 'number' && conformsNumber(c, schema, integer)) return { value: c };
    const step =
      typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
    const low =
      typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum
          : undefined;
    const high = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    // The lowest allowed value, else 0: counts, sizes and percentages read naturally from there.
    const base = low ?? (high !== undefined && high < 0 ? high : 0);
    const candidates = [base, base + 1, ...(high !== undefined ? [(base + high) / 2] : [])];
    for (let candidate of candidates) {
      if (integer) candidate = Math.ceil(candidate);
      if (step) candidate = Math.ceil(candidate / step) * step;
      if (conformsNumber(candidate, schema, integer)) return { value: candidate };
    }
    return undefined;
  }

  /** Past FULL_DEPTH, or inside a `$ref` entered twice on the way (a recursive schema): only what is required. */
  private minimal(at: Position): boolean {
    return at.depth >= FULL_DEPTH || at.refs.length !== new Set(at.refs).size;
  }

  private object(schema: Schema, at: Position): Written {
    const out: Record<string, unknown> = {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const properties = isObject(schema.properties) ? schema.properties : {};
    const minimal = this.minimal(at);
    for (const [name, sub] of Object.entries(properties)) {
      if (name === '__proto__' || (minimal && !required.has(name))) continue;
      const written = this.write(sub, member(at, name, at.seed.derive(name)));
      if (written) out[name] = written.value;
      else if (required.has(name)) return undefined;
    }
    const least = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
    const values = isObject(schema.additionalProperties) ? schema.additionalProperties : patterns[0]?.[1];
    const keyPattern = isObject(schema.additionalProperties) ? undefined : patterns[0]?.[0];
    for (let i = 0; Object.keys(out).length < least && i < MAX_ITEMS; i++) {
      const key =
        keyPattern === undefined
          ? `key${i + 1}`
          : stringMatching({
              pattern: keyPattern,
              minLength: 1,
              maxLength: 64,
              seed: at.seed.derive(`key ${i}`),
            });
      if (key === undefined || key === '__proto__') return undefined;
      const written = this.write(values ?? {}, member(at, key, at.seed.derive(key)));
      if (!written) return undefined;
      out[key] = written.value;
    }
    if (Object.keys(out).length < least) return undefined;
    const most = typeof schema.maxProperties === 'number' ? schema.maxProperties : Infinity;
    for (const name of Object.keys(out).reverse())
      if (Object.keys(out).length > most && !required.has(name)) delete out[name];
    return Object.keys(out).length <= most ? { value: out } : undefined;
  }

  private array(schema: Schema, at: Position): Written {
    const least = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const most = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
    // Three items where any number may be: templates read a list with `!Select [i, !GetAtt …]`, a
    // network interface's secondary addresses or a directory's DNS servers at 0 and 1.
    const count = least > 0 || this.minimal(at) ? least : Math.min(3, most);
    if (count > MAX_ITEMS || count > most) return undefined;
    const items: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const node = Array.isArray(schema.items) ? (schema.items[i] ?? schema.additionalItems) : schema.items;
      let written: Written = undefined;
      for (let attempt = 0; attempt < 3; attempt++) {
        written = this.write(node, member(at, i, at.seed.derive(`${i}/${attempt}`)));
        if (!written || schema.uniqueItems !== true || !seen.has(JSON.stringify(written.value))) break;
        written = undefined;
      }
      if (!written) return least === 0 ? { value: [] } : undefined;
      seen.add(JSON.stringify(written.value));
      items.push(written.value);
    }
    return { value: items };
  }
}

/** States a resource is in once made, preferred among an enum's members. */
const PREFERRED_STATE =
  /^(active|available|ready|enabled|running|in[-_ ]?service|succeeded|success|completed?|create_complete|healthy|ok|deployed|issued|associated|attached)$/i;

/** The types a schema's values may have (from `type`, else guessed from its keywords). */
function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type))
    return schema.type.filter((t): t is string => typeof t === 'string' && t !== 'null');
  if ('properties' in schema || 'patternProperties' in schema || 'additionalProperties' in schema)
    return ['object'];
  if ('items' in schema) return ['array'];
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return ['number'];
  return ['string'];
}

/** The subschema a local `$ref` (`#/definitions/A`) names in `root`. */
function localRef(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.hasOwn(node, token)) return undefined;
    node = node[token];
  }
  return node;
}

/** Two schemas that must both hold, as one: members and requirements united, the rest the first's. */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...b, ...a };
  if (isObject(a.properties) && isObject(b.properties)) out.properties = { ...b.properties, ...a.properties };
  if (Array.isArray(a.required) && Array.isArray(b.required))
    out.required = [...new Set([...a.required, ...b.required])];
  return out;
}

/** Values of a format, for a resource (its time, its host name). */
function formatted(format: unknown, subject: Subject, seed: Seed): string[] {
  const at = subject.created().toISOString();
  switch (format) {
    case 'date-time':
      return [at.replace(/\.\d{3}Z$/, 'Z')];
    case 'date':
      return [at.slice(0, 10)];
    case 'time':
      return [`${at.slice(11, 19)}Z`];
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return [
        `https://${subject.label()}.${subject.service}.${subject.emulated.region}.${subject.emulated.urlSuffix}/`,
      ];
    case 'email':
    case 'idn-email':
      return [`${subject.label()}@example.com`];
    case 'hostname':
    case 'idn-hostname':
      return [
        `${subject.label()}.${subject.service}.${subject.emulated.region}.${subject.emulated.urlSuffix}`,
      ];
    case 'ipv4':
      return [`10.0.${seed.below(256)}.${1 + seed.below(254)}`];
    case 'ipv6':
      return [`2001:db8::${seed.hex(4).replace(/^0+/, '') || '1'}`];
    case 'uuid':
      return [seed.uuid()];
    case 'byte':
      return [Buffer.from(seed.hex(12)).toString('base64')];
    default:
      return [];
  }
}

/** Formats ajv-formats checks, as far as the values written here need checking. */
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  time: /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/,
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  hostname: /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i,
  ipv4: /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/,
  ipv6: /^[0-9a-f:]+$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

/** Whether the schema accepts the string (type, enum, lengths, pattern with RE2, format). */
export function conformsString(value: string, schema: Schema): boolean {
  if (schema.type !== undefined && !typeList(schema).includes('string')) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if ('const' in schema && schema.const !== value) return false;
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return false;
  if (typeof schema.pattern === 'string' && !(patternMatcher(schema.pattern)?.(value) ?? false)) return false;
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  return format === undefined || format.test(value);
}

function conformsNumber(value: number, schema: Schema, integer: boolean): boolean {
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (typeof schema.minimum === 'number' && value < schema.minimum) return false;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return false;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return false;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return false;
  if (schema.exclusiveMinimum === true && value === schema.minimum) return false;
  if (schema.exclusiveMaximum === true && value === schema.maximum) return false;
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    const q = value / schema.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) return false;
  }
  return true;
}

function typeList(schema: Schema): string[] {
  return typeof schema.type === 'string'
    ? [schema.type]
    : Array.isArray(schema.type)
      ? (schema.type as string[])
      : [];
}
