/**
 * @module Intrinsic functions, evaluated late against a scope: what the parameters are, which
 * conditions hold, and what the resources that already ran look like. Pure: values in, values out.
 *
 * A value that depends on a resource not yet applied is {@link Unknown} ("known after apply"), a
 * first-class value that flows through every function; it is not an error.
 */
import { escapePointerToken } from '../schema/diagnostics.js';
import { cidrBlocks } from './cidr.js';
import { transformRefusal } from './language-extensions/transforms.js';

/** A value known only once the resources named in `sources` (`Db`, `Db.Port`) have been applied. */
export class Unknown {
  constructor(readonly sources: readonly string[]) {}
  toJSON(): string {
    return KNOWN_AFTER_APPLY;
  }
}

export const KNOWN_AFTER_APPLY = '(known after apply)';

/** `AWS::NoValue`: the property (or list item) is removed. */
export const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

/** A problem found while evaluating: where it is (a pointer into the template), and which rule. */
export class EvaluationError extends Error {
  constructor(
    readonly rule: 'TP4014' | 'TP4007' | 'TP4008' | 'TP4015' | 'TP4018' | 'TP4021',
    readonly pointer: string,
    message: string,
  ) {
    super(message);
    this.name = 'EvaluationError';
  }
}

/**
 * The evaluation's work budget ({@link EVALUATION_BUDGET}) is spent: what its scope evaluates after
 * is refused the same way, at once, and needs no diagnostic of its own.
 */
export class EvaluationBudgetExceeded extends EvaluationError {}

export type ParameterValue = string | number | string[] | number[];

/** What one resource looks like to its dependants once it has been applied. */
export interface AppliedResource {
  identifier: string;
  /** What `Ref` gives, when not the identifier (see ref-value.ts). */
  ref?: string;
  /** Its model as last read (write-only values excluded). */
  model: Record<string, unknown>;
}

export interface Scope {
  stackName: string;
  stackId: string;
  pseudo: PseudoParameters;
  parameters: ReadonlyMap<string, ParameterValue | Unknown>;
  mappings: Record<string, unknown>;
  /** A condition's value; Unknown while its parameters are (validation without values). */
  condition(name: string, pointer: string): boolean | Unknown;
  /** Whether a logical id names a resource of the template. */
  declared(logicalId: string): boolean;
  /** Undefined: the resource has not been applied (yet). */
  applied(logicalId: string): AppliedResource | undefined;
  /** False when the resource's condition does not hold: it is not part of the stack. */
  included(logicalId: string): boolean | Unknown;
  /** The value another stack exports, or undefined; Unknown while no stack is deployed (validation). */
  importValue(name: string): string | Unknown | undefined;
  /** Whether an expression's value comes from a secret (a NoEcho parameter, a secret export). */
  hides(expression: unknown): boolean;
}

export interface PseudoParameters {
  region: string;
  accountId: string;
  partition: string;
  urlSuffix: string;
}

/** The defaults a server uses when no settings are given (documented in docs/stacks.md). */
export const DEFAULT_PSEUDO: PseudoParameters = {
  region: 'us-east-1',
  accountId: '123456789012',
  partition: 'aws',
  urlSuffix: 'amazonaws.com',
};

export const PSEUDO_NAMES = [
  'AWS::StackName',
  'AWS::StackId',
  'AWS::Region',
  'AWS::AccountId',
  'AWS::Partition',
  'AWS::URLSuffix',
  'AWS::NoValue',
  'AWS::NotificationARNs',
] as const;

/** The names of the functions this evaluator knows, as written in long form. */
export const FUNCTION_NAMES = [
  'Ref',
  'Fn::GetAtt',
  'Fn::Sub',
  'Fn::Join',
  'Fn::Select',
  'Fn::Split',
  'Fn::If',
  'Fn::Equals',
  'Fn::And',
  'Fn::Or',
  'Fn::Not',
  'Fn::FindInMap',
  'Fn::Base64',
  'Fn::ToJsonString',
  'Fn::ImportValue',
  'Fn::GetAZs',
  'Fn::Length',
  'Fn::Cidr',
] as const;

