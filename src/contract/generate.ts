/**
 * @module Inputs for the contract suite, generated from a type's schema as fast-check arbitraries.
 *
 * Every JSON Schema keyword that shapes a value is followed: `type`, `enum`, `const`, `pattern` (RE2,
 * see below), `format`, lengths, bounds, `multipleOf`, nested objects, arrays (tuples and
 * `uniqueItems` too), maps (`patternProperties`, `additionalProperties`), `$ref`, `allOf`, `anyOf`,
 * `oneOf`. Keywords that only relate values to each other (`dependencies`, `not`, `if`, `oneOf`'s
 * exclusivity, …) are left to a final check with the type's own validator: a generated model is used
 * only when the engine would accept it.
 *
 * Read-only properties are never in an input (the provider sets them); write-only ones are. An update
 * input keeps the create input's create-only values and primary identifier, as the engine requires.
 *
 * The schema's validation rules (CEL, `x-typeplane-validations`) are the engine's too: an input is
 * used only when they pass, as the engine checks them (defaults applied; an update against its create
 * input, so transition rules hold). An update that breaks a rule on values it changed first takes
 * those values back from its create input (a rule does not check what an update leaves as it was), a
 * few rounds at most. Rules generation cannot satisfy on a fixed sample make a `problem`, naming the
 * rule. `violation` goes the other way (violations.ts): valid inputs changed until a rule fails, one
 * for each rule where one can be found, and the rules none was found for.
 *
 * Patterns are RE2. fast-check generates strings for a JavaScript RegExp, so a pattern is translated
 * where the dialects differ in syntax only (`(?i)`, `(?s)`, `\A`, `\z`, `[[:alpha:]]`, `\pL`, …) and
 * every generated string is checked with RE2 itself. Where no generator finds matching strings the
 * generator says so (`warnings`, or `problem` when the property is required) instead of looping.
 */
import fc from 'fast-check';
import type { CompiledType } from '../registry/compile.js';
import { compileType } from '../registry/compile.js';
import type { Model } from '../model/index.js';
import type { JsonSchema, ResourceType } from '../schema/model.js';
import { compilePattern } from '../schema/regex.js';
import { additionalIdentifiersOf, cloneJson, identifierOf, stripReadOnly } from '../model/index.js';
import { pointerTokens } from '../schema/diagnostics.js';
import type { Verdict } from '../verdict.js';
import { ruleViolations } from './violations.js';

/** A create input and the update input that follows it. */
export interface InputPair {
  create: Model;
  update: Model;
}

/**
 * An input the engine must refuse: from an inputs_N_invalid.json, or generated to break the schema's
 * validation rules (`rules` names those it breaks; with `before`, an update of a resource created as
 * `before` to `desired`).
 */
export interface InvalidInput {
  before?: Model;
  desired: Model;
  rules?: string[];
}

export interface InputGenerator {
  /** Why no inputs can be generated for this schema (then the arbitraries below must not be used). */
  problem?: string;
  /** Parts of the schema the generator could not honour; the inputs leave them out. */
  warnings: string[];
  /** Valid create inputs: no read-only values; defaults not applied yet (the runner applies them). */
  create: fc.Arbitrary<Model>;
  /** A create input and a valid update input with the same create-only values and identifier. */
  pair: fc.Arbitrary<InputPair>;
  /** Two or three create inputs with distinct primary identifiers, none a prefix of another (when the caller supplies them). */
  several: fc.Arbitrary<Model[]>;
  /** A desired state for a resource that was never created: identifier values included, read-only ones too. */
  absent: fc.Arbitrary<Model>;
  /** Inputs that break a validation rule of the schema (and nothing else), or why there are none. */
  violation: fc.Arbitrary<InvalidInput> | string;
  /** One input for each rule that could be broken: the suite tries each before random ones. */
  violationExamples?: InvalidInput[];
  /** The rules no breaking input was found for, each with why. */
  unbrokenRules?: string[];
}

export interface GenerateOptions {
  /** Most items in a generated array beyond `minItems` (default 3). */
  extraItems?: number;
  /** Most entries in a generated map (default 3). */
  mapEntries?: number;
  /** How often one `$ref` may be entered on one path before the generator stops (default 2). */
  refDepth?: number;
}

type Schema = Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Build the input arbitraries of a type. Never throws for a schema the registry accepts. */
export function inputGenerator(
  type: ResourceType,
  options: GenerateOptions = {},
  compiled: CompiledType = compileType(type),
): InputGenerator {
  try {
    return buildGenerator(type, options, compiled);
  } catch (e) {
    const placeholder = fc.constant({} as Model);
    return {
      problem: `cannot generate inputs for ${type.typeName}: ${(e as Error).message}; give inputs with --inputs`,
      warnings: [],
      create: placeholder,
      pair: fc.constant({ create: {}, update: {} }),
      several: fc.constant([]),
      absent: placeholder,
      violation: 'no inputs can be generated',
    };
  }
}

