/**
 * @module Admission policies and the server's reviewer: an admin registers a policy (CEL over the
 * change and who asks, bound to type globs and operations, with an action: Deny, Warn or Audit); the
 * reviewer puts every change to the policies and to the other parts plugged into it (hooks).
 *
 * @example
 * const policies = new Policies(store, { compile: compilePolicy, notCompiled: notCompiledPolicy });
 * await policies.put({ name: 'no-public', match: { types: ['*'], operations: ['CREATE'] },
 *   validations: [{ expression: "!has(object.Public) || object.Public == false" }], action: 'Deny' }, tokenId);
 * const engine = new Engine({ …, reviewer: new ServerReviewer([admissionPolicies(policies)]) });
 */
export {
  readPolicy,
  salvagePolicy,
  matches,
  POLICY_LIMITS,
  type PolicyDocument,
  type PolicyOperation,
} from './document.js';
export {
  compilePolicy,
  notCompiledPolicy,
  REQUEST_FIELDS,
  type CompiledPolicy,
  type RequestFacts,
} from './compile.js';
export { evaluatePolicies, type PolicyInput } from './evaluate.js';
export {
  Policies,
  MAX_POLICIES,
  type PolicyCompiler,
  type PolicyRecord,
  type PolicyStatus,
  type ShownPolicy,
} from './policies.js';
export { ServerReviewer, admissionPolicies, requestFacts, type ReviewPart } from './reviewer.js';
