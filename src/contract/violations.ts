/**
 * @module Inputs that break a type's validation rules (CEL) and nothing else, for the contract suite's
 * test that the engine refuses them: for each rule, one when one can be found, and the rules none
 * could be found for, said, not passed over.
 *
 * Two searches over fixed samples of valid inputs. First, one top-level property changed — to another
 * generated input's value, or to one near its own (a number ±1, 0 or negated, a string emptied or
 * doubled, a list emptied or shortened, a flag flipped, one member of an object so changed, the
 * property removed). Then, for each rule still unbroken, the values at the rule's own place changed —
 * to values near them and to the literals the rule is written with and their neighbours (`self !=
 * 'default'` is broken by `'default'` alone, which no random string is). An update changes what an
 * update may change, from a valid update input, so transition rules (`oldSelf`) are broken too.
 */
import fc from 'fast-check';
import { cloneJson, jsonEqual, type Model } from '../model/index.js';
import { valuesAtPath } from '../registry/rules.js';
import { compileSchemaRules } from '../schema/validations.js';
import type { ResourceType } from '../schema/model.js';
import type { Verdict } from '../verdict.js';
import type { InputPair, InvalidInput } from './generate.js';

/** What a violation is checked with: the schema (rules aside), and the rules as the engine runs them. */
export interface RuleChecks {
  schemaRefuses(model: Model): boolean;
  verdicts(model: Model, before?: Model): Verdict[];
}

export interface Violations {
  /** Inputs that break some rule, or why there are none. */
  arbitrary: fc.Arbitrary<InvalidInput> | string;
  /** One input for each rule that could be broken (on creates and on updates where both could). */
  examples: InvalidInput[];
  /** The rules no input could be found to break, each with why: `rule <name> (<rule text>): …`. */
  unbroken: string[];
}

/** The properties a change leaves alone: identifiers; for updates, create-only values too. */
export interface Kept {
  create: ReadonlySet<string>;
  update: ReadonlySet<string>;
}

const SAMPLE = 60;
/** Valid inputs tried for each rule the first search left unbroken. */
const TARGETED_SAMPLE = 20;
/** Places of a rule (items of a list, say) tried in one input. */
const PLACES = 4;

interface RuleInfo {
  name: string;
  source: string;
  transition: boolean;
  paths: (readonly string[])[];
}