function buildGenerator(
  type: ResourceType,
  options: GenerateOptions,
  compiled: CompiledType,
): InputGenerator {
  const warnings: string[] = [];
  const gen = new SchemaArbitraries(type.schema, warnings, options);
  const readOnlyTop = new Set(topLevelNames(type.readOnlyProperties));
  const identifierTop = topLevelNames(type.primaryIdentifier);
  const writableIdentifier = identifierTop.filter((name) => !readOnlyTop.has(name));

  const valid = (model: Model): boolean => compiled.validateInput(cloneJson(model)).length === 0;
  const rules = new TypeRules(compiled);

  const rawCreate = gen.object(type.schema, {
    exclude: readOnlyTop,
    alsoRequired: writableIdentifier,
    path: '',
  });
  const rawAbsent = gen.object(type.schema, {
    exclude: new Set(),
    alsoRequired: identifierTop,
    path: '',
  });
  const placeholder = fc.constant({} as Model);
  if (!rawCreate.arb || !rawAbsent.arb) {
    const problem = `cannot generate inputs for ${type.typeName}: ${rawCreate.problem ?? rawAbsent.problem}; give inputs with --inputs`;
    return {
      problem,
      warnings,
      create: placeholder,
      pair: fc.constant({ create: {}, update: {} }),
      several: fc.constant([]),
      absent: placeholder,
      violation: 'no inputs can be generated',
    };
  }
  const cleanCreate = rawCreate.arb.map((m) => stripReadOnly(type, toJson(m as Model)));
  const cleanAbsent = rawAbsent.arb.map((m) => toJson(m as Model));
  const fixed = fixedProperties(type);
  const rawPair = fc
    .record({ create: cleanCreate, update: cleanCreate }, { noNullPrototype: true })
    .map(({ create, update }) => ({
      create,
      update: rules.ratchet(keepFixed(update, create, fixed), create),
    }));

  const problems: string[] = [];
  // Rules refuse more of what the schema allows: a larger sample before calling them unsatisfiable.
  const sample = compiled.checkRules ? RULES_SAMPLE : SCHEMA_SAMPLE;
  const create = guardedFilter(
    cleanCreate,
    (m) => rules.problemOf(m) === undefined,
    'create inputs',
    problems,
    (m) => rules.problemOf(m),
    sample,
  );
  const pair = guardedFilter(
    rawPair,
    (p) => rules.problemOf(p.create) === undefined && rules.problemOf(p.update, p.create) === undefined,
    'update inputs',
    problems,
    (p) => rules.problemOf(p.create) ?? rules.problemOf(p.update, p.create),
    sample,
  );
  const absent = guardedFilter(
    cleanAbsent,
    (m) => valid(m) && identifierOf(type, m) !== undefined,
    'identifiers',
    problems,
    (m) => firstProblem(compiled, m) ?? 'the primary identifier is not generated',
  );
  if (problems.length > 0) {
    return {
      problem: `cannot generate inputs for ${type.typeName}: ${problems.join('; ')}; give inputs with --inputs`,
      warnings,
      create: placeholder,
      pair: fc.constant({ create: {}, update: {} }),
      several: fc.constant([]),
      absent: placeholder,
      violation: 'no inputs can be generated',
    };
  }
  // No identifier a prefix of another: resources with hierarchical names (paths, DNS names) may not
  // coexist with their parents (a file `a` and a file `a/b`), which is no breach of the contract.
  const several = fc
    .uniqueArray(create, {
      minLength: 2,
      maxLength: 3,
      selector: (m: Model) => identifierOf(type, m) ?? canonicalJson(m),
    })
    .filter((models) => {
      const ids = models.map((m) => identifierOf(type, m)).filter((id): id is string => id !== undefined);
      return ids.every((a, i) => ids.every((b, j) => i === j || !b.startsWith(a)));
    })
    // Resources that coexist have distinct additional identifiers too (each identifies one resource).
    .filter((models) => {
      const keys = models.flatMap((m) =>
        additionalIdentifiersOf(type, m).map((k) => `${k.name}\u0000${k.value}`),
      );
      return new Set(keys).size === keys.length;
    });
  if (!compiled.checkRules)
    return { warnings, create, pair, several, absent, violation: `${type.typeName} has no validation rules` };
  const violations = ruleViolations(type, rules, create, pair, cleanCreate, {
    create: new Set(identifierTop),
    update: new Set([...fixed, ...identifierTop]),
  });
  return {
    warnings,
    create,
    pair,
    several,
    absent,
    violation: violations.arbitrary,
    violationExamples: violations.examples,
    unbrokenRules: violations.unbroken,
  };
}