const KNOWN = new Set<string>(FUNCTION_NAMES);

/** The function a value calls, if it is an intrinsic (an object with one `Ref`/`Fn::*` key). */
export function intrinsicOf(value: unknown): { name: string; argument: unknown } | undefined {
  const name = soleKeyOf(value);
  if (name === undefined || (name !== 'Ref' && !name.startsWith('Fn::'))) return undefined;
  return { name, argument: (value as Record<string, unknown>)[name] };
}

/**
 * The one own key of a mapping, undefined for anything else: read without a list of the keys made,
 * as every mapping a template evaluates is asked this.
 */
function soleKeyOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let sole: string | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (sole !== undefined) return undefined;
    sole = key;
  }
  return sole;
}

export function isKnownFunction(name: string): boolean {
  return KNOWN.has(name);
}

type Value = unknown;

/**
 * Evaluate a template value: intrinsics resolved, `AWS::NoValue` removed, Unknown where not yet known.
 * The value is bounded as a resource's body over the API is: a template of references to one large
 * parameter cannot grow into gigabytes.
 */
export function evaluate(value: Value, scope: Scope, pointer: string): Value {
  // Once the budget is spent, nothing more is evaluated: refused at once.
  charge(scope, 0, pointer);
  const out = evaluateValue(value, scope, pointer);
  // What a resource or an output is handed is conformed, validated, copied, masked and shown: each
  // character of it costs the evaluation as much as one a function builds.
  chargeValue(scope, out, pointer, VALUE_OVER_BOUND);
  return out;
}

/** The most characters one evaluated value (a resource's properties, an output, a built string) holds. */
export const MAX_VALUE_CHARS = 1024 * 1024;
// Made once: formatting a number for the message cost each evaluation more than the charge itself.
const VALUE_OVER_BOUND = `the value is over ${MAX_VALUE_CHARS.toLocaleString('en-US')} characters of JSON, the most a resource's properties or an output may hold`;
/**
 * The work one evaluation (a validation, a plan, a deployment) may do, in characters: what the
 * functions build, split, compare or serialise, and every value handed to a resource or an output.
 * At a few tens of nanoseconds a character for all that is done with it after (conforming,
 * validating, a plan's copy, mask and answer), it holds one evaluation to ~100 ms of the event loop.
 */
export const EVALUATION_BUDGET = 4 * 1024 * 1024;
const spent = new WeakMap<Scope, number>();

function budgetLeft(scope: Scope): number {
  return Math.max(0, EVALUATION_BUDGET - (spent.get(scope) ?? 0));
}

/** Charge `units` of work to the scope's evaluation; over the budget, refused where it went over. */
function charge(scope: Scope, units: number, pointer: string): void {
  const total = (spent.get(scope) ?? 0) + units;
  if (total > EVALUATION_BUDGET) {
    spent.set(scope, Number.POSITIVE_INFINITY);
    throw new EvaluationBudgetExceeded(
      'TP4014',
      pointer,
      `evaluating the template would cost over ${EVALUATION_BUDGET.toLocaleString('en-US')} characters of work in all (characters built, split, compared, or handed to resources and outputs); here it went over: use smaller values, or fewer copies of a large one`,
    );
  }
  spent.set(scope, total);
}

/** Count `chars` a function is about to build against the value's and the scope's bounds. */
function spend(scope: Scope, chars: number, pointer: string, what: string): void {
  if (chars > MAX_VALUE_CHARS)
    fail(
      pointer,
      `${what} would build ${chars.toLocaleString('en-US')} characters; a value holds at most ${MAX_VALUE_CHARS.toLocaleString('en-US')}`,
    );
  charge(scope, chars, pointer);
}

