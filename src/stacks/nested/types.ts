/** @module The types a template may use, with `AWS::CloudFormation::Stack` the nested stack served here. */
import type { TypeSource } from '../analyze.js';
import { NESTED_STACK_TYPE } from './names.js';
import { NESTED_STACK } from './type.js';

export function withNestedStackType(types: TypeSource): TypeSource {
  return {
    get: (typeName) => (typeName === NESTED_STACK_TYPE ? Promise.resolve(NESTED_STACK) : types.get(typeName)),
    names: () => types.names(),
  };
}