export function ruleViolations(
  type: ResourceType,
  checks: RuleChecks,
  create: fc.Arbitrary<Model>,
  pair: fc.Arbitrary<InputPair>,
  other: fc.Arbitrary<Model>,
  kept: Kept,
): Violations {
  const rules = ruleList(type);
  const creates = fc.sample(fc.tuple(create, other), { seed: 0x5eed, numRuns: SAMPLE });
  const updates = fc.sample(fc.tuple(pair, other), { seed: 0x5eed, numRuns: SAMPLE });
  const found = new Map<string, InvalidInput>();
  const record = (candidate: Model, before: Model | undefined): string[] => {
    if (checks.schemaRefuses(candidate)) return [];
    const names = [...new Set(checks.verdicts(candidate, before).map((v) => v.name))];
    for (const name of names) {
      const key = `${before ? 'update' : 'create'} ${name}`;
      if (!found.has(key))
        found.set(key, { ...(before ? { before } : {}), desired: candidate, rules: names });
    }
    return names;
  };

  // Breadth: one top-level property changed, every way, on the whole sample.
  const breadth = { create: false, update: false };
  // Enough once every rule a kind can break has an input of that kind.
  const done = (kind: 'create' | 'update') =>
    rules.every((r) => (kind === 'create' && r.transition) || found.has(`${kind} ${r.name}`));
  for (const [good, donor] of creates) {
    if (done('create')) break;
    for (const candidate of topLevelChanges(good, donor, kept.create))
      if (record(candidate, undefined).length > 0) breadth.create = true;
  }
  for (const [p, donor] of updates) {
    if (done('update')) break;
    for (const candidate of topLevelChanges(p.update, donor, kept.update))
      if (record(candidate, p.create).length > 0) breadth.update = true;
  }

  // Depth: each rule still unbroken, at its own place.
  const unbroken: string[] = [];
  for (const rule of rules) {
    const broken = () => found.has(`create ${rule.name}`) || found.has(`update ${rule.name}`);
    const literals = literalsOf(rule.source);
    const attempts: { good: Model; donor: Model; before?: Model; kept: ReadonlySet<string> }[] = [
      ...(rule.transition
        ? []
        : creates.slice(0, TARGETED_SAMPLE).map(([good, donor]) => ({ good, donor, kept: kept.create }))),
      ...updates
        .slice(0, TARGETED_SAMPLE)
        .map(([p, donor]) => ({ good: p.update, donor, before: p.create, kept: kept.update })),
    ];
    let keptOnly = rule.paths.length > 0;
    for (const attempt of attempts) {
      if (broken()) break;
      for (const path of rule.paths) {
        if (path.length > 0 && attempt.kept.has(path[0]!)) continue;
        keptOnly = false;
        for (const candidate of placeChanges(attempt.good, attempt.donor, path, literals)) {
          if (record(candidate, attempt.before).includes(rule.name)) break;
        }
        if (broken()) break;
      }
    }
    if (broken()) continue;
    const why = keptOnly
      ? 'it reads only values an input may not change here (the identifier, or create-only values on updates)'
      : `no valid input with the values at its place changed (to ones near them or to its literals) breaks it, among ${SAMPLE} inputs changed one property at a time and ${attempts.length} changed at its place`;
    unbroken.push(`rule ${rule.name} (${rule.source}): ${why}`);
  }

  const examples = [...found.values()];
  if (examples.length === 0)
    return {
      arbitrary: `no input breaking a validation rule was found among ${SAMPLE} valid inputs with one property changed, nor with the values at a rule's place changed`,
      examples,
      unbroken,
    };
  // Beyond the examples, fresh inputs broken the first way found, where the first search found any.
  const firstBreak = (
    good: Model,
    donor: Model,
    keep: ReadonlySet<string>,
    before?: Model,
  ): InvalidInput | undefined => {
    for (const candidate of topLevelChanges(good, donor, keep)) {
      if (checks.schemaRefuses(candidate)) continue;
      const names = [...new Set(checks.verdicts(candidate, before).map((v) => v.name))];
      if (names.length > 0) return { ...(before ? { before } : {}), desired: candidate, rules: names };
    }
    return undefined;
  };
  const kinds: fc.Arbitrary<InvalidInput>[] = [fc.constantFrom(...examples)];
  const defined = (v: InvalidInput | undefined): v is InvalidInput => v !== undefined;
  if (breadth.create)
    kinds.push(
      fc
        .tuple(create, other)
        .map(([g, d]) => firstBreak(g, d, kept.create))
        .filter(defined),
    );
  if (breadth.update)
    kinds.push(
      fc
        .tuple(pair, other)
        .map(([p, d]) => firstBreak(p.update, d, kept.update, p.create))
        .filter(defined),
    );
  return { arbitrary: kinds.length === 1 ? kinds[0]! : fc.oneof(...kinds), examples, unbroken };
}

/** The type's rules by name (a definition's, used in several places, has several paths). */
function ruleList(type: ResourceType): RuleInfo[] {
  const byName = new Map<string, RuleInfo>();
  for (const rule of compileSchemaRules(type.schema).rules) {
    const info = byName.get(rule.name);
    if (info) info.paths.push(rule.path);
    else
      byName.set(rule.name, {
        name: rule.name,
        source: rule.rule.source,
        transition: rule.transition,
        paths: [rule.path],
      });
  }
  return [...byName.values()];
}

/** `good` with one top-level property (not kept) changed, each way `nearby` has. */
function* topLevelChanges(good: Model, donor: Model, kept: ReadonlySet<string>): Generator<Model> {
  const names = [...new Set([...Object.keys(good), ...Object.keys(donor)])].filter((n) => !kept.has(n));
  for (const name of names) {
    for (const value of nearby(good[name], donor[name])) {
      const candidate = cloneJson(good);
      if (value === undefined) delete candidate[name];
      else candidate[name] = value;
      yield candidate;
    }
  }
}

