/**
 * @module A policy's expressions compiled once, with the project's CEL evaluator (src/cel): each
 * checked against the policy's variables and its worst-case cost against the limit, every problem
 * located (the document's pointer, and the line and column in the expression). `object`, `oldObject`
 * are `dyn` (a policy spans types); `request` is an object of known fields, so a misspelt one is
 * refused at registration; `params` is typed from the policy's own parameter object.
 */
import {
  compileExpression,
  DYN,
  EXPRESSION_COST_LIMIT,
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

const REQUEST: ValueType = {
  kind: 'object',
  properties: new Map<string, ValueType>([
    ...REQUEST_FIELDS.map((f): [string, ValueType] => [f, { kind: 'string', maxSize: 4096 }]),
    ['dryRun', { kind: 'bool' }],
  ]),
};

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

/** The policy compiled; throws InvalidRequest naming every expression that does not compile or costs too much. */
export function compilePolicy(policy: PolicyDocument): CompiledPolicy {
  const params = toCel(policy.params ?? {});
  const variables: CelVariables = {
    object: DYN,
    oldObject: DYN,
    request: REQUEST,
    params: sizedType(DYN, params),
  };
  const problems: ErrorDetail[] = [];
  const compile = (source: string, pointer: string, expect: 'bool' | 'string') => {
    const result = compileExpression(source, variables, { expect });
    if (!result.ok) {
      for (const p of result.problems)
        problems.push({ pointer, message: p.message, line: p.line, column: p.column });
      return undefined;
    }
    if (result.expression.cost > EXPRESSION_COST_LIMIT)
      problems.push({
        pointer,
        message: `its estimated cost over the largest values it may be given is ${result.expression.cost}, more than the limit of ${EXPRESSION_COST_LIMIT}: bound what it iterates (a list's size() check first, fewer nested comprehensions)`,
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
