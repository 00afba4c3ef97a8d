/**
 * @module TypeScript interfaces for resource models, so provider handlers are typed.
 *
 * Per type: one interface for the model (named from the type name), a `…Identifier` alias for its
 * primary identifier, and one interface (or alias) per definition the model uses, prefixed with the
 * type's name so definitions of different types never clash. TSDoc says what the schema says:
 * description, read-only / write-only / create-only (from the type's pointer lists, nested ones too),
 * deprecation, default.
 *
 * Schema → TypeScript:
 * - `enum` → union of literals, `const` → literal, `type: [a, b]` → `A | B`;
 * - `integer` / `number` → `number`, arrays → `T[]`, maps (`patternProperties` / an
 *   `additionalProperties` schema) → `Record<string, T>`, free-form objects → `Record<string, unknown>`;
 * - `oneOf` / `anyOf` → unions, `allOf` → intersections; branches that only constrain (`required`,
 *   `pattern`, …) add no type and are left out;
 * - `$ref`s to definitions → the definition's name (recursion is fine); other local refs are inlined;
 * - no type at all → `unknown`.
 *
 * The output is deterministic (same types in, same text out) and laid out the way the repository's
 * prettier settings would (2-space indent, single quotes, long unions one member a line).
 */
import type { ResourceType } from '../schema/index.js';
import { pointerTokens } from '../schema/diagnostics.js';
import { secretKeysNote } from './secret-keys.js';
import { rulesNote } from './validation-rules.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const PRINT_WIDTH = 110;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Names the generated code uses or that would shadow globals it relies on. */
const RESERVED = ['Array', 'Record', 'Pick', 'Required', 'NonNullable', 'Partial', 'Object', 'String'];

// ---------------------------------------------------------------------------------------------
// Names

/**
 * The interface name for a type name: its alphanumeric runs, each capitalised.
 *
 * @example
 * interfaceName('Typeplane::PostgreSQL::Database'); // 'TypeplanePostgreSQLDatabase'
 * interfaceName('Typeplane.Data/postgresDatabases'); // 'TypeplaneDataPostgresDatabases'
 */
export function interfaceName(typeName: string): string {
  const name = pascalCase(typeName);
  return name === '' ? 'Resource' : /^[0-9]/.test(name) ? `T${name}` : name;
}

/** Alphanumeric runs, each capitalised: `2025-01-01-preview` → `20250101Preview`. */
function pascalCase(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== '')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

/** `typeplane:Tag` → `Tag`, `network_config` → `NetworkConfig`. */
function definitionSuffix(definition: string): string {
  return pascalCase(definition.replace(/^typeplane:/, '')) || 'Definition';
}

/**
 * The model interface name of each type. Types whose names give the same identifier (two API
 * versions of one manifest type, say) all get their API version appended; any clash left after that
 * is numbered in input order.
 */
function modelNames(types: readonly ResourceType[], taken: Set<string>): string[] {
  const base = types.map((t) => interfaceName(t.typeName));
  const count = new Map<string, number>();
  for (const b of base) count.set(b, (count.get(b) ?? 0) + 1);
  return types.map((type, i) => {
    let name = base[i]!;
    if (count.get(name)! > 1 && type.apiVersion) name += pascalCase(type.apiVersion);
    if (taken.has(name)) {
      let n = 2;
      while (taken.has(`${name}${n}`)) n++;
      name = `${name}${n}`;
    }
    taken.add(name);
    return name;
  });
}

// ---------------------------------------------------------------------------------------------
// TypeScript type trees

type Primitive = 'string' | 'number' | 'boolean' | 'null';

type TsType =
  /** A keyword, a name or a literal; `primitive` says which primitive a keyword or literal is of. */
  | { kind: 'text'; text: string; primitive?: Primitive; literal?: boolean; freeForm?: boolean }
  | { kind: 'array'; of: TsType }
  | { kind: 'union'; of: TsType[] }
  | { kind: 'intersection'; of: TsType[] }
  | { kind: 'object'; members: Member[]; index?: TsType }
  | { kind: 'map'; of: TsType }
  /** `Pick<…>` and the like. */
  | { kind: 'generic'; name: string; args: TsType[] };

interface Member {
  name: string;
  optional: boolean;
  type: TsType;
  doc: string[];
}

