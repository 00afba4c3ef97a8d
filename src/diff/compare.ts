/**
 * @module Two versions of one type, compared in the model both dialects become: the schemas walked
 * side by side (through local `$ref`s), then the type-level lists (identifiers, create-only,
 * read-only, write-only). Pure: models in, changes out; placing them in a document is `documents.ts`.
 */
import { jsonEqual } from '../model/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import type { HandlerAction, Reference, ResourceType } from '../schema/index.js';
import { originOf, PointerResolver } from '../schema/resource-schema/index.js';
import { VALIDATION_KEYWORDS } from '../schema/validations.js';
import type { ChangeRuleId } from './rules.js';

type Schema = Record<string, unknown>;

/** Where a change is, before it is placed in a document. */
export type Place =
  /** A node of the newer model schema (`/properties/Size/enum`). */
  | { schema: string }
  /** An entry of a type-level pointer list of the newer type (`createOnlyProperties`, index 2). */
  | { list: ListName; index: number }
  /** A node of the newer type's configuration schema (`/properties/ApiKey`). */
  | { configuration: string }
  /** A handler of the newer type (its permissions or timeout), or, without `action`, where its handlers are. */
  | { handler?: HandlerAction; permissions?: true; timeout?: true }
  /** A pointer in the newer document itself (where a reference is written). */
  | { document: string }
  /** The type as a whole. */
  | { type: true };

export type ListName =
  | 'primaryIdentifier'
  | 'createOnlyProperties'
  | 'conditionalCreateOnlyProperties'
  | 'readOnlyProperties'
  | 'writeOnlyProperties'
  | 'deprecatedProperties';

export interface RawChange {
  rule: ChangeRuleId;
  message: string;
  property?: string;
  place: Place;
}

const LOWER_BOUNDS = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum'] as const;
const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum'] as const;
/** Most `$ref` hops followed from one node (cycles are cut by `seen` well before). */
const MAX_REF_HOPS = 64;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v);

/** Every difference between `before` and `after`, two versions of the same type. */
export function compareTypes(before: ResourceType, after: ResourceType): RawChange[] {
  const walker = new SchemaWalker(before.schema, after.schema);
  walker.node(before.schema, after.schema, '', '');
  return [
    ...walker.changes,
    ...compareLists(before, after),
    ...compareMarks(before, after),
    ...compareHandlers(before, after),
    ...compareReferences(before, after),
    ...compareConfigurations(before, after),
  ];
}

/**
 * The settings an operator gives the type (`typeConfiguration`): the same rules, read for the
 * configuration rather than for resources (a new required setting means no operation works until
 * an operator sets it).
 */
function compareConfigurations(before: ResourceType, after: ResourceType): RawChange[] {
  if (!before.typeConfiguration && !after.typeConfiguration) return [];
  const none: Schema = { type: 'object', properties: {}, additionalProperties: false };
  const old = before.typeConfiguration ?? none;
  const now = after.typeConfiguration ?? none;
  const walker = new SchemaWalker(old, now);
  walker.node(old, now, '', '');
  return walker.changes.map((c) => ({
    ...c,
    message: `typeConfiguration ${c.message}`,
    ...(c.property !== undefined ? { property: `typeConfiguration${c.property}` } : {}),
    place: 'schema' in c.place ? { configuration: c.place.schema } : c.place,
  }));
}