/** `count` create inputs drawn with `seed`: the same seed gives the same inputs. */
export function sampleInputs(type: ResourceType, seed: number, count: number): Model[] {
  const generator = inputGenerator(type);
  if (generator.problem) throw new Error(generator.problem);
  return fc.sample(generator.create, { seed, numRuns: count });
}

/** The top-level properties whose values an update must keep: create-only ones and the identifier. */
function fixedProperties(type: ResourceType): string[] {
  return [
    ...new Set(
      topLevelNames([
        ...type.createOnlyProperties,
        ...type.conditionalCreateOnlyProperties,
        ...type.primaryIdentifier,
      ]),
    ),
  ];
}

/** `update` with the values of `names` taken from `create` (or removed where `create` has none). */
export function keepFixed(update: Model, create: Model, names: readonly string[]): Model {
  const out = cloneJson(update);
  for (const name of names) {
    if (Object.hasOwn(create, name)) out[name] = cloneJson(create[name]);
    else delete out[name];
  }
  return out;
}

/** The property names the pointers start with (`/properties/A/B` → `A`). */
export function topLevelNames(pointers: readonly string[]): string[] {
  const names: string[] = [];
  for (const pointer of pointers) {
    const tokens = pointerTokens(pointer);
    if (tokens[0] === 'properties' && tokens[1] !== undefined) names.push(tokens[1]);
  }
  return names;
}

function firstProblem(compiled: CompiledType, model: Model): string | undefined {
  const problem = compiled.validateInput(cloneJson(model))[0];
  return problem && `${problem.pointer || '/'} ${problem.message}`;
}

const SCHEMA_SAMPLE = 60;
const RULES_SAMPLE = 200;
/** Rounds of taking values back from the create input before an update is left to the filter. */
const RATCHET_ROUNDS = 3;

/** A type's schema and validation rules, checked on inputs as the engine checks them. */
class TypeRules {
  constructor(private readonly compiled: CompiledType) {}

  /** The input as the engine checks it: a copy with the schema's defaults. */
  private defaulted(model: Model): { model: Model; problem?: string } {
    const copy = cloneJson(model);
    const problem = this.compiled.validateInput(copy)[0];
    return problem
      ? { model: copy, problem: `${problem.pointer || '/'} ${problem.message}` }
      : { model: copy };
  }

  /** The verdicts of the rules on a schema-valid input (`before`: the state an update starts from). */
  verdicts(model: Model, before?: Model): Verdict[] {
    if (!this.compiled.checkRules) return [];
    return this.compiled.checkRules(
      this.defaulted(model).model,
      before === undefined ? undefined : this.defaulted(before).model,
    );
  }

  /** Why the engine would refuse the input (the schema's first problem, else a rule's), if it would. */
  problemOf(model: Model, before?: Model): string | undefined {
    const { model: desired, problem } = this.defaulted(model);
    if (problem || !this.compiled.checkRules) return problem;
    const verdict = this.compiled.checkRules(
      desired,
      before === undefined ? undefined : this.defaulted(before).model,
    )[0];
    return verdict && describeVerdict(verdict);
  }

  /** True when the schema refuses the input (its rules aside). */
  schemaRefuses(model: Model): boolean {
    return this.compiled.validateInput(cloneJson(model)).length > 0;
  }

  /**
   * `update` with the top-level values a failing rule points at taken back from `create`, until the
   * rules pass or a few rounds have gone: a rule does not check what an update leaves as it was.
   */
  ratchet(update: Model, create: Model): Model {
    let out = update;
    for (let round = 0; round < RATCHET_ROUNDS && this.compiled.checkRules; round++) {
      if (this.schemaRefuses(out)) return out;
      const names = [
        ...new Set(this.verdicts(out, create).flatMap((v) => pointerTokens(v.pointer ?? '').slice(0, 1))),
      ].filter((name) => !jsonEqualish(out[name], create[name]));
      if (names.length === 0) return out;
      out = keepFixed(out, create, names);
    }
    return out;
  }
}

function describeVerdict(v: Verdict): string {
  return `rule ${v.name}${v.pointer ? ` at ${v.pointer}` : ''}: ${v.message}`;
}