/** `value`'s size as JSON (about), counted only up to `limit`: past it, `limit` is answered. */
function jsonSize(value: Value, limit: number): number {
  let size = 0;
  const stack: Value[] = [value];
  while (stack.length > 0 && size < limit) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      // Past the limit, a long list is not walked.
      if (size < limit) for (const item of v) stack.push(item);
    } else if (v instanceof Unknown) size += KNOWN_AFTER_APPLY.length + 2;
    else if (typeof v === 'object' && v !== null) {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        size += k.length + 4;
        stack.push((v as Record<string, Value>)[k]);
      }
    } else size += 8;
  }
  return Math.min(size, limit);
}

/** Charge reading `value` whole (to hand it over, serialise or join it); over a value's bound, `overBound`. */
function chargeValue(scope: Scope, value: Value, pointer: string, overBound: string): void {
  const size = jsonSize(value, Math.min(MAX_VALUE_CHARS, budgetLeft(scope)) + 1);
  if (size > MAX_VALUE_CHARS) fail(pointer, overBound);
  charge(scope, size, pointer);
}

function buildsTooMuch(what: string): string {
  return `${what} would build over ${MAX_VALUE_CHARS.toLocaleString('en-US')} characters, the most a value holds`;
}

function evaluateValue(value: Value, scope: Scope, pointer: string): Value {
  if (Array.isArray(value)) {
    const out: Value[] = [];
    for (let i = 0; i < value.length; i++) {
      const v = evaluateValue(value[i], scope, `${pointer}/${i}`);
      if (v !== NO_VALUE) out.push(v);
    }
    return out;
  }
  if (typeof value !== 'object' || value === null) return value;
  const call = intrinsicOf(value);
  if (call)
    return callFunction(call.name, call.argument, scope, `${pointer}/${escapePointerToken(call.name)}`);
  const out: Record<string, Value> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = evaluateValue(
      (value as Record<string, Value>)[key],
      scope,
      `${pointer}/${escapePointerToken(key)}`,
    );
    if (v !== NO_VALUE) out[key] = v;
  }
  return out;
}

/**
 * A resource's Properties evaluated: a mapping, which a function may give as a whole
 * (`Properties: !If [Cond, {…}, !Ref AWS::NoValue]`; AWS::NoValue is no properties at all).
 */
export function evaluateProperties(properties: Value, scope: Scope, pointer: string): Value {
  const value = evaluate(properties, scope, pointer);
  if (value === NO_VALUE) return {};
  if (value instanceof Unknown) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(pointer, `Properties must be a mapping, not ${describe(value)}`);
  return value;
}

/** Evaluate a condition expression (`Fn::Equals`, `Fn::And`, …, `{ Condition: name }`). */
export function evaluateCondition(value: Value, scope: Scope, pointer: string): boolean | Unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'Condition') {
      const name = (value as { Condition: unknown }).Condition;
      if (typeof name !== 'string')
        throw new EvaluationError(
          'TP4014',
          `${pointer}/Condition`,
          'Condition must name a condition (a string)',
        );
      return scope.condition(name, `${pointer}/Condition`);
    }
  }
  const result = evaluateValue(value, scope, pointer);
  if (result instanceof Unknown) return result;
  if (typeof result === 'boolean') return result;
  if (result === 'true' || result === 'false') return result === 'true';
  throw new EvaluationError(
    'TP4014',
    pointer,
    'a condition must be Fn::Equals, Fn::And, Fn::Or, Fn::Not or {Condition: name}',
  );
}

function unknownOf(values: readonly Value[]): Unknown | undefined {
  const unknowns = values.filter((v): v is Unknown => v instanceof Unknown);
  if (unknowns.length === 0) return undefined;
  return new Unknown([...new Set(unknowns.flatMap((u) => u.sources))]);
}

/** Whether a value holds an Unknown anywhere inside. */
export function containsUnknown(value: Value): boolean {
  if (value instanceof Unknown) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(containsUnknown);
  return false;
}

