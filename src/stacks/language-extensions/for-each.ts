/**
 * @module `Fn::ForEach` expanded as CloudFormation's AWS::LanguageExtensions transform expands it:
 * `Fn::ForEach::<Loop>: [Identifier, Collection, {OutputKey: OutputValue}]` in Resources, Conditions,
 * Outputs and any mapping of a resource's Properties, loops nested in loops; `${Identifier}` and
 * `&{Identifier}` (the item without its non-alphanumeric characters) replaced in keys and in `Fn::Sub`
 * strings, `Ref: Identifier` replaced by the item, and names (`Fn::GetAtt`, `DependsOn`, `Condition`)
 * made from them. Intrinsic functions in `DeletionPolicy` and `UpdateReplacePolicy` are resolved.
 *
 * Bounded: loops nest at most {@link EXPANSION_LIMITS}.maxNesting deep, the expanded template holds
 * at most CloudFormation's 500 resources and 200 outputs, and what the loops make is counted (values,
 * characters) as it is made, so a template of loops over loops stops at the bound, never after.
 *
 * @example
 * // Resources: { 'Fn::ForEach::Tables': ['Name', ['Points', 'Score'], { 'Table${Name}': { Type: 'AWS::DynamoDB::Table', Properties: { TableName: { Ref: 'Name' } } } }] }
 * // expands to
 * // Resources: { TablePoints: { …, Properties: { TableName: 'Points' } }, TableScore: { …, Properties: { TableName: 'Score' } } }
 */
import { LIMITS, type Diagnostic } from '../../schema/index.js';
import { escapePointerToken } from '../../schema/diagnostics.js';
import { intrinsicOf } from '../intrinsics.js';
import { DiagnosticList, type StackRuleId } from '../rules.js';
import type { Origins } from './origins.js';
import { LOOP_PREFIX } from './transforms.js';

export const EXPANSION_LIMITS = {
  /** Loops inside loops (the body of a loop inside the body of another …). */
  maxNesting: 5,
  /** CloudFormation's limits, which apply to the expanded template. */
  maxResources: 500,
  maxOutputs: 200,
  /**
   * Values (mappings, lists, scalars) the loops make — as many as a parsed document may hold — and the
   * characters of their keys and strings.
   */
  maxValues: LIMITS.maxValues,
  maxCharacters: 4 * 1024 * 1024,
} as const;

/** What the loops need resolved when they are expanded: a collection, a policy. */
export interface Resolver {
  /**
   * A value decided before any resource exists (parameters, mappings, pseudo parameters, conditions):
   * `{ value }`, `{ unknown: names }` when it needs a parameter with no value yet, or `{ problem }`.
   */
  resolve(
    expression: unknown,
    pointer: string,
  ):
    | { value: unknown }
    | { unknown: readonly string[] }
    | { problem: { rule: StackRuleId; pointer: string; message: string } };
  /** Whether an expression's value comes from a NoEcho parameter. */
  secret(expression: unknown): boolean;
}

/** The expansion's work is over its bound: it stops where it went over. */
class OverBound extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

type Bindings = ReadonlyMap<string, string>;

/** Where a mapping is: what its keys are, and whether loops may make them. */
type Place = 'root' | 'resources' | 'resource' | 'properties' | 'outputs' | 'conditions' | 'plain';

const LOOPS_ALLOWED: ReadonlySet<Place> = new Set(['resources', 'properties', 'outputs', 'conditions']);
/** Places whose keys are logical ids, output names or condition names: alphanumeric. */
const NAMED: ReadonlySet<Place> = new Set(['resources', 'outputs', 'conditions']);
const ALPHANUMERIC = /^[A-Za-z0-9]+$/;