/**
 * `good` with the values at `path` (a rule's: property names, `*` for any item or member) changed:
 * to ones near them and to `literals`. Where `good` has no value there, `donor`'s top-level property
 * is taken first, so an optional property's rule is reached too.
 */
function* placeChanges(
  good: Model,
  donor: Model,
  path: readonly string[],
  literals: readonly unknown[],
): Generator<Model> {
  let base = good;
  let places = valuesAtPath(base, path, []);
  if (places.length === 0 && path.length > 0 && donor[path[0]!] !== undefined) {
    base = { ...cloneJson(good), [path[0]!]: cloneJson(donor[path[0]!]) };
    places = valuesAtPath(base, path, []);
  }
  for (const { tokens, value } of places.slice(0, PLACES)) {
    const values = [...nearby(value, undefined), ...literals, ...literalNeighbours(literals, value)];
    for (const replacement of values) {
      if (replacement === undefined && tokens.length === 0) continue;
      yield setAt(base, tokens, replacement);
    }
  }
}

/** A copy of `model` with `value` at `tokens` (removed when undefined: an item taken out of its list). */
function setAt(model: Model, tokens: readonly string[], value: unknown): Model {
  const copy = cloneJson(model);
  let at: unknown = copy;
  for (const token of tokens.slice(0, -1))
    at = Array.isArray(at) ? at[Number(token)] : (at as Record<string, unknown>)[token];
  const last = tokens.at(-1)!;
  if (Array.isArray(at)) {
    if (value === undefined) at.splice(Number(last), 1);
    else at[Number(last)] = value;
  } else if (value === undefined) delete (at as Record<string, unknown>)[last];
  else (at as Record<string, unknown>)[last] = value;
  return copy;
}

/** The strings, numbers and booleans a rule is written with. */
export function literalsOf(source: string): unknown[] {
  const out: unknown[] = [];
  const re = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w.])|\b(true|false)\b/g;
  for (const m of source.matchAll(re)) {
    if (m[1] !== undefined || m[2] !== undefined) out.push((m[1] ?? m[2]!).replace(/\\(.)/g, '$1'));
    else if (m[3] !== undefined) out.push(Number(m[3]));
    else out.push(m[4] === 'true');
  }
  return [...new Map(out.map((v) => [JSON.stringify(v), v])).values()];
}

/** Values beside the literals: numbers ±1, strings with a character before or after, or cut. */
function literalNeighbours(literals: readonly unknown[], current: unknown): unknown[] {
  const out: unknown[] = [];
  for (const literal of literals) {
    if (typeof literal === 'number') out.push(literal + 1, literal - 1);
    else if (typeof literal === 'string') {
      out.push(`x${literal}`, `${literal}x`, literal.slice(0, -1));
      if (typeof current === 'string') out.push(`${literal}${current}`, `${current}${literal}`);
    }
  }
  return out;
}

/** Values to put in place of `value`: `donor`'s, then ones near `value`, then none (removed). */
export function nearby(value: unknown, donor: unknown, depth = 0): unknown[] {
  const out: unknown[] = [];
  if (donor !== undefined && !sameJson(donor, value)) out.push(donor);
  if (typeof value === 'number') out.push(value + 1, value - 1, 0, -value, value * 2 + 1);
  else if (typeof value === 'string') out.push('', value + value, value.slice(1), value.toUpperCase());
  else if (typeof value === 'boolean') out.push(!value);
  else if (Array.isArray(value)) out.push([], value.slice(1), [...value, ...value]);
  else if (isObject(value) && depth === 0)
    for (const [k, v] of Object.entries(value))
      for (const near of nearby(v, undefined, depth + 1)) {
        const { [k]: _old, ...rest } = value;
        out.push(near === undefined ? rest : { ...rest, [k]: near });
      }
  if (value !== undefined) out.push(undefined);
  return out.filter((v) => v === undefined || !sameJson(v, value));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const sameJson = (a: unknown, b: unknown): boolean =>
  a === undefined || b === undefined ? a === b : jsonEqual(a, b);