function fail(pointer: string, message: string): never {
  throw new EvaluationError('TP4014', pointer, message);
}

function args(argument: Value, pointer: string, name: string, min: number, max = min): Value[] {
  if (!Array.isArray(argument) || argument.length < min || argument.length > max)
    fail(
      pointer,
      `${name} takes a list of ${min === max ? min : `${min} to ${max}`} values, not ${describe(argument)}`,
    );
  return argument;
}

function describe(value: Value): string {
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value === null) return 'null';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

function text(value: Value, pointer: string, what: string): string | Unknown {
  if (value instanceof Unknown) return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fail(pointer, `${what} must be a string, not ${describe(value)}`);
}

function callFunction(name: string, argument: Value, scope: Scope, pointer: string): Value {
  switch (name) {
    case 'Ref':
      if (typeof argument !== 'string') fail(pointer, 'Ref takes the name of a parameter or a resource');
      return ref(argument, scope, pointer);
    case 'Fn::GetAtt':
      return getAtt(argument, scope, pointer);
    case 'Fn::Sub':
      return sub(argument, scope, pointer);
    case 'Fn::Join': {
      const [sep, list] = args(argument, pointer, 'Fn::Join', 2);
      const separator = evaluateValue(sep, scope, `${pointer}/0`);
      const items = evaluateValue(list, scope, `${pointer}/1`);
      if (items instanceof Unknown) return items;
      if (!Array.isArray(items)) fail(`${pointer}/1`, 'Fn::Join joins a list');
      charge(scope, items.length, pointer);
      const parts = items.map((v, i) => text(v, `${pointer}/1/${i}`, 'each item joined'));
      const unknown = unknownOf([separator, ...parts]);
      if (unknown) return unknown;
      const glue = text(separator, `${pointer}/0`, 'the separator') as string;
      const length = (parts as string[]).reduce(
        (n, p) => n + p.length,
        glue.length * Math.max(0, parts.length - 1),
      );
      spend(scope, length, pointer, 'Fn::Join');
      return parts.join(glue);
    }
    case 'Fn::Select': {
      const [index, list] = args(argument, pointer, 'Fn::Select', 2);
      const i = evaluateValue(index, scope, `${pointer}/0`);
      const items = evaluateValue(list, scope, `${pointer}/1`);
      const unknown = unknownOf([i, items]);
      if (unknown) return unknown;
      const n = Number(i);
      if (!Array.isArray(items)) fail(`${pointer}/1`, 'Fn::Select selects from a list');
      if (!Number.isInteger(n) || n < 0 || n >= items.length)
        fail(`${pointer}/0`, `index ${operand(scope, index, i)} is outside the list of ${items.length}`);
      return items[n];
    }
    case 'Fn::Split': {
      const [sep, source] = args(argument, pointer, 'Fn::Split', 2);
      const separator = text(evaluateValue(sep, scope, `${pointer}/0`), `${pointer}/0`, 'the separator');
      const whole = text(evaluateValue(source, scope, `${pointer}/1`), `${pointer}/1`, 'the value split');
      const unknown = unknownOf([separator, whole]);
      if (unknown) return unknown;
      if (separator === '') fail(`${pointer}/0`, 'the separator of Fn::Split cannot be empty');
      // The string is read, then each item made: both are charged, the items before they are made.
      charge(scope, (whole as string).length, pointer);
      charge(scope, 3 * occurrences(whole as string, separator as string), pointer);
      return (whole as string).split(separator as string);
    }
    case 'Fn::If': {
      const [condition, then, otherwise] = args(argument, pointer, 'Fn::If', 3);
      if (typeof condition !== 'string') fail(`${pointer}/0`, 'Fn::If names a condition first');
      const holds = scope.condition(condition, `${pointer}/0`);
      if (holds instanceof Unknown) return holds;
      return holds
        ? evaluateValue(then, scope, `${pointer}/1`)
        : evaluateValue(otherwise, scope, `${pointer}/2`);
    }
    case 'Fn::Equals': {
      const [a, b] = args(argument, pointer, 'Fn::Equals', 2);
      const left = evaluateValue(a, scope, `${pointer}/0`);
      const right = evaluateValue(b, scope, `${pointer}/1`);
      const unknown = unknownOf([left, right]);
      if (unknown) return unknown;
      // Both sides are serialised to be compared: charged before.
      for (const side of [left, right]) charge(scope, jsonSize(side, budgetLeft(scope) + 1), pointer);
      return JSON.stringify(scalarText(left)) === JSON.stringify(scalarText(right));
    }
    case 'Fn::And':
    case 'Fn::Or': {
      const items = args(argument, pointer, name, 2, 10);
      const values = items.map((v, i) => evaluateCondition(v, scope, `${pointer}/${i}`));
      const known = values.filter((v): v is boolean => typeof v === 'boolean');
      if (name === 'Fn::And' && known.includes(false)) return false;
      if (name === 'Fn::Or' && known.includes(true)) return true;
      return unknownOf(values) ?? name === 'Fn::And';
    }
    case 'Fn::Not': {
      const [inner] = args(argument, pointer, 'Fn::Not', 1);
      const v = evaluateCondition(inner, scope, `${pointer}/0`);
      return v instanceof Unknown ? v : !v;
    }
    case 'Fn::FindInMap':
      return findInMap(argument, scope, pointer);
    case 'Fn::Base64': {
      const v = text(evaluateValue(argument, scope, pointer), pointer, 'the value of Fn::Base64');
      if (v instanceof Unknown) return v;
      spend(scope, Math.ceil((Buffer.byteLength(v) * 4) / 3), pointer, 'Fn::Base64');
      return Buffer.from(v, 'utf8').toString('base64');
    }
    case 'Fn::ToJsonString': {
      const v = evaluateValue(argument, scope, pointer);
      chargeValue(scope, v, pointer, buildsTooMuch('Fn::ToJsonString'));
      if (containsUnknown(v)) return unknownOf([collectUnknown(v)!])!;
      if (typeof v !== 'object' || v === null) fail(pointer, 'Fn::ToJsonString takes a mapping or a list');
      const json = JSON.stringify(v);
      spend(scope, json.length, pointer, 'Fn::ToJsonString');
      return json;
    }
    case 'Fn::ImportValue': {
      const exportName = text(evaluateValue(argument, scope, pointer), pointer, 'the export name');
      if (exportName instanceof Unknown) return exportName;
      const imported = scope.importValue(exportName);
      if (imported instanceof Unknown) return imported;
      if (imported === undefined)
        throw new EvaluationError(
          'TP4021',
          pointer,
          `no stack exports '${operand(scope, argument, exportName)}'; deploy the stack that exports it first, or check the name`,
        );
      return imported;
    }
    case 'Fn::GetAZs': {
      const region = evaluateValue(argument, scope, pointer);
      if (region instanceof Unknown) return region;
      const r = region === '' || region === undefined ? scope.pseudo.region : String(region);
      return ['a', 'b', 'c'].map((zone) => `${r}${zone}`);
    }
    case 'Fn::Cidr': {
      const items = args(argument, pointer, 'Fn::Cidr', 3).map((v, i) =>
        evaluateValue(v, scope, `${pointer}/${i}`),
      );
      const unknown = unknownOf(items);
      if (unknown) return unknown;
      const block = text(items[0], `${pointer}/0`, 'the address block');
      const blocks = cidrBlocks(block as string, Number(items[1]), Number(items[2]));
      if (typeof blocks === 'string') fail(pointer, `Fn::Cidr: ${blocks}`);
      charge(scope, 48 * blocks.length, pointer);
      return blocks;
    }
    case 'Fn::Length': {
      const v = evaluateValue(argument, scope, pointer);
      if (v instanceof Unknown) return v;
      if (!Array.isArray(v)) fail(pointer, 'Fn::Length takes a list');
      return v.length;
    }
    case 'Fn::Transform': {
      // A macro (or AWS::Include) run on a snippet: refused by name, with what to do instead.
      const macro = (typeof argument === 'object' && argument !== null ? argument : {}) as {
        Name?: unknown;
        Parameters?: { Location?: unknown };
      };
      const name = typeof macro.Name === 'string' ? macro.Name : '(no Name)';
      throw new EvaluationError(
        'TP4018',
        pointer,
        `Fn::Transform ${transformRefusal(name, macro.Parameters?.Location)}`,
      );
    }
    default:
      throw new EvaluationError(
        'TP4018',
        pointer,
        `${name} is not supported; use ${FUNCTION_NAMES.filter((f) => f !== 'Ref').join(', ')}`,
      );
  }
}