function childPlace(place: Place, key: string): Place {
  switch (place) {
    case 'root':
      return key === 'Resources'
        ? 'resources'
        : key === 'Outputs'
          ? 'outputs'
          : key === 'Conditions'
            ? 'conditions'
            : 'plain';
    case 'resources':
      return 'resource';
    case 'resource':
      return key === 'Properties' ? 'properties' : 'plain';
    case 'properties':
      return 'properties';
    default:
      return 'plain';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Expand the loops of a template's root (a mapping), Conditions first (a policy's `Fn::If` may name
 * a condition a loop makes). Problems are reported with pointers into the template as written.
 */
export class ForEachExpansion {
  /** Each problem once a place (a loop's body is expanded for each item), at most 100 described. */
  private readonly found = new DiagnosticList();
  private values = 0;
  private characters = 0;
  private resources = 0;
  private outputs = 0;
  /** Each loop's name, and where it is written: a name is the template's once. */
  private readonly loops = new Map<string, string>();
  private resolver!: Resolver;
  private readonly alphanumerics = new Map<string, string>();

  constructor(
    private readonly origins: Origins,
    /** The resolver, given the expanded Conditions. */
    private readonly resolverFor: (conditions: Record<string, unknown>) => Resolver,
  ) {}

  expand(root: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    try {
      // A loop of Conditions decides its collection without conditions: they are what it makes.
      this.resolver = this.resolverFor({});
      const conditions = isObject(root.Conditions)
        ? (this.copy(root.Conditions, 'conditions', new Map(), '/Conditions', '/Conditions') as Record<
            string,
            unknown
          >)
        : {};
      this.resolver = this.resolverFor(conditions);
      for (const [key, value] of Object.entries(root)) {
        if (key === 'Transform') continue;
        out[key] =
          key === 'Conditions' && isObject(value)
            ? conditions
            : this.copy(
                value,
                childPlace('root', key),
                new Map(),
                `/${escapePointerToken(key)}`,
                `/${escapePointerToken(key)}`,
              );
      }
      return out;
    } catch (e) {
      if (!(e instanceof OverBound)) throw e;
      this.problem('TP4014', e.pointer, e.message);
      // The template as written, without its loops: the problem above is the one to fix.
      for (const [key, value] of Object.entries(root))
        if (key !== 'Transform')
          out[key] = isObject(value)
            ? Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith(LOOP_PREFIX)))
            : value;
      return out;
    }
  }

  get diagnostics(): Diagnostic[] {
    return this.found.list();
  }

  private problem(rule: StackRuleId, pointer: string, message: string | (() => string)): void {
    this.found.problem(rule, pointer, message);
  }

  /** Count what a loop makes; past a bound, stop. */
  private charge(values: number, characters: number, pointer: string): void {
    this.values += values;
    this.characters += characters;
    if (this.values > EXPANSION_LIMITS.maxValues || this.characters > EXPANSION_LIMITS.maxCharacters)
      throw new OverBound(
        pointer,
        `the loops make over ${EXPANSION_LIMITS.maxValues.toLocaleString('en-US')} values or ${EXPANSION_LIMITS.maxCharacters.toLocaleString('en-US')} characters in all, the most an expanded template holds; here it went over: loop over fewer items, or repeat less in each`,
      );
  }

  /** `text` with each `${Identifier}` and `&{Identifier}` replaced, its size counted before it is made. */
  private substitute(text: string, bindings: Bindings, pointer: string): string {
    if (bindings.size === 0) return text;
    let out = text;
    if (out.includes('{'))
      for (const [identifier, item] of bindings) {
        out = this.replace(out, `\${${identifier}}`, () => item, pointer);
        out = this.replace(out, `&{${identifier}}`, () => this.alphanumeric(item), pointer);
      }
    this.charge(1, out.length, pointer);
    return out;
  }

  /** `text` with `token` replaced by `value()`, asked for (and the result charged) only when it occurs. */
  private replace(text: string, token: string, value: () => string, pointer: string): string {
    const count = occurrences(text, token);
    if (count === 0) return text;
    const replacement = value();
    this.charge(0, count * Math.max(0, replacement.length - token.length), pointer);
    return text.replaceAll(token, replacement);
  }

  /** The item as `&{Identifier}` writes it, its letters and digits only: made once an item. */
  private alphanumeric(item: string): string {
    let made = this.alphanumerics.get(item);
    if (made === undefined) {
      made = item.replace(/[^A-Za-z0-9]/g, '');
      this.alphanumerics.set(item, made);
    }
    return made;
  }

  /**
   * A copy of `value` (at `from` as written, `to` once expanded) with the loops of its mappings
   * expanded and `bindings` (each enclosing loop's identifier and item) substituted.
   */
  private copy(value: unknown, place: Place, bindings: Bindings, from: string, to: string): unknown {
    if (Array.isArray(value)) {
      if (bindings.size === 0 && place === 'plain') return value;
      if (bindings.size > 0) this.charge(1, 0, from);
      const inner = place === 'properties' ? 'properties' : 'plain';
      return value.map((item, i) => this.copy(item, inner, bindings, `${from}/${i}`, `${to}/${i}`));
    }
    if (!isObject(value)) {
      if (bindings.size > 0) this.charge(1, typeof value === 'string' ? value.length : 0, from);
      return value;
    }
    if (bindings.size === 0 && place === 'plain') return value;
    if (bindings.size > 0) {
      const call = intrinsicOf(value);
      // (A mapping of one loop is a loop, not a function.)
      if (call && !call.name.startsWith(LOOP_PREFIX))
        return this.copyCall(call.name, call.argument, place, bindings, from, to);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const at = `${from}/${escapePointerToken(key)}`;
      if (key.startsWith(LOOP_PREFIX)) {
        if (LOOPS_ALLOWED.has(place)) this.loop(key, item, place, bindings, from, to, out);
        else if (place === 'resource')
          this.problem(
            'TP4014',
            at,
            `${key} is expanded in Resources, Conditions, Outputs and a resource's Properties, not among a resource's attributes`,
          );
        else out[key] = this.copy(item, place, bindings, at, `${to}/${escapePointerToken(key)}`);
        continue;
      }
      this.put(out, key, this.named(key, item, bindings, at), place, bindings, at, to, false);
    }
    if (place === 'resource') this.resolvePolicies(out, from);
    return out;
  }

  /** The value of a key that names a condition or a resource, with the names substituted. */
  private named(key: string, item: unknown, bindings: Bindings, at: string): unknown {
    if (bindings.size === 0) return item;
    if ((key === 'Condition' || key === 'DependsOn') && typeof item === 'string')
      return this.substitute(item, bindings, at);
    if (key === 'DependsOn' && Array.isArray(item))
      return item.map((d, i) => (typeof d === 'string' ? this.substitute(d, bindings, `${at}/${i}`) : d));
    return item;
  }

  /**
   * Add `key` (as written at `at`) to `out`, its value copied; a key made twice is a problem. Where it
   * was written is kept for a key a loop's body makes, or one made anew: below them, paths are alike.
   */
  private put(
    out: Record<string, unknown>,
    key: string,
    item: unknown,
    place: Place,
    bindings: Bindings,
    at: string,
    to: string,
    loopBody: boolean,
  ): void {
    const made = this.substitute(key, bindings, at);
    const target = `${to}/${escapePointerToken(made)}`;
    if (Object.hasOwn(out, made)) {
      const uses = [...bindings.keys()].some((id) => key.includes(`\${${id}}`) || key.includes(`&{${id}}`));
      this.problem('TP4014', at, () =>
        uses
          ? `'${shortened(made)}' is made twice (by two items, or by an item and a key written as it); keys are unique: loop over distinct items (&{Identifier} drops all but letters and digits, so items differing only in others make one key)`
          : `'${shortened(made)}' is made twice: a loop's output key holds \${Identifier} or &{Identifier}, so that each item makes a key of its own`,
      );
      return;
    }
    if (NAMED.has(place) && made !== key && !ALPHANUMERIC.test(made)) {
      this.problem(
        'TP4014',
        at,
        () =>
          `'${shortened(made)}' is not alphanumeric, as ${place === 'resources' ? 'a logical id' : place === 'outputs' ? 'an output name' : 'a condition name'} must be: write &{Identifier} (the item without its other characters) instead of \${Identifier}`,
      );
      return;
    }
    if (place === 'resources' && ++this.resources > EXPANSION_LIMITS.maxResources)
      throw new OverBound(
        at,
        `the expanded template has over ${EXPANSION_LIMITS.maxResources} resources, CloudFormation's limit; loop over fewer items, or split the template into several stacks`,
      );
    if (place === 'outputs' && ++this.outputs > EXPANSION_LIMITS.maxOutputs)
      throw new OverBound(
        at,
        `the expanded template has over ${EXPANSION_LIMITS.maxOutputs} outputs, CloudFormation's limit; loop over fewer items`,
      );
    if (loopBody || made !== key) this.origins.add(target, at);
    out[made] = this.copy(item, childPlace(place, made), bindings, at, target);
  }

  /** `Fn::ForEach::<name>: [Identifier, Collection, {OutputKey: OutputValue}]`, its keys added to `out`. */
  private loop(
    key: string,
    argument: unknown,
    place: Place,
    bindings: Bindings,
    from: string,
    to: string,
    out: Record<string, unknown>,
  ): void {
    const at = `${from}/${escapePointerToken(key)}`;
    const name = key.slice(LOOP_PREFIX.length);
    if (!ALPHANUMERIC.test(name))
      return this.problem(
        'TP4014',
        at,
        `the loop's name '${name}' must be alphanumeric (Fn::ForEach::Buckets)`,
      );
    const written = this.loops.get(name);
    if (written !== undefined && written !== at)
      return this.problem(
        'TP4014',
        at,
        `a loop named '${name}' is written twice in the template; give each loop a name of its own`,
      );
    this.loops.set(name, at);
    if (bindings.size >= EXPANSION_LIMITS.maxNesting)
      return this.problem(
        'TP4014',
        at,
        `loops nest at most ${EXPANSION_LIMITS.maxNesting} deep; this one is inside ${bindings.size}`,
      );
    if (!Array.isArray(argument) || argument.length !== 3)
      return this.problem(
        'TP4014',
        at,
        `${key} takes a list of 3: [Identifier, Collection, {OutputKey: OutputValue}]`,
      );
    const [identifier, collection, body] = argument as [unknown, unknown, unknown];
    if (typeof identifier !== 'string' || !ALPHANUMERIC.test(identifier))
      return this.problem(
        'TP4014',
        `${at}/0`,
        "the loop's identifier is a name of letters and digits (it is replaced by each item: ${Identifier}, &{Identifier}, Ref)",
      );
    if (bindings.has(identifier))
      return this.problem(
        'TP4014',
        `${at}/0`,
        `identifier '${identifier}' is already an enclosing loop's; name the inner loop's identifier differently`,
      );
    if (!isObject(body) || Object.keys(body).length === 0)
      return this.problem(
        'TP4014',
        `${at}/2`,
        "a loop's third value is a mapping of the keys to make ({OutputKey: OutputValue}), as written where the loop stands",
      );
    const items = this.collection(this.copy(collection, 'plain', bindings, `${at}/1`, `${at}/1`), `${at}/1`);
    if (!items) return;
    for (const item of items) {
      const inner = new Map(bindings).set(identifier, item);
      for (const [outputKey, outputValue] of Object.entries(body)) {
        if (outputKey.startsWith(LOOP_PREFIX))
          this.loop(outputKey, outputValue, place, inner, `${at}/2`, to, out);
        else {
          const keyAt = `${at}/2/${escapePointerToken(outputKey)}`;
          const value = this.named(outputKey, outputValue, inner, keyAt);
          this.put(out, outputKey, value, place, inner, keyAt, to, true);
        }
      }
    }
  }

  /** The items a collection names, as strings; undefined when there are none to loop over (reported). */
  private collection(expression: unknown, at: string): string[] | undefined {
    if (this.resolver.secret(expression)) {
      this.problem(
        'TP4014',
        at,
        "a loop's collection cannot come from a NoEcho parameter: its items would be shown in logical ids and output names; loop over values that are not secret",
      );
      return undefined;
    }
    const resolved = this.resolver.resolve(expression, at);
    if ('problem' in resolved) {
      this.problem(resolved.problem.rule, resolved.problem.pointer, resolved.problem.message);
      return undefined;
    }
    if ('unknown' in resolved) {
      this.problem(
        'TP4025',
        at,
        `this loop is expanded once ${resolved.unknown.join(', ')} ${resolved.unknown.length === 1 ? 'has a value' : 'have values'}: what it makes is not checked until then (give parameters to validate to have it checked as plan will)`,
      );
      return undefined;
    }
    const value = resolved.value;
    if (!Array.isArray(value) || !value.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
      this.problem(
        'TP4014',
        at,
        "a loop's collection is a list of strings: written as one, or a Ref to a CommaDelimitedList (or List<…>) parameter, Fn::FindInMap, Fn::GetAZs, Fn::Split, … of one",
      );
      return undefined;
    }
    this.charge(value.length, 0, at);
    return value.map(String);
  }

  /** Inside a loop: `Ref: Identifier` is the item; names in `Fn::Sub`, `Fn::GetAtt`, `Ref`, `Fn::If` are substituted. */
  private copyCall(
    name: string,
    argument: unknown,
    place: Place,
    bindings: Bindings,
    from: string,
    to: string,
  ): unknown {
    const at = `${from}/${escapePointerToken(name)}`;
    const into = `${to}/${escapePointerToken(name)}`;
    this.charge(1, name.length, at);
    switch (name) {
      case 'Ref':
        if (typeof argument !== 'string') break;
        if (bindings.has(argument)) {
          const item = bindings.get(argument)!;
          this.charge(1, item.length, at);
          return item;
        }
        return { Ref: this.substitute(argument, bindings, at) };
      case 'Fn::Sub':
        if (typeof argument === 'string') return { 'Fn::Sub': this.substitute(argument, bindings, at) };
        if (Array.isArray(argument) && typeof argument[0] === 'string')
          return {
            'Fn::Sub': [
              this.substitute(argument[0], bindings, `${at}/0`),
              ...argument
                .slice(1)
                .map((v, i) => this.copy(v, 'plain', bindings, `${at}/${i + 1}`, `${into}/${i + 1}`)),
            ],
          };
        break;
      case 'Fn::GetAtt':
        if (typeof argument === 'string') return { 'Fn::GetAtt': this.substitute(argument, bindings, at) };
        if (Array.isArray(argument))
          return {
            'Fn::GetAtt': argument.map((v, i) =>
              plainName(
                typeof v === 'string'
                  ? this.substitute(v, bindings, `${at}/${i}`)
                  : this.copy(v, 'plain', bindings, `${at}/${i}`, `${into}/${i}`),
              ),
            ),
          };
        break;
      case 'Fn::If':
        if (Array.isArray(argument) && typeof argument[0] === 'string')
          return {
            'Fn::If': [
              this.substitute(argument[0], bindings, `${at}/0`),
              ...argument
                .slice(1)
                .map((v, i) =>
                  this.copy(
                    v,
                    place === 'properties' ? place : 'plain',
                    bindings,
                    `${at}/${i + 1}`,
                    `${into}/${i + 1}`,
                  ),
                ),
            ],
          };
        break;
    }
    return { [name]: this.copy(argument, 'plain', bindings, at, into) };
  }

  /** A resource's `DeletionPolicy` and `UpdateReplacePolicy` written as intrinsic functions, resolved. */
  private resolvePolicies(resource: Record<string, unknown>, from: string): void {
    for (const key of ['DeletionPolicy', 'UpdateReplacePolicy'] as const) {
      const written = resource[key];
      if (!isObject(written)) continue;
      const at = `${from}/${key}`;
      const resolved = this.resolver.resolve(written, at);
      if ('value' in resolved && typeof resolved.value === 'string') resource[key] = resolved.value;
      else {
        // Unknown until its parameter has a value (reported where the parameter is): the default holds.
        delete resource[key];
        if ('problem' in resolved)
          this.problem(resolved.problem.rule, resolved.problem.pointer, resolved.problem.message);
        else if ('value' in resolved)
          this.problem(
            'TP4003',
            at,
            `${key} must resolve to a policy's name (Delete, Retain, …), not ${JSON.stringify(resolved.value)}`,
          );
      }
    }
  }
}

/** A name `Fn::GetAtt` takes, written `!Sub Bucket${Name}` in a loop: once substituted, the string itself. */
function plainName(value: unknown): unknown {
  const call = intrinsicOf(value);
  if (call?.name === 'Fn::Sub' && typeof call.argument === 'string' && !call.argument.includes('${'))
    return call.argument;
  return value;
}

/** A made key as a message quotes it: its first 100 characters (an item may be long). */
function shortened(text: string): string {
  return text.length <= 100
    ? text
    : `${text.slice(0, 100)}… (${text.length.toLocaleString('en-US')} characters)`;
}

function occurrences(text: string, token: string): number {
  let count = 0;
  for (let at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + token.length)) count++;
  return count;
}
