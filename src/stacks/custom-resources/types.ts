/** @module The types a template may use: the registry's, and the custom resource types served here. */
import type { TypeSource } from '../analyze.js';
import type { CustomResources } from './custom-resources.js';

export function withCustomTypes(types: TypeSource, custom: CustomResources): TypeSource {
  return {
    async get(typeName) {
      return custom.typeOf(typeName) ?? types.get(typeName);
    },
    names: () => types.names(),
  };
}
