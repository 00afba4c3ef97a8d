/**
 * @module Custom resources (`Custom::*`, `AWS::CloudFormation::CustomResource`): served by the stack
 * itself through CloudFormation's custom resource protocol, to handlers at allowed URLs. See
 * docs/stacks.md, "Custom resources".
 */
export { CustomResources, RESPONSE_ROUTE, type CustomResourceSettings } from './custom-resources.js';
export { MAX_RESPONSE_BYTES } from './protocol.js';
export { serviceTokenPrefixProblems } from './service-tokens.js';
export { isCustomResourceType } from './type.js';
export {
  NO_ECHO_MARK,
  appliedProperties,
  currentStep,
  inStep,
  noEchoTexts,
  textsOf,
  withCustomResources,
  type StepContext,
} from './step-engine.js';
export { withCustomTypes } from './types.js';