function jsonEqualish(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * `arb.filter(accept)`, after checking on a fixed sample that the filter lets something through: a
 * filter that never does would make fast-check loop forever.
 */
function guardedFilter<T>(
  arb: fc.Arbitrary<T>,
  accept: (value: T) => boolean,
  what: string,
  problems: string[],
  why: (value: T) => string | undefined,
  numRuns = SCHEMA_SAMPLE,
): fc.Arbitrary<T> {
  let sample: T[];
  try {
    sample = fc.sample(arb, { seed: 0x5eed, numRuns });
  } catch (e) {
    problems.push(`generating ${what} failed: ${(e as Error).message}`);
    return arb;
  }
  if (!sample.some(accept)) {
    const reason = sample.length > 0 ? why(sample[0]!) : undefined;
    problems.push(
      `none of ${sample.length} generated ${what} satisfies the schema${reason ? ` (e.g. ${reason})` : ''}`,
    );
  }
  return arb.filter(accept);
}

/** A plain JSON copy: no null prototypes, no `-0`, no `undefined` members. */
function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What building an arbitrary came to: the arbitrary, or why there is none. */
interface Built {
  arb?: Arb;
  problem?: string;
}

const SIMPLE_KEY = /^[A-Za-z][A-Za-z0-9]{0,7}$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Arbitraries for the subschemas of one root schema. */
export class SchemaArbitraries {
  private readonly refStack: string[] = [];
  private readonly patternCache = new Map<string, Built>();

  constructor(
    private readonly root: JsonSchema,
    private readonly warnings: string[],
    private readonly options: GenerateOptions = {},
  ) {}

  /** An arbitrary for values of `node`, the subschema at `path` (a model path, for messages). */
  value(node: unknown, path: string): Built {
    if (node === true || node === undefined) return { arb: anyValue() };
    if (node === false) return { problem: `${path || '/'} allows no value` };
    if (!isObject(node)) return { arb: anyValue() };
    if (typeof node.$ref === 'string') return this.viaRef(node, path);
    let schema = node;
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      let merged: Schema = rest;
      for (const branch of allOf as unknown[]) merged = mergeSchemas(merged, this.resolveDeep(branch));
      schema = merged;
    }
    if ('const' in schema) return { arb: fc.constant(cloneJson(schema.const)) };
    if (Array.isArray(schema.enum)) {
      const values = schema.enum.filter((v) => v !== null);
      if (values.length === 0) return { problem: `${path || '/'} has no non-null enum value` };
      return { arb: fc.constantFrom(...values.map((v) => cloneJson(v))) };
    }
    const branches =
      (Array.isArray(schema.anyOf) ? schema.anyOf : undefined) ??
      (Array.isArray(schema.oneOf) ? schema.oneOf : undefined);
    if (branches) {
      const { anyOf: _a, oneOf: _o, ...base } = schema;
      const built = (branches as unknown[]).map((b) =>
        this.value(mergeSchemas(base, this.resolveDeep(b)), path),
      );
      const arbs = built.flatMap((b) => (b.arb ? [b.arb] : []));
      if (arbs.length === 0) return { problem: built[0]?.problem ?? `${path || '/'} has no usable branch` };
      return { arb: fc.oneof(...arbs) };
    }
    const types = typesOf(schema);
    const arbs: Arb[] = [];
    let problem: string | undefined;
    for (const t of types) {
      const built = this.ofType(t, schema, path);
      if (built.arb) arbs.push(built.arb);
      else problem ??= built.problem;
    }
    if (arbs.length === 0) return { problem: problem ?? `${path || '/'} has no type to generate` };
    return { arb: arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs) };
  }

  /** An object arbitrary for `schema`, leaving out `exclude` and always including `alsoRequired`. */
  object(
    schema: Schema,
    options: { exclude: ReadonlySet<string>; alsoRequired: readonly string[]; path: string },
  ): Built {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set([
      ...(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []),
      ...options.alsoRequired,
    ]);
    const model: Record<string, Arb> = {};
    const requiredKeys: string[] = [];
    for (const [name, sub] of Object.entries(properties)) {
      if (options.exclude.has(name) || name === '__proto__') continue;
      const path = `${options.path}/${name}`;
      const built = this.value(sub, path);
      if (!built.arb) {
        if (required.has(name)) return { problem: built.problem ?? `${path} cannot be generated` };
        this.warnings.push(`${path} is left out of generated inputs: ${built.problem ?? 'no generator'}`);
        continue;
      }
      model[name] = built.arb;
      if (required.has(name)) requiredKeys.push(name);
    }
    let arb: fc.Arbitrary<Record<string, unknown>>;
    if (Object.keys(model).length > 0 || Object.keys(properties).length > 0) {
      arb = fc.record(model, { requiredKeys, noNullPrototype: true }) as fc.Arbitrary<
        Record<string, unknown>
      >;
    } else {
      const map = this.mapOf(schema, options.path);
      if (!map.arb) return map;
      arb = map.arb as fc.Arbitrary<Record<string, unknown>>;
    }
    const min = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    const max = typeof schema.maxProperties === 'number' ? schema.maxProperties : Infinity;
    if (min > 0 || max < Infinity) {
      arb = arb.filter((o) => Object.keys(o).length >= min && Object.keys(o).length <= max);
    }
    return { arb };
  }

  private viaRef(node: Schema, path: string): Built {
    const ref = node.$ref as string;
    const depth = this.refStack.filter((r) => r === ref).length;
    if (depth >= (this.options.refDepth ?? 2)) return { problem: `${path} recurses through ${ref}` };
    const target = resolveRef(this.root, ref);
    if (target === undefined) return { problem: `${path} refers to ${ref}, which does not resolve` };
    const { $ref: _ref, ...siblings } = node;
    this.refStack.push(ref);
    try {
      const merged =
        Object.keys(siblings).length > 0 && isObject(target) ? mergeSchemas(target, siblings) : target;
      return this.value(merged, path);
    } finally {
      this.refStack.pop();
    }
  }

  /** A subschema with its top-level `$ref` replaced by the target (for merging `allOf` branches). */
  private resolveDeep(node: unknown): Schema {
    let current = node;
    for (let i = 0; i < 8 && isObject(current) && typeof current.$ref === 'string'; i++) {
      const { $ref, ...siblings } = current;
      const target = resolveRef(this.root, $ref as string);
      current = isObject(target) ? mergeSchemas(target, siblings) : siblings;
    }
    return isObject(current) ? current : {};
  }

  private ofType(t: string, schema: Schema, path: string): Built {
    switch (t) {
      case 'string':
        return this.string(schema, path);
      case 'integer':
        return { arb: integerArb(schema) };
      case 'number':
        return { arb: numberArb(schema) };
      case 'boolean':
        return { arb: fc.boolean() };
      case 'array':
        return this.array(schema, path);
      case 'object':
        return this.object(schema, { exclude: new Set(), alsoRequired: [], path });
      case 'null':
        return { problem: `${path || '/'} only allows null, which inputs never carry` };
      default:
        return { arb: anyValue() };
    }
  }

  private array(schema: Schema, path: string): Built {
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const maxItems = Math.min(
      typeof schema.maxItems === 'number' ? schema.maxItems : Infinity,
      minItems + (this.options.extraItems ?? 3),
    );
    if (Array.isArray(schema.items)) {
      const parts = schema.items.map((item, i) => this.value(item, `${path}/${i}`));
      const missing = parts.find((p) => !p.arb);
      if (missing) return missing;
      return { arb: fc.tuple(...parts.map((p) => p.arb!)) };
    }
    const item = this.value(schema.items, `${path}/*`);
    if (!item.arb) return minItems === 0 ? { arb: fc.constant([]) } : item;
    if (schema.uniqueItems === true) {
      return {
        arb: fc.uniqueArray(item.arb, { minLength: minItems, maxLength: maxItems, selector: canonicalJson }),
      };
    }
    return { arb: fc.array(item.arb, { minLength: minItems, maxLength: maxItems }) };
  }

  /** A map (an object described by `patternProperties` or an `additionalProperties` schema). */
  private mapOf(schema: Schema, path: string): Built {
    const maxKeys = Math.min(
      typeof schema.maxProperties === 'number' ? schema.maxProperties : Infinity,
      this.options.mapEntries ?? 3,
    );
    const minKeys = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
    const constraints = { minKeys, maxKeys: Math.max(minKeys, maxKeys), noNullPrototype: true };
    if (isObject(schema.patternProperties)) {
      const entries: fc.Arbitrary<Record<string, unknown>>[] = [];
      for (const [pattern, sub] of Object.entries(schema.patternProperties)) {
        const keys = this.patternStrings(pattern, 1, 32, `${path}/{${pattern}}`);
        const values = this.value(sub, `${path}/*`);
        if (keys.arb && values.arb)
          entries.push(
            fc.dictionary(
              (keys.arb as fc.Arbitrary<string>).filter((k) => k !== '__proto__'),
              values.arb,
              constraints,
            ),
          );
      }
      if (entries.length === 0) return minKeys === 0 ? { arb: fc.constant({}) } : { problem: `${path} keys` };
      return { arb: fc.oneof(...entries) };
    }
    const keys = fc.stringMatching(SIMPLE_KEY);
    if (isObject(schema.additionalProperties)) {
      const values = this.value(schema.additionalProperties, `${path}/*`);
      if (!values.arb) return minKeys === 0 ? { arb: fc.constant({}) } : values;
      return { arb: fc.dictionary(keys, values.arb, constraints) };
    }
    if (schema.additionalProperties === false) return { arb: fc.constant({}) };
    // A free-form object: a few plain members.
    return {
      arb: fc.dictionary(
        keys,
        fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean()),
        constraints,
      ),
    };
  }

  private string(schema: Schema, path: string): Built {
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
    const lengthOk = (s: string) => {
      const n = [...s].length;
      return n >= minLength && (maxLength === undefined || n <= maxLength);
    };
    if (typeof schema.pattern === 'string') {
      const built = this.patternStrings(schema.pattern, minLength, maxLength, path);
      if (!built.arb) return built;
      const formatted = typeof schema.format === 'string' ? formatArb(schema.format) : undefined;
      // A format and a pattern together: try the format's strings first, matching the pattern.
      if (formatted) {
        const matcher = compilePattern(schema.pattern);
        const candidates = fc.sample(formatted, { seed: 1, numRuns: 50 });
        if (candidates.some((s) => lengthOk(s) && matcher?.(s) !== false))
          return { arb: formatted.filter((s) => lengthOk(s) && matcher?.(s) !== false) };
      }
      return built;
    }
    if (typeof schema.format === 'string') {
      const formatted = formatArb(schema.format);
      if (formatted) {
        const sample = fc.sample(formatted, { seed: 1, numRuns: 50 });
        if (sample.some(lengthOk)) return { arb: formatted.filter(lengthOk) };
        this.warnings.push(
          `${path || '/'}: no generated ${schema.format} fits length ${minLength}..${maxLength ?? '∞'}; plain strings are used`,
        );
      }
    }
    const cap = maxLength ?? Math.max(minLength + 16, 16);
    return { arb: fc.string({ minLength, maxLength: Math.max(minLength, cap) }) };
  }

  /** Strings matching an RE2 `pattern` with the given lengths, or why none can be generated. */
  patternStrings(pattern: string, minLength: number, maxLength: number | undefined, path: string): Built {
    const key = `${pattern}\u0000${minLength}\u0000${maxLength ?? ''}`;
    const hit = this.patternCache.get(key);
    if (hit) return hit;
    const built = this.buildPattern(pattern, minLength, maxLength, path);
    this.patternCache.set(key, built);
    return built;
  }

  private buildPattern(
    pattern: string,
    minLength: number,
    maxLength: number | undefined,
    path: string,
  ): Built {
    const matches = compilePattern(pattern);
    if (!matches) return { problem: `${path || '/'}: pattern ${JSON.stringify(pattern)} is not valid RE2` };
    const accept = (s: string) => {
      const n = [...s].length;
      return n >= minLength && (maxLength === undefined || n <= maxLength) && matches(s);
    };
    const candidates: Arb[] = [];
    const regex = toJsRegExp(pattern);
    if (regex) {
      try {
        candidates.push(fc.stringMatching(regex, maxLength === undefined ? {} : { maxLength }));
      } catch {
        // fast-check's regex reader does not know a construct: fall through to plain strings.
      }
    }
    candidates.push(
      fc.string({ minLength, maxLength: maxLength ?? minLength + 16 }),
      fc.string({ minLength, maxLength: maxLength ?? minLength + 16, unit: 'grapheme' }),
    );
    for (const candidate of candidates) {
      const sample = fc.sample(candidate as fc.Arbitrary<string>, { seed: 7, numRuns: 80 });
      const hits = sample.filter(accept).length;
      if (hits >= 4) return { arb: (candidate as fc.Arbitrary<string>).filter(accept) };
    }
    return {
      problem: `${path || '/'}: cannot generate strings matching the pattern ${JSON.stringify(pattern)}${
        maxLength === undefined && minLength === 0 ? '' : ` with length ${minLength}..${maxLength ?? '∞'}`
      }`,
    };
  }
}