const text = (t: string, extra: Partial<Extract<TsType, { kind: 'text' }>> = {}): TsType => ({
  kind: 'text',
  text: t,
  ...extra,
});
const UNKNOWN = text('unknown');
const NEVER = text('never');
const FREE_FORM = text('Record<string, unknown>', { freeForm: true });
const isText = (t: TsType, s: string) => t.kind === 'text' && t.text === s;

function union(types: readonly TsType[]): TsType {
  const flat = types.flatMap((t) => (t.kind === 'union' ? t.of : [t]));
  if (flat.some((t) => isText(t, 'unknown'))) return UNKNOWN;
  const kept = dedupe(flat.filter((t) => !isText(t, 'never')));
  // A literal next to its own primitive adds nothing: `string | 'a'` is `string`.
  const keywords = new Set(
    kept.flatMap((t) => (t.kind === 'text' && !t.literal && t.primitive ? [t.primitive] : [])),
  );
  const simplified = kept.filter((t) => !(t.kind === 'text' && t.literal && keywords.has(t.primitive!)));
  if (simplified.length === 0) return NEVER;
  return simplified.length === 1 ? simplified[0]! : { kind: 'union', of: simplified };
}

function intersection(types: readonly TsType[]): TsType {
  let flat = dedupe(
    types.flatMap((t) => (t.kind === 'intersection' ? t.of : [t])).filter((t) => !isText(t, 'unknown')),
  );
  if (flat.some((t) => isText(t, 'never'))) return NEVER;
  // `string & ('a' | 'b')` is `'a' | 'b'`: drop a primitive keyword another member already narrows.
  flat = flat.filter(
    (t) =>
      !(
        t.kind === 'text' &&
        !t.literal &&
        t.primitive &&
        flat.some((o) => o !== t && leaves(o).every((l) => l.kind === 'text' && l.primitive === t.primitive))
      ),
  );
  if (flat.length === 0) return UNKNOWN;
  return flat.length === 1 ? flat[0]! : { kind: 'intersection', of: flat };
}

const leaves = (t: TsType): TsType[] => (t.kind === 'union' ? t.of : [t]);

