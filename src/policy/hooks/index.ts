/**
 * @module Hooks (CloudFormation Hooks' model): a hook is registered with a schema in the shape of
 * CloudFormation's hook definition, configured by an admin (failure mode, properties, target
 * filters), served by a `defineHook` module or by any program over the provider protocol, and
 * invoked before every change its handlers target, as a part of the server's reviewer.
 *
 * @example
 * const hooks = new HookRegistrations(store, sealer);
 * await hooks.register(schemaText);
 * await hooks.configure('Acme::Policy::RequireTags', {
 *   CloudFormationConfiguration: { HookConfiguration: { HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL' } },
 * });
 * const reviewer = new ServerReviewer([admissionPolicies(policies), hookReview({ registrations: hooks, servers, logger })]);
 */
export { checkHookSchema, hookDefinition, type HookDefinition, type HookSchemaCheck } from './schema.js';
export {
  parseHookConfiguration,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  MAX_HOOK_TIMEOUT_SECONDS,
  type HookSettings,
  type FailureMode,
  type TargetOperation,
} from './configuration.js';
export { targetMatches, hookApplies, pathOf } from './targets.js';
export { HookRegistrations, MAX_HOOKS, type RegisteredHook, type ActiveHook } from './registrations.js';
export { invokeHook, MAX_HOOK_CALLS, type InvocationOutcome } from './invoke.js';
export { hookReview, HOOK_CONCURRENCY, MAX_HOOK_MESSAGE, type HookReviewOptions } from './review.js';