function collectUnknown(value: Value): Unknown | undefined {
  if (value instanceof Unknown) return value;
  const children = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : [];
  return unknownOf(children.map(collectUnknown).filter((u) => u !== undefined));
}

/** How many times `separator` (not empty) occurs in `text`, without making the pieces. */
function occurrences(text: string, separator: string): number {
  let count = 0;
  for (let at = text.indexOf(separator); at >= 0; at = text.indexOf(separator, at + separator.length))
    count++;
  return count;
}

/** An operand as an error quotes it: one that comes from a secret is not quoted. */
function operand(scope: Scope, expression: Value, value: Value): string {
  return scope.hides(expression) ? '(hidden: NoEcho)' : String(value);
}

function scalarText(value: Value): Value {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

function ref(name: string, scope: Scope, pointer: string): Value {
  switch (name) {
    case 'AWS::StackName':
      return scope.stackName;
    case 'AWS::StackId':
      return stackArn(scope);
    case 'AWS::Region':
      return scope.pseudo.region;
    case 'AWS::AccountId':
      return scope.pseudo.accountId;
    case 'AWS::Partition':
      return scope.pseudo.partition;
    case 'AWS::URLSuffix':
      return scope.pseudo.urlSuffix;
    case 'AWS::NoValue':
      return NO_VALUE;
    case 'AWS::NotificationARNs':
      return [];
  }
  const parameter = scope.parameters.get(name);
  if (parameter !== undefined) return parameter;
  if (scope.declared(name)) {
    assertIncluded(name, scope, pointer);
    const applied = scope.applied(name);
    return applied ? (applied.ref ?? applied.identifier) : new Unknown([name]);
  }
  throw new EvaluationError(
    'TP4007',
    pointer,
    `Ref '${name}' names no parameter, resource or pseudo parameter; declare it or check its spelling`,
  );
}

/**
 * `AWS::StackId` as CloudFormation has it, an ARN ending in the stack's UUID
 * (`arn:aws:cloudformation:us-east-1:123456789012:stack/<name>/<uuid>`), so the usual
 * `!Select [2, !Split ['/', !Ref AWS::StackId]]` finds the UUID. Known once the stack exists: a
 * validation, or the plan of a stack not created yet, has it known after apply.
 */
function stackArn(scope: Scope): string | Unknown {
  const uuid = /^typeplane:stack\/[^/]+\/([^/]+)$/.exec(scope.stackId)?.[1];
  if (uuid === undefined) return new Unknown(['AWS::StackId']);
  const { partition, region, accountId } = scope.pseudo;
  return `arn:${partition}:cloudformation:${region}:${accountId}:stack/${scope.stackName}/${uuid}`;
}

function assertIncluded(logicalId: string, scope: Scope, pointer: string): void {
  if (scope.included(logicalId) === false)
    throw new EvaluationError(
      'TP4007',
      pointer,
      `${logicalId} is not created (its Condition is false): refer to it only under the same condition (Fn::If)`,
    );
}

/** The logical id and the attribute path (`Endpoint.Port` → ['Endpoint', 'Port']) of a GetAtt. */
/**
 * Whether a GetAtt's `[LogicalId, Attribute]` names its attribute with a `Ref` (to a parameter), as
 * CloudFormation allows: known when the template is evaluated, not when it is read.
 */
export function isNamedLater(parts: readonly Value[]): boolean {
  const [id, attribute] = parts;
  return (
    typeof id === 'string' &&
    typeof attribute === 'object' &&
    attribute !== null &&
    !Array.isArray(attribute) &&
    Object.keys(attribute).length === 1 &&
    'Ref' in attribute
  );
}

export function getAttTarget(argument: Value): { logicalId: string; path: string[] } | undefined {
  let parts: Value[] | undefined;
  if (typeof argument === 'string') {
    const dot = argument.indexOf('.');
    parts = dot < 0 ? [argument] : [argument.slice(0, dot), argument.slice(dot + 1)];
  } else if (Array.isArray(argument)) parts = argument;
  if (!parts || parts.length !== 2 || typeof parts[0] !== 'string' || typeof parts[1] !== 'string')
    return undefined;
  if (parts[1] === '') return undefined;
  return { logicalId: parts[0], path: parts[1].split('.') };
}

function getAtt(argument: Value, scope: Scope, pointer: string): Value {
  // `[LogicalId, {Ref: Parameter}]`: CloudFormation takes the attribute's name from a parameter.
  if (Array.isArray(argument) && argument.length === 2 && isNamedLater(argument)) {
    const name = evaluateValue(argument[1], scope, `${pointer}/1`);
    if (name instanceof Unknown) return name;
    if (typeof name !== 'string' || name === '')
      fail(`${pointer}/1`, "Fn::GetAtt's attribute, given by a function, must be a non-empty string");
    argument = [argument[0], name];
  }
  const target = getAttTarget(argument);
  if (!target) fail(pointer, 'Fn::GetAtt takes [LogicalId, Attribute] (attributes nest with dots)');
  const { logicalId, path } = target;
  if (!scope.declared(logicalId))
    throw new EvaluationError(
      'TP4008',
      pointer,
      `Fn::GetAtt names ${logicalId}, which is not a resource of this template`,
    );
  assertIncluded(logicalId, scope, pointer);
  const applied = scope.applied(logicalId);
  const attribute = `${logicalId}.${path.join('.')}`;
  if (!applied) return new Unknown([attribute]);
  let value: Value = applied.model;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) {
      value = undefined;
      break;
    }
    value = (value as Record<string, Value>)[key];
  }
  if (value === undefined || value === null)
    throw new EvaluationError(
      'TP4008',
      pointer,
      `Fn::GetAtt ${attribute}: ${logicalId} (${applied.identifier}) has no value for '${path.join('.')}' — its provider did not set it`,
    );
  return value;
}

