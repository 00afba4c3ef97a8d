/** @module The names nested stacks are known by in a template (no imports: template.ts reads them as it loads). */

export const NESTED_STACK_TYPE = 'AWS::CloudFormation::Stack';
/** The section the nested templates travel in (packaged.ts). */
export const NESTED_TEMPLATES = 'Typeplane::NestedTemplates';