function dedupe(types: TsType[]): TsType[] {
  const seen = new Set<string>();
  return types.filter((t) => {
    const key = JSON.stringify(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/*
 * Layout. Types are printed the way prettier (with the repository's settings) lays them out, so the
 * output reads like hand-formatted code and a formatter run leaves it (nearly always) unchanged:
 * object types one member a line, short things on one line, long unions one member a line, long
 * generic arguments one a line.
 */

/** A `Name<args>` view of arrays of compositions, maps and generic references, or `undefined`. */
function generic(t: TsType, eager: boolean): { name: string; args: TsType[] } | undefined {
  if (t.kind === 'generic') return t;
  if (t.kind === 'map' && !eager) return { name: 'Record', args: [text('string'), t.of] };
  if (t.kind === 'array' && (t.of.kind === 'union' || t.of.kind === 'intersection'))
    return { name: 'Array', args: [t.of] };
  return undefined;
}

/** The one-line form of a type, or `undefined` when it holds an object type (always multi-line). */
function flat(t: TsType, eager: boolean): string | undefined {
  const g = generic(t, eager);
  if (g) {
    const args = g.args.map((a) => flat(a, eager));
    return args.every((a) => a !== undefined) ? `${g.name}<${args.join(', ')}>` : undefined;
  }
  switch (t.kind) {
    case 'text':
      return t.text;
    case 'array': {
      const inner = flat(t.of, eager);
      return inner === undefined ? undefined : `${inner}[]`;
    }
    case 'union':
    case 'intersection': {
      const parts = t.of.map((p) => {
        const f = flat(p, eager);
        return f !== undefined && needsParens(t, p) ? `(${f})` : f;
      });
      return parts.every((p) => p !== undefined) ? parts.join(t.kind === 'union' ? ' | ' : ' & ') : undefined;
    }
    case 'map': {
      const inner = flat(t.of, eager);
      return inner === undefined ? undefined : `{ [key: string]: ${inner} }`;
    }
    case 'object':
    case 'generic':
      return undefined;
  }
}

const needsParens = (outer: TsType, inner: TsType) =>
  (outer.kind === 'union' && inner.kind === 'intersection') ||
  (outer.kind === 'intersection' && inner.kind === 'union');

/**
 * A type starting at column `column` (its first line continues the current one), later lines at
 * `indent`. `eager`: the right-hand side of a type alias, where `Record<string, Self>` would be a
 * circular alias, so maps are written as index signatures.
 */
function format(t: TsType, indent: string, column: number, eager: boolean): string {
  const one = flat(t, eager);
  if (one !== undefined && column + one.length + 1 <= PRINT_WIDTH) return one;
  const g = generic(t, eager);
  if (g) {
    const only = g.args.length === 1 ? g.args[0]! : undefined;
    // A single object argument hugs the brackets: `Array<{ … }>`.
    if (only && only.kind === 'object') return `${g.name}<${format(only, indent, column, eager)}>`;
    const inner = indent + '  ';
    const args = g.args.map((a) => inner + formatBroken(a, inner, eager));
    return `${g.name}<\n${args.join(',\n')}\n${indent}>`;
  }
  switch (t.kind) {
    case 'text':
      return t.text;
    case 'array': {
      const inner = format(t.of, indent, column, eager);
      return `${inner}[]`;
    }
    case 'union':
      return t.of.map((p) => wrap(t, p, format(p, indent, column, eager))).join(' | ');
    case 'intersection': {
      let col = column;
      return t.of
        .map((p) => {
          const part =
            p.kind === 'union'
              ? `(\n${unionLines(p, indent + '  ', eager)}\n${indent})`
              : format(p, indent, col, eager);
          col = indent.length + (part.split('\n').pop()?.length ?? 0) + 3;
          return part;
        })
        .join(' & ');
    }
    case 'map':
      return formatObject({ kind: 'object', members: [], index: t.of }, indent);
    case 'object':
      return formatObject(t, indent);
    case 'generic':
      return flat(t, eager) ?? '';
  }
}

/** A type on a line of its own at `indent` (a broken generic argument): unions go one member a line. */
function formatBroken(t: TsType, indent: string, eager: boolean): string {
  const one = flat(t, eager);
  if (one !== undefined && indent.length + one.length + 1 <= PRINT_WIDTH) return one;
  if (t.kind === 'union') return unionLines(t, indent, eager).slice(indent.length);
  return format(t, indent, indent.length, eager);
}

/** `| member` lines at `indent`, objects inside indented past the bar. */
function unionLines(t: Extract<TsType, { kind: 'union' }>, indent: string, eager: boolean): string {
  const inner = indent + '  ';
  return t.of.map((p) => `${indent}| ${wrap(t, p, format(p, inner, inner.length, eager))}`).join('\n');
}

const wrap = (outer: TsType, inner: TsType, s: string) => (needsParens(outer, inner) ? `(${s})` : s);

function formatObject(t: Extract<TsType, { kind: 'object' }>, indent: string): string {
  const inner = indent + '  ';
  const lines: string[] = [];
  for (const m of t.members) {
    lines.push(...docComment(m.doc, inner));
    lines.push(declaration(`${inner}${propertyKey(m.name)}${m.optional ? '?' : ''}:`, m.type, inner, ';'));
  }
  if (t.index) lines.push(declaration(`${inner}[key: string]:`, t.index, inner, ';'));
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`;
}

/**
 * `head type;` (a member, or `export type X =`): on one line when it fits; otherwise a union moves to
 * the next line, one member a line if it still does not fit, and an alias of a name moves to the next
 * line; anything else breaks inside.
 */
function declaration(head: string, type: TsType, indent: string, end: string, eager = false): string {
  const one = flat(type, eager);
  if (one !== undefined && head.length + 1 + one.length + end.length <= PRINT_WIDTH)
    return `${head} ${one}${end}`;
  const inner = indent + '  ';
  if (type.kind === 'union') {
    if (one !== undefined && inner.length + one.length + end.length <= PRINT_WIDTH)
      return `${head}\n${inner}${one}${end}`;
    return `${head}\n${unionLines(type, inner, eager)}${end}`;
  }
  if (head.endsWith('=') && one !== undefined && (type.kind === 'text' || type.kind === 'array'))
    return `${head}\n${inner}${one}${end}`;
  return `${head} ${format(type, indent, head.length + 1, eager)}${end}`;
}

const propertyKey = (name: string) => (IDENTIFIER.test(name) ? name : quote(name));

/** A single-quoted string literal. */
function quote(s: string): string {
  let out = "'";
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === "'" || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x2028 || code === 0x2029 || code === 0x7f)
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + "'";
}

/** The literal type of a JSON value (`const`, `enum` members). */
function literalType(value: unknown): TsType {
  if (typeof value === 'string') return text(quote(value), { primitive: 'string', literal: true });
  if (typeof value === 'number') return text(String(value), { primitive: 'number', literal: true });
  if (typeof value === 'boolean') return text(String(value), { primitive: 'boolean', literal: true });
  if (value === null) return text('null', { primitive: 'null' });
  return text(valueText(value, '; '));
}

/** A JSON value as TypeScript source (for `@defaultValue`, and as a type for object / array constants). */
function valueText(value: unknown, separator = ', '): string {
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) return `[${value.map((v) => valueText(v, separator)).join(', ')}]`;
  if (isObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => `${propertyKey(k)}: ${valueText(v, separator)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(separator)} }`;
  }
  return String(value);
}

/** A TSDoc comment; `*\/` in the text cannot end it early. */
function docComment(parts: readonly string[], indent: string): string[] {
  const lines = parts.flatMap((p) => p.split(/\r\n|\r|\n/)).map((l) => l.replace(/\*\//g, '*\\/').trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  if (lines.length === 0) return [];
  if (lines.length === 1 && indent.length + 7 + lines[0]!.length <= PRINT_WIDTH)
    return [`${indent}/** ${lines[0]} */`];
  return [
    `${indent}/**`,
    ...lines.map((l) => (l === '' ? `${indent} *` : `${indent} * ${l}`)),
    `${indent} */`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Schema → TypeScript, one type at a time

/** Where a schema node sits: in the model (`container` '') or a definition, by CloudFormation-style path. */
interface Location {
  container: string;
  path: readonly string[];
}

const locationKey = (l: Location) => `${l.container}\u0000${l.path.join('/')}`;
const child = (l: Location | null, token: string): Location | null =>
  l && { container: l.container, path: [...l.path, token] };

const NOTES = [
  ['readOnlyProperties', 'Read-only: set by the provider.'],
  ['writeOnlyProperties', 'Write-only: never returned.'],
  ['createOnlyProperties', 'Create-only: cannot change after creation.'],
  ['conditionalCreateOnlyProperties', 'Conditionally create-only: some changes replace the resource.'],
  ['deprecatedProperties', '@deprecated'],
] as const;

/** The keywords under which a schema holds subschemas, for walking a schema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', 'dependencies'];
const SCHEMA_VALUES = [
  'items',
  'additionalProperties',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
];
const COMPOSITIONS = ['oneOf', 'anyOf', 'allOf'];

class TypeGenerator {
  private readonly root: Schema;
  private readonly definitions: Schema;
  private readonly definitionNames = new Map<string, string>();
  private readonly queue: string[] = [];
  /** Notes by location: the note and the pointers that put it there. */
  private readonly notes = new Map<string, Map<string, string[]>>();
  /** Definitions reached from more than one place in the model (a note inside says where it applies). */
  private readonly shared = new Set<string>();
  /** Non-definition `$ref`s being inlined, so a recursive one stops. */
  private readonly inlining = new Set<string>();

  constructor(
    private readonly type: ResourceType,
    private readonly name: string,
    private readonly taken: Set<string>,
  ) {
    const schema = type.schema as Schema;
    this.root = { ...schema, type: 'object', definitions: undefined };
    this.definitions = isObject(schema.definitions) ? schema.definitions : {};
    this.findShared();
    for (const [list, note] of NOTES) {
      for (const pointer of type[list]) {
        for (const key of this.locate(pointer)) {
          const byNote = this.notes.get(key) ?? new Map<string, string[]>();
          byNote.set(note, [...(byNote.get(note) ?? []), pointer]);
          this.notes.set(key, byNote);
        }
      }
    }
  }

  generate(): string[] {
    const { type, name } = this;
    const out: string[] = [];
    const model = asObject(this.convert(this.root, { container: '', path: [] }));
    const version = type.apiVersion ? ` (API version ${type.apiVersion})` : '';
    const ids = type.primaryIdentifier.map((p) => `\`${p.replace(/^\/properties\//, '')}\``).join(', ');
    out.push(
      ...docComment(
        [
          type.description,
          '',
          `Model of the resource type \`${type.typeName}\`${version}.`,
          ...(ids ? [`Primary identifier: ${ids}.`] : []),
          ...optional(rulesNote(type.schema, () => undefined)),
        ],
        '',
      ),
    );
    out.push(this.named(name, model), '');
    const identifier = this.identifier(model);
    if (identifier) {
      out.push(
        ...docComment(
          [
            `The primary identifier of \`${type.typeName}\` resources: what read, update and delete are given.`,
          ],
          '',
        ),
        declaration(`export type ${name}Identifier =`, identifier, '', ';'),
        '',
      );
    }
    // Definitions in the order they are first used; each may use more.
    for (let def = this.queue.shift(); def !== undefined; def = this.queue.shift()) {
      const node = this.definitions[def];
      const converted = this.convert(node, { container: def, path: [] });
      out.push(
        ...docComment(
          [
            ...(isObject(node) && typeof node.description === 'string' ? [node.description] : []),
            ...optional(rulesNote(node, () => undefined)),
          ],
          '',
        ),
      );
      out.push(this.named(this.definitionNames.get(def)!, converted), '');
    }
    return out;
  }

  /** `export interface Name {…}` for an object or map, `export type Name = …;` otherwise. */
  private named(name: string, type: TsType): string {
    if (type.kind === 'object') return `export interface ${name} ${formatObject(type, '')}`;
    if (type.kind === 'map')
      return `export interface ${name} ${formatObject({ kind: 'object', members: [], index: type.of }, '')}`;
    return declaration(`export type ${name} =`, type, '', ';', true);
  }

  /**
   * `Pick<Model, 'Name'>` (wrapped in `Required<…>` when an identifier property is optional in the
   * model, as provider-set ones are); nested identifier properties are spelled out.
   */
  private identifier(model: TsType): TsType | undefined {
    const top: string[] = [];
    const nested: string[][] = [];
    for (const pointer of this.type.primaryIdentifier) {
      const tokens = pointerTokens(pointer);
      if (tokens[0] !== 'properties' || tokens.length < 2 || tokens.includes('*')) continue;
      if (tokens.length === 2) top.push(tokens[1]!);
      else nested.push(tokens.slice(1));
    }
    if (top.length === 0 && nested.length === 0) return undefined;
    const parts: TsType[] = [];
    // A name the model does not declare as a member (one only a composition branch has) cannot be picked.
    const declared = (n: string) => model.kind !== 'object' || model.members.some((m) => m.name === n);
    const picked = top.filter(declared);
    const undeclared = top.filter((n) => !declared(n));
    if (picked.length > 0) {
      const optional =
        model.kind !== 'object' ||
        picked.some((n) => model.members.find((m) => m.name === n)?.optional !== false);
      const pick: TsType = {
        kind: 'generic',
        name: 'Pick',
        args: [text(this.name), union(picked.map((n) => literalType(n)))],
      };
      parts.push(optional ? { kind: 'generic', name: 'Required', args: [pick] } : pick);
    }
    if (undeclared.length > 0) {
      parts.push({
        kind: 'object',
        members: undeclared.map((n) => ({ name: n, optional: false, type: UNKNOWN, doc: [] })),
      });
    }
    for (const tokens of nested) {
      // { Schedule: { ScheduleId: NonNullable<NonNullable<Model['Schedule']>['ScheduleId']> } }
      let access = this.name;
      for (const token of tokens) access = `NonNullable<${access}[${quote(token)}]>`;
      let leaf: TsType = text(access);
      for (let i = tokens.length - 1; i >= 0; i--)
        leaf = { kind: 'object', members: [{ name: tokens[i]!, optional: false, type: leaf, doc: [] }] };
      parts.push(leaf);
    }
    return intersection(parts);
  }

  /** The TypeScript type of a schema node at `at` (`null`: somewhere notes do not apply). */
  private convert(node: unknown, at: Location | null): TsType {
    if (node === false) return NEVER;
    if (!isObject(node)) return UNKNOWN;
    if (typeof node.$ref === 'string') return this.ref(node.$ref);
    if ('const' in node) return literalType(node.const);
    if (Array.isArray(node.enum)) return union(node.enum.map(literalType));

    const types = Array.isArray(node.type)
      ? node.type.filter((t): t is string => typeof t === 'string')
      : typeof node.type === 'string'
        ? [node.type]
        : inferredTypes(node);
    let base: TsType | undefined =
      types.length === 0 ? undefined : union(types.map((t) => this.ofType(t, node, at)));

    const parts: TsType[] = [];
    // Next to an object base, a branch that is just `type: object` says nothing more either.
    const objectBase =
      base !== undefined && leaves(base).some((t) => t.kind === 'object' || t.kind === 'map');
    const neutral = (t: TsType) => objectBase && t.kind === 'text' && t.freeForm === true;
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = node[keyword];
      if (!Array.isArray(branches)) continue;
      // A branch that only constrains (`required`, `pattern`, …) allows every value of the base type:
      // the union as a whole adds nothing then.
      if (branches.some((b) => !hasTypeInfo(b))) continue;
      const converted = branches.map((b) => this.convert(b, at));
      if (!converted.some(neutral)) parts.push(union(converted));
    }
    if (Array.isArray(node.allOf))
      parts.push(
        ...node.allOf
          .filter(hasTypeInfo)
          .map((b) => this.convert(b, at))
          .filter((t) => !neutral(t)),
      );
    if (parts.length > 0 && base && base.kind === 'text' && base.freeForm) base = undefined;
    return base || parts.length > 0 ? intersection([...(base ? [base] : []), ...parts]) : UNKNOWN;
  }

  private ofType(t: string, node: Schema, at: Location | null): TsType {
    switch (t) {
      case 'string':
      case 'boolean':
      case 'null':
        return text(t, { primitive: t });
      case 'integer':
      case 'number':
        return text('number', { primitive: 'number' });
      case 'array': {
        if (Array.isArray(node.items)) {
          // Tuple form: items beyond those listed are whatever `additionalItems` allows.
          const listed = node.items.map((item) => this.convert(item, child(at, '*')));
          const rest =
            node.additionalItems === false ? [] : [this.convert(node.additionalItems, child(at, '*'))];
          return { kind: 'array', of: union([...listed, ...rest]) };
        }
        return { kind: 'array', of: this.convert(node.items, child(at, '*')) };
      }
      case 'object':
        return this.object(node, at);
      default:
        return UNKNOWN;
    }
  }

  private object(node: Schema, at: Location | null): TsType {
    const properties = isObject(node.properties) ? Object.entries(node.properties) : [];
    const maps = [
      ...(isObject(node.patternProperties) ? Object.values(node.patternProperties) : []),
      ...(isObject(node.additionalProperties) ? [node.additionalProperties] : []),
    ];
    if (properties.length === 0) {
      if (maps.length > 0)
        return { kind: 'map', of: union(maps.map((m) => this.convert(m, child(at, '*')))) };
      if (node.additionalProperties === false && !isObject(node.patternProperties))
        return text('Record<string, never>');
      return FREE_FORM;
    }
    const required = new Set(
      Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : [],
    );
    const members = properties.map(([name, schema]): Member => {
      const where = child(at, name);
      return {
        name,
        optional: !required.has(name),
        type: this.convert(schema, where),
        doc: this.doc(schema, where),
      };
    });
    // Declared properties next to a map, or any others allowed (a manifest's empty schema): the
    // index signature must admit them all.
    return maps.length > 0 || node.additionalProperties === true
      ? { kind: 'object', members, index: UNKNOWN }
      : { kind: 'object', members };
  }

  private ref(ref: string): TsType {
    if (ref === '#') return text(this.name);
    const m = /^#\/definitions\/([^/]+)$/.exec(ref);
    if (m) {
      const def = decodeToken(m[1]!);
      if (Object.hasOwn(this.definitions, def)) return text(this.definitionName(def));
    }
    // Any other local pointer (`#/properties/Arn`, `#/definitions/A/properties/B`): inlined.
    if (!ref.startsWith('#/') || this.inlining.has(ref)) return UNKNOWN;
    let node: unknown = this.type.schema;
    for (const token of pointerTokens(decodeURIComponentSafe(ref.slice(1)))) {
      if (!isObject(node) || !Object.hasOwn(node, token)) return UNKNOWN;
      node = node[token];
    }
    this.inlining.add(ref);
    try {
      return this.convert(node, null);
    } finally {
      this.inlining.delete(ref);
    }
  }

  private definitionName(def: string): string {
    let chosen = this.definitionNames.get(def);
    if (chosen === undefined) {
      chosen = `${this.name}${definitionSuffix(def)}`;
      while (this.taken.has(chosen)) chosen += 'Definition';
      this.taken.add(chosen);
      this.definitionNames.set(def, chosen);
      this.queue.push(def);
    }
    return chosen;
  }

  /** The definition a `#/definitions/…` reference names. */
  private definitionAt(ref: string): unknown {
    const name = /^#\/definitions\/([^/]+)$/.exec(ref)?.[1];
    return name !== undefined && Object.hasOwn(this.definitions, name) ? this.definitions[name] : undefined;
  }

  /** TSDoc for a property: description, notes from the pointer lists, default, validation rules. */
  private doc(node: unknown, at: Location | null): string[] {
    const parts: string[] = [];
    if (isObject(node) && typeof node.description === 'string' && node.description.trim() !== '')
      parts.push(node.description.trim());
    // A string naming a secret (a manifest's `schema` on a string): say which keys the secret holds.
    const secret = secretKeysNote(node);
    if (secret) parts.push(secret);
    // The validation rules (CEL) its value must keep, as Bicep descriptions tell them.
    const rules = rulesNote(node, (ref) => this.definitionAt(ref));
    if (rules) parts.push(rules);
    const notes = at ? this.notes.get(locationKey(at)) : undefined;
    const tags: string[] = [];
    for (const [note, pointers] of notes ?? []) {
      const where =
        at && at.container !== '' && this.shared.has(at.container)
          ? ` Applies at ${pointers.map((p) => `\`${p}\``).join(', ')}.`
          : '';
      if (note.startsWith('@')) tags.push(note + where);
      else parts.push(note + where);
    }
    if (isObject(node) && node.default !== undefined) tags.push(`@defaultValue ${valueText(node.default)}`);
    if (tags.length > 0 && parts.length > 0) parts.push('');
    return [...parts, ...tags];
  }

  /**
   * Where a property pointer (`/properties/Tags/*\/Key`) lands: the locations of the members it
   * names, following `$ref`s into definitions and composition branches.
   */
  private locate(pointer: string): string[] {
    const tokens = pointerTokens(pointer);
    if (tokens[0] !== 'properties' || tokens.length < 2) return [];
    let current: { node: Schema; at: Location }[] = [{ node: this.root, at: { container: '', path: [] } }];
    for (const token of tokens.slice(1)) {
      const next: { node: Schema; at: Location }[] = [];
      for (const { node, at } of this.expand(current)) {
        if (token === '*') {
          if (isObject(node.items)) next.push({ node: node.items, at: child(at, '*')! });
        } else if (isObject(node.properties) && Object.hasOwn(node.properties, token)) {
          const target = node.properties[token];
          if (isObject(target)) next.push({ node: target, at: child(at, token)! });
        }
      }
      current = next;
    }
    return [...new Set(current.map(({ at }) => locationKey(at)))];
  }

  /** Nodes with the definitions they refer to and their composition branches, transitively. */
  private expand(nodes: { node: Schema; at: Location }[]): { node: Schema; at: Location }[] {
    const out: { node: Schema; at: Location }[] = [];
    const seen = new Set<Schema>();
    const stack = [...nodes];
    while (stack.length > 0) {
      const entry = stack.pop()!;
      if (seen.has(entry.node)) continue;
      seen.add(entry.node);
      out.push(entry);
      const { node, at } = entry;
      const m = typeof node.$ref === 'string' ? /^#\/definitions\/([^/]+)$/.exec(node.$ref) : null;
      if (m) {
        const def = decodeToken(m[1]!);
        const target = Object.hasOwn(this.definitions, def) ? this.definitions[def] : undefined;
        if (isObject(target)) stack.push({ node: target, at: { container: def, path: [] } });
      }
      for (const keyword of COMPOSITIONS) {
        const branches = node[keyword];
        if (Array.isArray(branches)) for (const b of branches) if (isObject(b)) stack.push({ node: b, at });
      }
    }
    return out;
  }

  /** Definitions the model reaches by more than one path (or recursively). */
  private findShared(): void {
    const refsFrom = new Map<string, string[]>();
    const collect = (node: unknown, into: string[]): void => {
      if (Array.isArray(node)) {
        for (const n of node) collect(n, into);
        return;
      }
      if (!isObject(node)) return;
      if (typeof node.$ref === 'string') {
        const m = /^#\/definitions\/([^/]+)$/.exec(node.$ref);
        if (m) into.push(decodeToken(m[1]!));
      }
      for (const key of SCHEMA_MAPS)
        if (key !== 'definitions' && isObject(node[key]))
          for (const v of Object.values(node[key])) collect(v, into);
      for (const key of [...SCHEMA_VALUES, ...COMPOSITIONS]) collect(node[key], into);
    };
    const refs = (container: string): string[] => {
      let list = refsFrom.get(container);
      if (!list) {
        list = [];
        collect(container === '' ? this.root : this.definitions[container], list);
        refsFrom.set(container, list);
      }
      return list;
    };
    // How many paths reach each definition, capped at 2 ("more than one"); a cycle counts as many.
    const paths = new Map<string, number>();
    const visiting = new Set<string>();
    const pathsTo = (def: string): number => {
      const known = paths.get(def);
      if (known !== undefined) return known;
      if (visiting.has(def)) return 2;
      visiting.add(def);
      let n = 0;
      for (const container of ['', ...Object.keys(this.definitions)]) {
        if (n >= 2) break;
        const uses = refs(container).filter((r) => r === def).length;
        if (uses === 0) continue;
        n += uses * (container === '' ? 1 : pathsTo(container));
      }
      visiting.delete(def);
      n = Math.min(n, 2);
      paths.set(def, n);
      return n;
    };
    for (const def of Object.keys(this.definitions)) if (pathsTo(def) > 1) this.shared.add(def);
  }
}

