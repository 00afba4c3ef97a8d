/**
 * @module A policy's expressions compiled once, with the project's CEL evaluator (src/cel): each
 * checked against the policy's variables, every problem located (the document's pointer, and the
 * line and column in the expression). `object`, `oldObject` are `dyn` (a policy spans types);
 * `request` is an object of known fields, so a misspelt one is refused at registration; `params` is
 * typed from the policy's own parameter object.
 *
 * Cost, as Kubernetes' ValidatingAdmissionPolicy has it: no static limit, since over `dyn` values
 * only the request body bounds, every expression that iterates a list of `object` would be over it
 * (the estimate cannot see a `size()` guard). Each evaluation is charged a bound over the change's
 * own values before it runs (src/cel/charge.ts), within `CALL_COST_LIMIT` and the change's budget
 * (see evaluate.ts). Refused here is only what can never fit: an expression whose cost on the
 * smallest change — what params and literals alone make it do — is over the per-call limit.
 */
import {
  CALL_COST_LIMIT,
  compileExpression,
  DYN,
  sizedType,
  toCel,
  type CelVariables,
  type CompiledExpression,
  type ValueType,
} from '../cel/index.js';
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import type { PolicyDocument } from './document.js';
import type { Compiled } from './policies.js';

/** What a policy's `request` holds; a fact not known is the empty string (never absent, so no expression fails on it). */
export const REQUEST_FIELDS = [
  'operation',
  'typeName',
  'identifier',
  'tokenId',
  'role',
  'description',
  'stack',
] as const;
export type RequestFacts = Record<(typeof REQUEST_FIELDS)[number], string> & { dryRun: boolean };

// Exact: a request has these fields and no other.
const requestOf = (maxSize: number): ValueType => ({
  kind: 'object',
  properties: new Map<string, ValueType>([
    ...REQUEST_FIELDS.map((f): [string, ValueType] => [f, { kind: 'string', maxSize }]),
    ['dryRun', { kind: 'bool' }],
  ]),
  maxSize: REQUEST_FIELDS.length + 1,
  exact: true,
});
const REQUEST = requestOf(4096);

/** The smallest change: no object, every request string empty (sizes of 0 wherever a type leaves them open). */
const NOTHING: ValueType = { kind: 'dyn', maxSize: 0 };
const SMALLEST = { object: NOTHING, oldObject: NOTHING, request: requestOf(0) };

export interface CompiledValidation {
  expression: CompiledExpression;
  message?: string;
  messageExpression?: CompiledExpression;
  reason?: string;
}

export interface CompiledPolicy extends Compiled {
  conditions: { name: string; expression: CompiledExpression }[];
  validations: CompiledValidation[];
  /** `params` as CEL reads it, made once. */
  params: ReturnType<typeof toCel>;
  /** Why a stored policy does not compile here: it runs no expression, and follows its failurePolicy. */
  notCompiled?: string;
}

/** A stored policy that does not compile (see Policies): it stands for its failurePolicy on what it matches. */
export function notCompiledPolicy(policy: PolicyDocument, reason: string): CompiledPolicy {
  return { policy, conditions: [], validations: [], params: toCel({}), notCompiled: reason };
}

/** The policy compiled; throws InvalidRequest naming every expression that does not compile or could never run. */
export function compilePolicy(policy: PolicyDocument): CompiledPolicy {
  const params = toCel(policy.params ?? {});
  const paramsType = sizedType(DYN, params);
  const variables: CelVariables = { object: DYN, oldObject: DYN, request: REQUEST, params: paramsType };
  const smallest: CelVariables = { ...SMALLEST, params: paramsType };
  const problems: ErrorDetail[] = [];
  const compile = (source: string, pointer: string, expect: 'bool' | 'string') => {
    const result = compileExpression(source, variables, { expect, callLimit: CALL_COST_LIMIT });
    if (!result.ok) {
      for (const p of result.problems)
        problems.push({ pointer, message: p.message, line: p.line, column: p.column });
      return undefined;
    }
    const least = result.expression.estimate(smallest, 0);
    if (least > CALL_COST_LIMIT)
      problems.push({
        pointer,
        message: `even on the smallest change (object and oldObject empty, request's strings empty) its estimated cost is ${least} units, more than the ${CALL_COST_LIMIT} one evaluation may cost, so it could never run: its cost is in what it does whatever the change (params, literals) — iterate fewer of their items, nest fewer comprehensions over them`,
        line: 1,
        column: 1,
      });
    return result.expression;
  };
  const conditions = (policy.matchConditions ?? []).map((c, i) => ({
    name: c.name,
    expression: compile(c.expression, `/matchConditions/${i}/expression`, 'bool')!,
  }));
  const validations = policy.validations.map((v, i): CompiledValidation => {
    const messageExpression =
      v.messageExpression !== undefined
        ? compile(v.messageExpression, `/validations/${i}/messageExpression`, 'string')
        : undefined;
    return {
      expression: compile(v.expression, `/validations/${i}/expression`, 'bool')!,
      ...(v.message !== undefined ? { message: v.message } : {}),
      ...(messageExpression ? { messageExpression } : {}),
      ...(v.reason !== undefined ? { reason: v.reason } : {}),
    };
  });
  if (problems.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `policy ${policy.name} does not compile: ${problems
        .map((p) => `${p.pointer} ${String(p.line)}:${String(p.column)} ${p.message}`)
        .join('; ')}`,
      problems,
    );
  return { policy, conditions, validations, params };
}