function findInMap(argument: Value, scope: Scope, pointer: string): Value {
  const items = args(argument, pointer, 'Fn::FindInMap', 3, 4);
  const keys = items
    .slice(0, 3)
    .map((v, i) => text(evaluateValue(v, scope, `${pointer}/${i}`), `${pointer}/${i}`, 'a key'));
  const unknown = unknownOf(keys);
  if (unknown) return unknown;
  const [mapName, top, second] = keys as string[];
  const fallback = items[3] as { DefaultValue?: Value } | undefined;
  const map = (scope.mappings as Record<string, Record<string, Record<string, Value>> | undefined>)[mapName!];
  if (!map)
    throw new EvaluationError(
      'TP4015',
      `${pointer}/0`,
      `no mapping named '${operand(scope, items[0], mapName)}' in Mappings`,
    );
  const value = map[top!]?.[second!];
  if (value === undefined) {
    if (fallback && typeof fallback === 'object' && 'DefaultValue' in fallback)
      return evaluateValue(fallback.DefaultValue, scope, `${pointer}/3/DefaultValue`);
    const [mapKey, topKey, secondKey] = keys.map((key, i) => operand(scope, items[i], key));
    throw new EvaluationError(
      'TP4015',
      pointer,
      map[top!] === undefined
        ? `mapping '${mapKey}' has no key '${topKey}'`
        : `mapping '${mapKey}' has no key '${secondKey}' under '${topKey}'`,
    );
  }
  return value;
}

