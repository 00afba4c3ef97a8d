/**
 * @module An admission policy as an admin writes it (JSON or YAML), close to Kubernetes'
 * ValidatingAdmissionPolicy and its binding in one document: which changes it reviews (`match`: type
 * globs and operations; `matchConditions`: CEL), what it checks (`validations`: CEL, each with a
 * `message` or `messageExpression` and a `reason`), what a failed check does (`action`: Deny, Warn or
 * Audit), what an expression that cannot be evaluated does (`failurePolicy`), and a parameter object
 * (`params`). Read here into a checked value, every problem at once, each at its JSON pointer;
 * compiling the expressions is compile.ts's.
 */
import { globMatches, parseTypeGlobs } from '../auth/index.js';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import type { VerdictAction } from '../verdict.js';

export type PolicyOperation = 'CREATE' | 'UPDATE' | 'DELETE';
export type FailurePolicy = 'Fail' | 'Ignore';

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

export interface PolicyDocument {
  name: string;
  description?: string;
  match: { types: string[]; operations: PolicyOperation[] };
  matchConditions?: MatchCondition[];
  validations: Validation[];
  action: VerdictAction;
  /** What an expression that errors (or runs out of its cost budget) does: `Fail` (default) is a verdict of the policy's action, `Ignore` none. */
  failurePolicy?: FailurePolicy;
  params?: Record<string, unknown>;
}

/** Bounds on a document: what one policy may cost to store, compile and list. */
export const POLICY_LIMITS = {
  nameLength: 63,
  descriptionLength: 1024,
  matchConditions: 64,
  validations: 64,
  expressionLength: 5000,
  messageLength: 1024,
  /** The parameter object, as JSON. */
  paramsBytes: 64 * 1024,
} as const;

/** A DNS label, as Kubernetes names its policies: it goes in URLs, verdicts and audit records. */
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const REASON = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
const OPERATIONS: readonly PolicyOperation[] = ['CREATE', 'UPDATE', 'DELETE'];
const ACTIONS: readonly VerdictAction[] = ['Deny', 'Warn', 'Audit'];
const TOP = new Set([
  'name',
  'description',
  'match',
  'matchConditions',
  'validations',
  'action',
  'failurePolicy',
  'params',
]);

/** Whether a policy's `match` takes a change of `typeName` by `operation` (its conditions aside). */
export function matches(policy: PolicyDocument, typeName: string, operation: PolicyOperation): boolean {
  return (
    policy.match.operations.includes(operation) && policy.match.types.some((g) => globMatches(g, typeName))
  );
}

/**
 * The document as a checked policy; throws InvalidRequest naming every problem at its pointer
 * (`details`), so a file's editor or the CLI can show each at its line.
 */