class SchemaWalker {
  readonly changes: RawChange[] = [];
  /** Pairs of `$ref` targets already compared: recursive definitions are walked once. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly oldRoot: Schema,
    private readonly newRoot: Schema,
  ) {}

  /**
   * Validation rules (CEL): one added or changed may refuse what was accepted (a rule's meaning is
   * not compared: a changed text counts as tightened); one removed refuses nothing more.
   */
  private validationRules(o: Schema, n: Schema, property: string, at: string): void {
    for (const keyword of VALIDATION_KEYWORDS) {
      const before = Array.isArray(o[keyword]) ? (o[keyword] as unknown[]) : [];
      const after = Array.isArray(n[keyword]) ? (n[keyword] as unknown[]) : [];
      const ruleOf = (entry: unknown) =>
        typeof entry === 'object' && entry !== null ? (entry as Schema).rule : undefined;
      const oldRules = before.map(ruleOf);
      after.forEach((entry, i) => {
        const rule = ruleOf(entry);
        if (!oldRules.includes(rule))
          this.add(
            'TP6014',
            property,
            `${at}/${keyword}/${i}`,
            `validation rule ${show(rule)} added or changed: values that were accepted may now be refused`,
          );
      });
      const newRules = after.map(ruleOf);
      for (const rule of oldRules) {
        if (!newRules.includes(rule))
          this.add(
            'TP6112',
            property,
            after.length > 0 ? `${at}/${keyword}` : at,
            `validation rule ${show(rule)} removed`,
          );
      }
    }
  }

  private add(rule: ChangeRuleId, property: string, at: string, message: string): void {
    const change: RawChange = { rule, message: `${label(property)}: ${message}`, place: { schema: at } };
    if (property !== '') change.property = property;
    this.changes.push(change);
  }