export type SubPiece = { literal: string } | { variable: string };

/** Each Fn::Sub text's pieces, by text: a template evaluated again (a recipe's, per instance) reads them once. */
const piecesOf = new Map<string, readonly SubPiece[]>();
/** Texts whose pieces are kept; past it, the map starts again (a longer text is not kept). */
const KEPT_PIECES = 1024;
const MAX_KEPT_TEXT = 4096;

/**
 * The pieces of an `Fn::Sub` string: literal text and `${name}` variables (`${!x}` is the literal
 * `${x}`). Read-only: one text's pieces are shared by every use.
 */
export function subPieces(template: string): readonly SubPiece[] {
  let pieces = piecesOf.get(template);
  if (pieces) return pieces;
  pieces = parseSub(template);
  if (template.length <= MAX_KEPT_TEXT) {
    if (piecesOf.size >= KEPT_PIECES) piecesOf.clear();
    piecesOf.set(template, pieces);
  }
  return pieces;
}

function parseSub(template: string): readonly SubPiece[] {
  const pieces: SubPiece[] = [];
  let at = 0;
  for (;;) {
    const start = template.indexOf('${', at);
    if (start < 0) break;
    const end = template.indexOf('}', start + 2);
    if (end < 0) break;
    if (start > at) pieces.push({ literal: template.slice(at, start) });
    const inner = template.slice(start + 2, end);
    if (inner.startsWith('!')) pieces.push({ literal: `\${${inner.slice(1)}}` });
    else pieces.push({ variable: inner.trim() });
    at = end + 1;
  }
  if (at < template.length) pieces.push({ literal: template.slice(at) });
  return pieces;
}