/**
 * A JavaScript RegExp accepting (about) what the RE2 `pattern` accepts, or undefined. Generated strings
 * are checked with RE2 anyway, so "about" is enough: case-insensitive parts become case-sensitive
 * (their strings still match), and RE2-only spellings become their JavaScript equivalents.
 */
export function toJsRegExp(pattern: string): RegExp | undefined {
  let source = pattern;
  const flags = new Set<string>(['u']);
  // Leading inline flags: (?i) (?s) (?m) (?is) …
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1]!) if (f === 's' || f === 'm') flags.add(f);
  }
  source = source
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$')
    .replace(/\(\?P</g, '(?<')
    // A case-insensitive group: its case-sensitive strings match too.
    .replace(/\(\?i:/g, '(?:')
    .replace(/\\x\{([0-9A-Fa-f]{1,6})\}/g, '\\u{$1}')
    .replace(/\\([pP])([A-Z])(?![a-z{])/g, '\\$1{$2}')
    .replace(/\\([pP])\{([A-Za-z_]+)\}/g, (whole, p: string, name: string) =>
      GENERAL_CATEGORY.test(name) ? whole : `\\${p}{Script=${name}}`,
    )
    .replace(/\\Q(.*?)(\\E|$)/g, (_m, literal: string) => literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
    .replace(/\[:(\^?)([a-z]+):\]/g, (whole, negate: string, name: string) => {
      const cls = POSIX_CLASSES[name];
      if (!cls) return whole;
      return negate ? `&&NEG${cls}&&` : cls;
    });
  if (source.includes('&&NEG')) return undefined; // negated POSIX classes: let plain strings try
  for (const flagSet of [[...flags].join(''), [...flags].filter((f) => f !== 'u').join('')]) {
    try {
      return new RegExp(source, flagSet);
    } catch {
      // try without `u`
    }
  }
  return undefined;
}

/** Unicode general categories (`\p{L}`, `\p{Lu}`, `\p{Letter}` …), which JavaScript takes as they are. */
const GENERAL_CATEGORY =
  /^(L[ultmo]?|M[nce]?|N[dlo]?|P[cdseifo]?|S[mcko]?|Z[slp]?|C[cfson]?|Letter|Mark|Number|Punctuation|Symbol|Separator|Other|Any|ASCII)$/;

const POSIX_CLASSES: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: ' \\t\\n\\r\\f\\v',
  xdigit: '0-9A-Fa-f',
  word: 'A-Za-z0-9_',
  punct: '!-\\/:-@\\[-`{-~',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  print: ' -~',
  graph: '!-~',
  ascii: '\\x00-\\x7f',
};

const URL_PATTERN = /^https:\/\/[a-z][a-z0-9-]{0,9}\.(com|org|net|example)(\/[A-Za-z0-9._~-]{1,8}){0,3}$/;

function formatArb(format: string): fc.Arbitrary<string> | undefined {
  const dates = fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2099-12-31T23:59:59Z'),
    noInvalidDate: true,
  });
  switch (format) {
    case 'date-time':
      return dates.map((d) => d.toISOString().replace(/\.000Z$/, 'Z'));
    case 'date':
      return dates.map((d) => d.toISOString().slice(0, 10));
    case 'time':
      return dates.map((d) => `${d.toISOString().slice(11, 19)}Z`);
    case 'email':
    case 'idn-email':
      return fc
        .tuple(fc.stringMatching(/^[a-z][a-z0-9._]{0,10}[a-z0-9]$/), fc.domain())
        .map(([local, domain]) => `${local.replace(/\.{2,}/g, '.')}@${domain}`);
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      // Not fc.webUrl(): its first use costs about a second (full Unicode tables).
      return fc.stringMatching(URL_PATTERN);
    case 'uuid':
      return fc.uuid();
    case 'ipv4':
      return fc.ipV4();
    case 'ipv6':
      return fc.ipV6();
    case 'hostname':
    case 'idn-hostname':
      return fc.domain();
    case 'byte':
      return fc.base64String({ maxLength: 24 });
    case 'regex':
      return fc.constantFrom('^[a-z]+$', '[0-9]{2,4}', '.*');
    case 'json-pointer':
      return fc
        .array(fc.stringMatching(/^[a-z]{1,6}$/), { maxLength: 3 })
        .map((t) => t.map((x) => `/${x}`).join(''));
    case 'duration':
      return fc.constantFrom('P1D', 'PT1H', 'PT30M', 'P1Y2M3DT4H5M6S');
    default:
      return undefined;
  }
}

