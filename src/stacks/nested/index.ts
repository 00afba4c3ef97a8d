/**
 * @module Nested stacks (`AWS::CloudFormation::Stack`): templates handed over with their parent
 * (packaged into its text), deployed as stacks of their own whose lifecycle is the parent's. See
 * docs/stacks.md, "Nested stacks".
 */
export { MAX_NESTED_TEMPLATES, MAX_NESTING_DEPTH, nestedUrls, packageTemplate } from './packaged.js';
export { NESTED_STACK_TYPE, NESTED_TEMPLATES } from './names.js';
export { withNestedStacks, type NestedStackHost } from './nested-stacks.js';
export { withNestedStackType } from './types.js';