function sub(argument: Value, scope: Scope, pointer: string): Value {
  let template: Value;
  let variables: Record<string, Value> = {};
  if (Array.isArray(argument)) {
    const [t, vars] = args(argument, pointer, 'Fn::Sub', 2);
    if (typeof vars !== 'object' || vars === null || Array.isArray(vars))
      fail(`${pointer}/1`, 'the second value of Fn::Sub maps variable names to values');
    template = t;
    variables = vars as Record<string, Value>;
  } else template = argument;
  if (typeof template !== 'string') fail(pointer, 'Fn::Sub takes a string, or [string, {variables}]');
  const parts: Value[] = [];
  let chars = 0;
  let unknown = false;
  for (const piece of subPieces(template)) {
    if ('literal' in piece) {
      parts.push(piece.literal);
      chars += piece.literal.length;
      continue;
    }
    const name = piece.variable;
    let value: Value;
    if (Object.hasOwn(variables, name)) {
      value = evaluateValue(variables[name], scope, `${pointer}/1/${escapePointerToken(name)}`);
    } else if (name.includes('.') && !name.startsWith('AWS::')) {
      value = getAtt(name, scope, pointer);
    } else {
      value = ref(name, scope, pointer);
    }
    if (Array.isArray(value)) {
      chargeValue(scope, value, pointer, buildsTooMuch('Fn::Sub'));
      value = value.join(',');
    }
    // A string as it is (most are); anything else as `text` has it, or refused there.
    const built = typeof value === 'string' ? value : text(value, pointer, `\${${name}}`);
    if (typeof built === 'string') chars += built.length;
    else unknown = true;
    parts.push(built);
  }
  if (unknown) return unknownOf(parts)!;
  spend(scope, chars, pointer, 'Fn::Sub');
  return parts.join('');
}