function integerArb(schema: Schema): fc.Arbitrary<number> {
  let min = lowerBound(schema, true) ?? -(2 ** 31);
  let max = upperBound(schema, true) ?? 2 ** 31 - 1;
  min = Math.max(min, -MAX_SAFE);
  max = Math.min(max, MAX_SAFE);
  if (min > max) max = min;
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (step !== undefined && Number.isInteger(step)) {
    const lo = Math.ceil(min / step);
    const hi = Math.floor(max / step);
    return bigIntRange(lo, Math.max(lo, hi)).map((k) => k * step);
  }
  return bigIntRange(min, max);
}

function bigIntRange(min: number, max: number): fc.Arbitrary<number> {
  if (min >= -(2 ** 31) && max <= 2 ** 31 - 1) return fc.integer({ min, max });
  return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
}

function numberArb(schema: Schema): fc.Arbitrary<number> {
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  const exclusiveMin = schema.exclusiveMinimum === true || typeof schema.exclusiveMinimum === 'number';
  const exclusiveMax = schema.exclusiveMaximum === true || typeof schema.exclusiveMaximum === 'number';
  const min = lowerBound(schema, false);
  const max = upperBound(schema, false);
  if (step !== undefined) {
    const lo = Math.ceil((min ?? -1e6) / step);
    const hi = Math.floor((max ?? 1e6) / step);
    return fc.integer({ min: lo, max: Math.max(lo, hi) }).map((k) => Number((k * step).toPrecision(15)));
  }
  return fc
    .double({
      noNaN: true,
      noDefaultInfinity: true,
      ...(min === undefined ? {} : { min, minExcluded: exclusiveMin }),
      ...(max === undefined ? {} : { max, maxExcluded: exclusiveMax }),
    })
    .map((n) => (Object.is(n, -0) ? 0 : n));
}