export function readPolicy(value: unknown): PolicyDocument {
  const problems: ErrorDetail[] = [];
  const problem = (pointer: string, message: string) => problems.push({ pointer, message });
  if (!isObject(value)) {
    throw new TypeplaneError(
      'InvalidRequest',
      'a policy is an object: { name, match, validations, action, … }',
      [{ pointer: '', message: 'expected an object' }],
    );
  }
  for (const key of Object.keys(value))
    if (!TOP.has(key)) problem(`/${escape(key)}`, `unknown field '${key}' (fields: ${[...TOP].join(', ')})`);
  const name = text(value.name, '/name', problem, { required: true, max: POLICY_LIMITS.nameLength });
  if (name !== undefined && !NAME.test(name))
    problem(
      '/name',
      'a policy name is lower-case letters, digits and -, starting and ending with a letter or digit',
    );
  const description = text(value.description, '/description', problem, {
    max: POLICY_LIMITS.descriptionLength,
  });
  const match = readMatch(value.match, problem);
  const matchConditions = readList(
    value.matchConditions,
    '/matchConditions',
    POLICY_LIMITS.matchConditions,
    problem,
    {
      optional: true,
    },
  ).map((item, i) => readCondition(item, `/matchConditions/${i}`, problem));
  const names = matchConditions.map((c) => c.name);
  names.forEach((n, i) => {
    if (n !== '' && names.indexOf(n) !== i)
      problem(`/matchConditions/${i}/name`, `a second condition named '${n}'`);
  });
  const validations = readList(value.validations, '/validations', POLICY_LIMITS.validations, problem, {}).map(
    (item, i) => readValidation(item, `/validations/${i}`, problem),
  );
  const action = value.action;
  if (!ACTIONS.includes(action as VerdictAction))
    problem(
      '/action',
      `action must be one of ${ACTIONS.join(', ')}${action === undefined ? '' : `, not ${show(action)}`}`,
    );
  const failurePolicy = value.failurePolicy;
  if (failurePolicy !== undefined && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore')
    problem('/failurePolicy', `failurePolicy must be Fail or Ignore, not ${show(failurePolicy)}`);
  const params = value.params;
  if (params !== undefined) {
    if (!isObject(params)) problem('/params', 'params must be an object (the policy reads it as `params`)');
    else if (Buffer.byteLength(JSON.stringify(params)) > POLICY_LIMITS.paramsBytes)
      problem('/params', `params must be at most ${POLICY_LIMITS.paramsBytes / 1024} KiB of JSON`);
  }
  if (problems.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `the policy is not valid: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
      problems,
    );
  return {
    name: name!,
    ...(description !== undefined ? { description } : {}),
    match: match!,
    ...(matchConditions.length > 0 ? { matchConditions } : {}),
    validations,
    action: action as VerdictAction,
    ...(failurePolicy !== undefined ? { failurePolicy: failurePolicy as FailurePolicy } : {}),
    ...(params !== undefined ? { params: params as Record<string, unknown> } : {}),
  };
}

/**
 * What can still be read of a stored document that no longer reads (a hand-edited store, an upgrade
 * with stricter checks), to apply its failurePolicy safely: its `match`, `action` and
 * `failurePolicy` where they read, else the safe side — every type and operation, `Deny`, `Fail` —
 * as Kubernetes fails closed on a policy it cannot use unless told to ignore it.
 */
export function salvagePolicy(value: unknown, name: string): PolicyDocument {
  const doc = isObject(value) ? value : {};
  let unreadable = false;
  const match = readMatch(doc.match, () => (unreadable = true));
  const action = ACTIONS.includes(doc.action as VerdictAction) ? (doc.action as VerdictAction) : 'Deny';
  return {
    name,
    match: match && !unreadable ? match : { types: ['*'], operations: [...OPERATIONS] },
    validations: [],
    action,
    failurePolicy: doc.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
  };
}

type Problem = (pointer: string, message: string) => void;

function readMatch(value: unknown, problem: Problem): PolicyDocument['match'] | undefined {
  if (!isObject(value)) {
    problem(
      '/match',
      "match is required: { types: ['<type glob>', …], operations: [CREATE, UPDATE, DELETE] }",
    );
    return undefined;
  }
  for (const key of Object.keys(value))
    if (key !== 'types' && key !== 'operations')
      problem(`/match/${escape(key)}`, `unknown field '${key}' (fields: types, operations)`);
  let types: string[] = [];
  if (value.types === undefined)
    problem('/match/types', "types is required: type-name globs ('AWS::S3::*', or '*' for every type)");
  else
    try {
      types = parseTypeGlobs(value.types);
    } catch (e) {
      problem('/match/types', (e as Error).message);
    }
  const operations: PolicyOperation[] = [];
  const ops = value.operations;
  if (!Array.isArray(ops) || ops.length === 0)
    problem('/match/operations', 'operations is required: a list of CREATE, UPDATE, DELETE');
  else
    ops.forEach((op, i) => {
      if (!OPERATIONS.includes(op as PolicyOperation))
        problem(`/match/operations/${i}`, `an operation is CREATE, UPDATE or DELETE, not ${show(op)}`);
      else if (!operations.includes(op as PolicyOperation)) operations.push(op as PolicyOperation);
    });
  return { types, operations };
}

function readCondition(value: unknown, at: string, problem: Problem): MatchCondition {
  if (!isObject(value)) {
    problem(at, 'a match condition is { name, expression }');
    return { name: '', expression: '' };
  }
  unknownFields(value, at, ['name', 'expression'], problem);
  const name =
    text(value.name, `${at}/name`, problem, { required: true, max: POLICY_LIMITS.nameLength }) ?? '';
  const expression =
    text(value.expression, `${at}/expression`, problem, {
      required: true,
      max: POLICY_LIMITS.expressionLength,
    }) ?? '';
  return { name, expression };
}

function readValidation(value: unknown, at: string, problem: Problem): Validation {
  if (!isObject(value)) {
    problem(at, 'a validation is { expression, message?, messageExpression?, reason? }');
    return { expression: '' };
  }
  unknownFields(value, at, ['expression', 'message', 'messageExpression', 'reason'], problem);
  const expression =
    text(value.expression, `${at}/expression`, problem, {
      required: true,
      max: POLICY_LIMITS.expressionLength,
    }) ?? '';
  const message = text(value.message, `${at}/message`, problem, { max: POLICY_LIMITS.messageLength });
  const messageExpression = text(value.messageExpression, `${at}/messageExpression`, problem, {
    max: POLICY_LIMITS.expressionLength,
  });
  const reason = text(value.reason, `${at}/reason`, problem, { max: 64 });
  if (reason !== undefined && !REASON.test(reason))
    problem(
      `${at}/reason`,
      'a reason is one word of letters and digits (Forbidden, Invalid, Unauthorized, …)',
    );
  return {
    expression,
    ...(message !== undefined ? { message } : {}),
    ...(messageExpression !== undefined ? { messageExpression } : {}),
    ...(reason !== undefined ? { reason } : {}),
  };
}

function readList(
  value: unknown,
  at: string,
  max: number,
  problem: Problem,
  { optional }: { optional?: boolean },
): unknown[] {
  if (value === undefined && optional) return [];
  if (!Array.isArray(value) || (value.length === 0 && !optional)) {
    problem(at, `${at.slice(1)} must be a list of at least one item`);
    return [];
  }
  if (value.length > max) {
    problem(at, `${at.slice(1)} may have at most ${max} items`);
    return value.slice(0, max);
  }
  return value;
}

function text(
  value: unknown,
  at: string,
  problem: Problem,
  { required, max }: { required?: boolean; max: number },
): string | undefined {
  if (value === undefined) {
    if (required) problem(at, `${at.split('/').pop()!} is required`);
    return undefined;
  }
  if (typeof value !== 'string' || (required && value.trim() === '')) {
    problem(at, `${at.split('/').pop()!} must be ${required ? 'a non-empty' : 'a'} string`);
    return undefined;
  }
  if (value.length > max) problem(at, `${at.split('/').pop()!} must be at most ${max} characters`);
  return value;
}

function unknownFields(value: Record<string, unknown>, at: string, known: string[], problem: Problem): void {
  for (const key of Object.keys(value))
    if (!known.includes(key))
      problem(`${at}/${escape(key)}`, `unknown field '${key}' (fields: ${known.join(', ')})`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function show(value: unknown): string {
  return (JSON.stringify(value) ?? String(value)).slice(0, 40);
}