/** The model is always an interface: a map or free-form object becomes one with an index signature. */
function asObject(t: TsType): TsType {
  if (t.kind === 'map') return { kind: 'object', members: [], index: t.of };
  if (t.kind === 'text' && t.freeForm) return { kind: 'object', members: [], index: UNKNOWN };
  if (isText(t, 'Record<string, never>')) return { kind: 'object', members: [] };
  return t;
}

/** Whether a schema says anything about the type of a value (not just constraints on it). */
function hasTypeInfo(node: unknown): boolean {
  if (node === false) return true;
  if (!isObject(node)) return false;
  if ('$ref' in node || 'const' in node || 'enum' in node || 'type' in node || 'items' in node) return true;
  if (isObject(node.additionalProperties) || isObject(node.patternProperties)) return true;
  if (isObject(node.properties) && Object.values(node.properties).some(hasTypeInfo)) return true;
  return COMPOSITIONS.some((k) => Array.isArray(node[k]) && (node[k] as unknown[]).some(hasTypeInfo));
}

function inferredTypes(node: Schema): string[] {
  if (isObject(node.properties) || isObject(node.patternProperties) || isObject(node.additionalProperties))
    return ['object'];
  if (node.items !== undefined) return ['array'];
  return [];
}

function decodeToken(token: string): string {
  return pointerTokens('/' + decodeURIComponentSafe(token))[0]!;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// The module

/**
 * One TypeScript module with the interfaces of every type's model, in the order given.
 * `sources` are named in the header comment (the files the types came from).
 *
 * @example
 * const { types } = await loadTypes(['./types']);
 * await writeFile('types.ts', generateTypeScript(types, ['./types']));
 */
export function generateTypeScript(types: readonly ResourceType[], sources: readonly string[]): string {
  const header =
    sources.length === 1
      ? [`Generated by \`typeplane generate\` from ${sources[0]}.`]
      : ['Generated by `typeplane generate` from:', ...sources.map((s) => `  ${s}`)];
  const out: string[] = [
    ...docComment([...header, 'Do not edit: change the schemas and generate again.'], ''),
    '',
  ];
  const taken = new Set(RESERVED);
  const names = modelNames(types, taken);
  // Identifier aliases are claimed before any definition can take the name.
  for (const name of names) taken.add(`${name}Identifier`);
  types.forEach((type, i) => out.push(...new TypeGenerator(type, names[i]!, taken).generate()));
  if (types.length === 0) out.push('export {};', '');
  return out.join('\n');
}

/** A line when there is one. */
function optional(line: string | undefined): string[] {
  return line === undefined ? [] : ['', line];
}