/** The lowest allowed value (draft-04 and draft-07 forms of exclusiveness). */
function lowerBound(schema: Schema, integer: boolean): number | undefined {
  let bound: number | undefined;
  if (typeof schema.minimum === 'number') bound = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number')
    bound = Math.max(bound ?? -Infinity, schema.exclusiveMinimum + (integer ? 1 : 0));
  else if (schema.exclusiveMinimum === true && bound !== undefined && integer) bound += 1;
  return bound === undefined ? undefined : integer ? Math.ceil(bound) : bound;
}

function upperBound(schema: Schema, integer: boolean): number | undefined {
  let bound: number | undefined;
  if (typeof schema.maximum === 'number') bound = schema.maximum;
  if (typeof schema.exclusiveMaximum === 'number')
    bound = Math.min(bound ?? Infinity, schema.exclusiveMaximum - (integer ? 1 : 0));
  else if (schema.exclusiveMaximum === true && bound !== undefined && integer) bound -= 1;
  return bound === undefined ? undefined : integer ? Math.floor(bound) : bound;
}

function anyValue(): Arb {
  return fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean());
}

/** The types a schema's values may have (from `type`, else guessed from its keywords). */
function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t): t is string => typeof t === 'string');
    const nonNull = types.filter((t) => t !== 'null');
    return nonNull.length > 0 ? nonNull : types;
  }
  if ('properties' in schema || 'patternProperties' in schema || 'additionalProperties' in schema)
    return ['object'];
  if ('items' in schema) return ['array'];
  if ('pattern' in schema || 'minLength' in schema || 'maxLength' in schema || 'format' in schema)
    return ['string'];
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return ['number'];
  return ['any'];
}