  /**
   * Compare two schema nodes. `property` is the property pointer (`/properties/A/B`, `*` for items),
   * `at` the newer node's pointer in its model schema.
   */
  node(oldNode: Schema, newNode: Schema, property: string, at: string): void {
    const [o, oldRef] = resolve(this.oldRoot, oldNode);
    const [n, newRef, newAt] = resolve(this.newRoot, newNode, at);
    if (oldRef !== undefined || newRef !== undefined) {
      const key = `${oldRef ?? at}\u0000${newRef ?? at}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    at = newAt;
    if (o.description !== n.description || o.title !== n.title)
      this.add('TP6104', property, at, 'description or title changed');
    this.types(o, n, property, at);
    this.enums(o, n, property, at);
    this.patterns(o, n, property, at);
    this.bounds(o, n, property, at);
    this.validationRules(o, n, property, at);
    if (!jsonEqual(o.default, n.default)) {
      this.add(
        'TP6201',
        property,
        `${at}/default`,
        n.default === undefined
          ? `default ${show(o.default)} removed: requests that omit it no longer get it`
          : o.default === undefined
            ? `default ${show(n.default)} added: requests that omit it now get it`
            : `default changed from ${show(o.default)} to ${show(n.default)}: requests that omit it now get another value`,
      );
    }
    for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
      if (!jsonEqual(o[keyword], n[keyword]))
        this.add(
          'TP6202',
          property,
          `${at}/${keyword}`,
          `${keyword} changed; check by hand what it accepts now`,
        );
    }
    this.objects(o, n, property, at);
    if (isObject(o.items) && isObject(n.items)) this.node(o.items, n.items, `${property}/*`, `${at}/items`);
  }

  private types(o: Schema, n: Schema, property: string, at: string): void {
    const before = typesOf(o.type);
    const after = typesOf(n.type);
    if (before === undefined && after === undefined) return;
    if (after === undefined)
      return this.add('TP6103', property, at, `no longer limited to type ${show(o.type)}`);
    if (before === undefined)
      return this.add('TP6002', property, `${at}/type`, `now must be ${show(n.type)}`);
    // An integer is a number: number → integer narrows, integer → number widens.
    const accepts = (types: Set<string>, t: string) =>
      types.has(t) || (t === 'integer' && types.has('number'));
    const lost = [...before].filter((t) => !accepts(after, t));
    const gained = [...after].filter((t) => !accepts(before, t));
    if (lost.length > 0)
      this.add('TP6002', property, `${at}/type`, `type changed from ${show(o.type)} to ${show(n.type)}`);
    else if (gained.length > 0)
      this.add('TP6103', property, `${at}/type`, `type widened from ${show(o.type)} to ${show(n.type)}`);
  }

  private enums(o: Schema, n: Schema, property: string, at: string): void {
    const before = allowedValues(o);
    const after = allowedValues(n);
    if (before === undefined && after === undefined) return;
    const where = `${at}/${n.enum !== undefined ? 'enum' : 'const'}`;
    if (after === undefined) return this.add('TP6102', property, at, `no longer limited to ${show(before)}`);
    if (before === undefined) return this.add('TP6003', property, where, `now limited to ${show(after)}`);
    const removed = missingFrom(before, after);
    const added = missingFrom(after, before);
    if (removed.length > 0)
      this.add(
        'TP6003',
        property,
        where,
        `value${removed.length === 1 ? '' : 's'} ${removed.map(show).join(', ')} no longer allowed`,
      );
    if (added.length > 0)
      this.add(
        'TP6102',
        property,
        where,
        `value${added.length === 1 ? '' : 's'} ${added.map(show).join(', ')} now allowed`,
      );
  }

  private patterns(o: Schema, n: Schema, property: string, at: string): void {
    for (const keyword of ['pattern', 'format'] as const) {
      if (o[keyword] === n[keyword]) continue;
      if (n[keyword] === undefined)
        this.add('TP6103', property, at, `${keyword} ${show(o[keyword])} removed`);
      // Whether one regular expression accepts all another does is not decided here: any change may refuse values.
      else
        this.add(
          'TP6004',
          property,
          `${at}/${keyword}`,
          o[keyword] === undefined
            ? `${keyword} ${show(n[keyword])} added`
            : `${keyword} changed from ${show(o[keyword])} to ${show(n[keyword])}; values the old one accepted may be refused`,
        );
    }
  }

  private bounds(o: Schema, n: Schema, property: string, at: string): void {
    const limit = (keyword: string, tighter: (a: number, b: number) => boolean) => {
      const a = o[keyword];
      const b = n[keyword];
      if (a === b) return;
      if (typeof b !== 'number') return this.add('TP6103', property, at, `${keyword} ${show(a)} removed`);
      if (typeof a !== 'number' || tighter(a, b))
        return this.add(
          'TP6005',
          property,
          `${at}/${keyword}`,
          `${keyword} ${a === undefined ? 'added' : `tightened from ${a}`} ${a === undefined ? `(${b})` : `to ${b}`}`,
        );
      this.add('TP6103', property, `${at}/${keyword}`, `${keyword} relaxed from ${a} to ${b}`);
    };
    for (const keyword of LOWER_BOUNDS) limit(keyword, (a, b) => b > a);
    for (const keyword of UPPER_BOUNDS) limit(keyword, (a, b) => b < a);
    // A multiple of the new divisor whenever of the old: the new one divides the old one.
    limit('multipleOf', (a, b) => !Number.isInteger(a / b));
    if (o.uniqueItems !== true && n.uniqueItems === true)
      this.add('TP6005', property, `${at}/uniqueItems`, 'items must now be unique');
    else if (o.uniqueItems === true && n.uniqueItems !== true)
      this.add('TP6103', property, at, 'items need no longer be unique');
  }

  private objects(o: Schema, n: Schema, property: string, at: string): void {
    const before = isObject(o.properties) ? o.properties : {};
    const after = isObject(n.properties) ? n.properties : {};
    const requiredBefore = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    const requiredAfter = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    const child = (name: string) =>
      property === '' ? `/properties/${escapePointerToken(name)}` : `${property}/${escapePointerToken(name)}`;
    const childAt = (name: string) => `${at}/properties/${escapePointerToken(name)}`;
    const added = Object.keys(after).filter((name) => !Object.hasOwn(before, name));
    const renamedTo = new Set<string>();
    for (const name of Object.keys(before)) {
      if (Object.hasOwn(after, name)) {
        if (isObject(before[name]) && isObject(after[name]))
          this.node(before[name], after[name], child(name), childAt(name));
        continue;
      }
      const renamed = added.find((a) => !renamedTo.has(a) && jsonEqual(after[a], before[name]));
      if (renamed !== undefined) renamedTo.add(renamed);
      this.add(
        'TP6001',
        child(name),
        `${at}/properties`,
        renamed !== undefined
          ? `renamed to ${renamed}: requests and stored resources using ${name} are refused`
          : 'removed: requests and stored resources using it are refused',
      );
    }
    for (const name of added) {
      if (!requiredAfter.has(name) && !renamedTo.has(name))
        this.add('TP6101', child(name), childAt(name), 'optional property added');
    }
    for (const name of requiredAfter) {
      if (requiredBefore.has(name)) continue;
      const schema = after[name];
      const withDefault = isObject(schema) && resolve(this.newRoot, schema)[0].default !== undefined;
      if (withDefault) this.add('TP6103', child(name), childAt(name), 'now required, with a default');
      else
        this.add(
          'TP6006',
          child(name),
          `${at}/required`,
          `${Object.hasOwn(before, name) ? 'now required' : 'added as required'} without a default: requests and stored resources without it are refused`,
        );
    }
    for (const name of requiredBefore) {
      if (!requiredAfter.has(name) && Object.hasOwn(after, name))
        this.add('TP6103', child(name), childAt(name), 'no longer required');
    }
    this.additional(o, n, property, at);
  }

  private additional(o: Schema, n: Schema, property: string, at: string): void {
    const closed = (s: Schema) => s.additionalProperties === false;
    if (closed(n) && !closed(o))
      this.add(
        'TP6011',
        property,
        `${at}/additionalProperties`,
        'additionalProperties closed: undeclared members are refused now',
      );
    else if (closed(o) && !closed(n)) this.add('TP6103', property, at, 'additionalProperties opened');
    else if (isObject(o.additionalProperties) && isObject(n.additionalProperties))
      this.node(
        o.additionalProperties,
        n.additionalProperties,
        `${property}/*`,
        `${at}/additionalProperties`,
      );
    const before = isObject(o.patternProperties) ? o.patternProperties : {};
    const after = isObject(n.patternProperties) ? n.patternProperties : {};
    for (const [pattern, schema] of Object.entries(before)) {
      const next = after[pattern];
      if (isObject(next) && isObject(schema))
        this.node(schema, next, `${property}/*`, `${at}/patternProperties/${escapePointerToken(pattern)}`);
      else if (next === undefined)
        this.add(
          'TP6001',
          property,
          `${at}/patternProperties`,
          `patternProperties ${show(pattern)} removed: members it matched are refused`,
        );
    }
  }
}

/** Follow local `$ref`s; also says which definition it ended on and where that is in the schema. */
function resolve(root: Schema, node: Schema, at = ''): [Schema, string | undefined, string] {
  let ref: string | undefined;
  for (let hops = 0; typeof node.$ref === 'string' && hops < MAX_REF_HOPS; hops++) {
    const match = /^#\/definitions\/([^/]+)$/.exec(node.$ref);
    const definitions = isObject(root.definitions) ? root.definitions : {};
    const name = match?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
    const target = name !== undefined && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
    if (!isObject(target)) break;
    ref = node.$ref;
    at = `/definitions/${escapePointerToken(name!)}`;
    node = target;
  }
  return [node, ref, at];
}

function typesOf(type: unknown): Set<string> | undefined {
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.map(String));
  return undefined;
}

function allowedValues(s: Schema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum;
  if (s.const !== undefined) return [s.const];
  return undefined;
}

/** The values of `values` not in `others` (scalars by a set; objects compared deeply). */
function missingFrom(values: unknown[], others: unknown[]): unknown[] {
  const scalars = new Set(
    others.filter((v) => typeof v !== 'object' || v === null).map((v) => JSON.stringify(v)),
  );
  const objects = others.filter((v) => typeof v === 'object' && v !== null);
  return values.filter((v) =>
    typeof v !== 'object' || v === null
      ? !scalars.has(JSON.stringify(v))
      : !objects.some((o) => jsonEqual(o, v)),
  );
}

function label(property: string): string {
  return property === '' ? 'the type' : property;
}

const WHAT_IT_MEANS = {
  'create-only': ': updates that change it are refused',
  'read-only': ': requests that set it are refused',
  'write-only': ': reads no longer return it',
} as const;

const LIST_RULES = {
  createOnlyProperties: { made: 'TP6007', lifted: 'TP6105', word: 'create-only' },
  readOnlyProperties: { made: 'TP6008', lifted: 'TP6105', word: 'read-only' },
  writeOnlyProperties: { made: 'TP6009', lifted: 'TP6203', word: 'write-only' },
} as const;

/** The type-level pointer lists. A property new in this version may be anything: only existing ones count. */
function compareLists(before: ResourceType, after: ResourceType): RawChange[] {
  const changes: RawChange[] = [];
  if (!jsonEqual(before.primaryIdentifier, after.primaryIdentifier)) {
    changes.push({
      rule: 'TP6010',
      message: `primary identifier changed from ${before.primaryIdentifier.join(', ')} to ${after.primaryIdentifier.join(', ')}: existing resources are known by the old one`,
      place: { list: 'primaryIdentifier', index: 0 },
    });
  }
  const existedBefore = new PointerResolver(before.schema);
  const existsAfter = new PointerResolver(after.schema);
  for (const [list, rules] of Object.entries(LIST_RULES) as [
    keyof typeof LIST_RULES,
    (typeof LIST_RULES)[keyof typeof LIST_RULES],
  ][]) {
    const old = new Set(before[list]);
    const now = new Set(after[list]);
    after[list].forEach((pointer, index) => {
      if (old.has(pointer) || !existedBefore.resolves(pointer)) return;
      // A read-only property could not be set or changed by anyone: create-only takes nothing away.
      if (list === 'createOnlyProperties' && before.readOnlyProperties.includes(pointer)) return;
      const wasConditional =
        list === 'createOnlyProperties' && before.conditionalCreateOnlyProperties.includes(pointer);
      changes.push({
        rule: rules.made,
        property: pointer,
        message: `${pointer}: made ${rules.word}${wasConditional ? ' (it was conditionally create-only)' : ''}${WHAT_IT_MEANS[rules.word]}`,
        place: { list, index },
      });
    });
    for (const pointer of before[list]) {
      if (now.has(pointer) || !existsAfter.resolves(pointer)) continue;
      const conditional =
        list === 'createOnlyProperties' && after.conditionalCreateOnlyProperties.includes(pointer);
      changes.push({
        rule: rules.lifted,
        property: pointer,
        message: `${pointer}: no longer ${rules.word}${rules.word === 'write-only' ? ': reads will return its values' : conditional ? ', only conditionally: updates may change it (the provider may replace the resource)' : ''}`,
        place: { schema: schemaPathOf(pointer) },
      });
    }
  }
  return changes;
}

/**
 * The softer marks: conditionally create-only (an update changing it may replace the resource) and
 * deprecated (still accepted, announced to go). A move between create-only and conditionally
 * create-only is told once, by the create-only list (`compareLists`).
 */
function compareMarks(before: ResourceType, after: ResourceType): RawChange[] {
  const changes: RawChange[] = [];
  const existedBefore = new PointerResolver(before.schema);
  const existsAfter = new PointerResolver(after.schema);
  const marked = (list: 'conditionalCreateOnlyProperties' | 'deprecatedProperties', how: MarkRules) => {
    const old = new Set(before[list]);
    const now = new Set(after[list]);
    after[list].forEach((pointer, index) => {
      if (old.has(pointer) || !existedBefore.resolves(pointer) || how.skipMade(pointer)) return;
      changes.push({
        rule: how.made,
        property: pointer,
        message: `${pointer}: ${how.madeMessage}`,
        place: { list, index },
      });
    });
    for (const pointer of before[list]) {
      if (now.has(pointer) || !existsAfter.resolves(pointer) || how.skipLifted(pointer)) continue;
      changes.push({
        rule: how.lifted,
        property: pointer,
        message: `${pointer}: ${how.liftedMessage}`,
        place: { schema: schemaPathOf(pointer) },
      });
    }
  };
  marked('conditionalCreateOnlyProperties', {
    made: 'TP6206',
    madeMessage:
      'made conditionally create-only: an update that changes it may replace the resource (a new one, with new read-only values)',
    // From create-only (TP6105) or read-only (it could not be set before) nothing is taken away here.
    skipMade: (p) => before.createOnlyProperties.includes(p) || before.readOnlyProperties.includes(p),
    lifted: 'TP6105',
    liftedMessage: 'no longer conditionally create-only: updates change it in place',
    // Made create-only: TP6007 says so.
    skipLifted: (p) => after.createOnlyProperties.includes(p),
  });
  marked('deprecatedProperties', {
    made: 'TP6205',
    madeMessage:
      'deprecated: still accepted, but clients should stop using it (a later version may remove it)',
    skipMade: () => false,
    lifted: 'TP6109',
    liftedMessage: 'no longer deprecated',
    skipLifted: () => false,
  });
  return changes;
}

interface MarkRules {
  made: ChangeRuleId;
  madeMessage: string;
  skipMade: (pointer: string) => boolean;
  lifted: ChangeRuleId;
  liftedMessage: string;
  skipLifted: (pointer: string) => boolean;
}

/**
 * The handlers a type declares: one removed means that operation no longer works; permissions added
 * mean an operator must grant them before the new version's handlers can do their work (dangerous:
 * requests stay valid, but may fail until then); permissions only removed take nothing away.
 */
function compareHandlers(before: ResourceType, after: ResourceType): RawChange[] {
  const changes: RawChange[] = [];
  const actions = (t: ResourceType) => Object.keys(t.handlers) as HandlerAction[];
  for (const action of actions(before)) {
    const old = before.handlers[action]!;
    const now = after.handlers[action];
    if (!now) {
      changes.push({
        rule: 'TP6013',
        message: `${action} handler removed: ${action} requests no longer work for this type`,
        place: {},
      });
      continue;
    }
    const added = now.permissions.filter((p) => !old.permissions.includes(p));
    const removed = old.permissions.filter((p) => !now.permissions.includes(p));
    if (added.length > 0)
      changes.push({
        rule: 'TP6204',
        message: `${action} handler needs more permissions (${added.join(', ')}): grant them to the provider before this version serves ${action} requests`,
        place: { handler: action, permissions: true },
      });
    else if (removed.length > 0)
      changes.push({
        rule: 'TP6108',
        message: `${action} handler needs fewer permissions (no longer ${removed.join(', ')})`,
        place: { handler: action, permissions: true },
      });
    if (now.timeoutInMinutes < old.timeoutInMinutes)
      changes.push({
        rule: 'TP6209',
        message: `${action} handler timeout shortened from ${old.timeoutInMinutes} to ${now.timeoutInMinutes} minutes: ${action} operations that run longer now fail with NotStabilized`,
        place: { handler: action, timeout: true },
      });
    else if (now.timeoutInMinutes > old.timeoutInMinutes)
      changes.push({
        rule: 'TP6111',
        message: `${action} handler timeout lengthened from ${old.timeoutInMinutes} to ${now.timeoutInMinutes} minutes`,
        place: { handler: action, timeout: true },
      });
  }
  for (const action of actions(after)) {
    if (!before.handlers[action])
      changes.push({
        rule: 'TP6107',
        message: `${action} handler added`,
        place: { handler: action },
      });
  }
  return changes;
}

/** A reference as it reads: the type, and which member gives which of its properties. */
function describeReference(ref: Reference): string {
  const ids = ref.ids.map((id) => `${id.member} → ${id.target === '' ? 'its identifier' : id.target}`);
  return `${ref.typeName}${ids.length > 0 ? ` (${ids.join(', ')})` : ''}`;
}

/** The members a reference reads its values from ('' for an implicit mapping: the same names). */
const membersOf = (ref: Reference) =>
  ref.ids
    .map((id) => id.member)
    .sort()
    .join('\u0000');

const sameReference = (a: Reference, b: Reference) =>
  a.typeName === b.typeName && a.rel === b.rel && jsonEqual(a.ids, b.ids);

/**
 * References to other types (`relationshipRef`, `traits.references`, `x-typeplane-references`). One
 * added or retargeted is dangerous rather than breaking: whether it is enforced (values must name an
 * existing resource) depends on the referenced type's identifier, which another document declares.
 * One removed takes a check away. A reference is matched to the earlier one that reads the same
 * members, or, without `ids`, to the one earlier reference without them that is gone; otherwise
 * it is new.
 */
function compareReferences(before: ResourceType, after: ResourceType): RawChange[] {
  const changes: RawChange[] = [];
  const old = before.traits.references.filter(
    (r) => !after.traits.references.some((n) => sameReference(r, n)),
  );
  const located = (ref: Reference): Place => {
    const origin = originOf(ref);
    return origin !== undefined ? { document: origin } : { type: true };
  };
  const property = (ref: Reference) => (ref.ids.length === 1 ? { property: ref.ids[0]!.member } : {});
  const retargeted = (was: Reference, ref: Reference): RawChange => ({
    rule: 'TP6208',
    message: `reference retargeted from ${describeReference(was)} to ${describeReference(ref)}: stored values may name resources that are not of the new target, and requests may be refused or no longer checked`,
    ...property(ref),
    place: located(ref),
  });
  const added = (ref: Reference): RawChange => ({
    rule: 'TP6207',
    message: `reference to ${describeReference(ref)} added: where it covers ${ref.typeName}'s identifier, requests naming a resource that does not exist are refused (stored resources keep their values)`,
    ...property(ref),
    place: located(ref),
  });
  /** New references without `ids`: their members are the target's identifier, which this document does not say. */
  const implicit: Reference[] = [];
  for (const ref of after.traits.references) {
    if (before.traits.references.some((o) => sameReference(o, ref))) continue;
    const members = membersOf(ref);
    if (members === '') {
      implicit.push(ref);
      continue;
    }
    const at = old.findIndex((o) => membersOf(o) === members);
    if (at >= 0) changes.push(retargeted(old.splice(at, 1)[0]!, ref));
    else changes.push(added(ref));
  }
  // One reference without ids gone and one come (of the same relationship) is the type's one such
  // reference pointed elsewhere; more of either cannot be paired by anything the documents say.
  const implicitOld = old.filter((o) => membersOf(o) === '');
  if (implicit.length === 1 && implicitOld.length === 1 && implicit[0]!.rel === implicitOld[0]!.rel) {
    old.splice(old.indexOf(implicitOld[0]!), 1);
    changes.push(retargeted(implicitOld[0]!, implicit[0]!));
  } else changes.push(...implicit.map(added));
  const existsAfter = new PointerResolver(after.schema);
  for (const ref of old) {
    const member = ref.ids[0]?.member;
    changes.push({
      rule: 'TP6110',
      message: `reference to ${describeReference(ref)} removed: values are no longer checked against ${ref.typeName}`,
      ...property(ref),
      place:
        member !== undefined && existsAfter.resolves(member)
          ? { schema: schemaPathOf(member) }
          : { type: true },
    });
  }
  return changes;
}

/** `/properties/A/B/*\/C` → `/properties/A/properties/B/items/properties/C` (inline schemas; `$ref`s are not followed). */
export function schemaPathOf(property: string): string {
  const tokens = property.split('/').slice(2);
  return `/properties/${tokens.map((t, i) => (i === 0 ? t : t === '*' ? 'items' : `properties/${t}`)).join('/')}`;
}