/** The subschema a local `$ref` (`#/definitions/A`, any `#/…` pointer) names in `root`. */
export function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (fragment === '') return root;
  let current: unknown = root;
  for (const token of pointerTokens(fragment)) {
    if (Array.isArray(current) && /^\d+$/.test(token)) current = current[Number(token)];
    else if (isObject(current) && Object.hasOwn(current, token)) current = current[token];
    else return undefined;
  }
  return current;
}

/** Two schemas that must both hold, as one (as well as it can be done without a solver). */
export function mergeSchemas(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = out[key];
    if (mine === undefined) out[key] = value;
    else if (key === 'properties' && isObject(mine) && isObject(value)) {
      const merged: Schema = { ...mine };
      for (const [name, sub] of Object.entries(value)) {
        const existing = merged[name];
        merged[name] = isObject(existing) && isObject(sub) ? mergeSchemas(existing, sub) : sub;
      }
      out[key] = merged;
    } else if (key === 'required' && Array.isArray(mine) && Array.isArray(value))
      out[key] = [...new Set([...mine, ...value])];
    else if (key === 'enum' && Array.isArray(mine) && Array.isArray(value))
      out[key] = mine.filter((v) => value.some((w) => canonicalJson(v) === canonicalJson(w)));
    else if ((key === 'minimum' || key === 'minLength' || key === 'minItems') && typeof value === 'number')
      out[key] = Math.max(Number(mine), value);
    else if ((key === 'maximum' || key === 'maxLength' || key === 'maxItems') && typeof value === 'number')
      out[key] = Math.min(Number(mine), value);
    else if (key === 'type') {
      const left = Array.isArray(mine) ? mine : [mine];
      const right = Array.isArray(value) ? value : [value];
      const both = left.filter((t) => right.includes(t) || (t === 'number' && right.includes('integer')));
      out[key] = both.length === 1 ? both[0] : both.length > 0 ? both : value;
    } else out[key] = value;
  }
  return out;
}
