/** @module The types a template may use: the registry's, and the custom resource types served here. */
import type { TypeSource } from '../analyze.js';
import type { CustomResources } from './custom-resources.js';

export function withCustomTypes(types: TypeSource, custom: CustomResources): TypeSource {
  return {
    // Not an async function: a promise fewer on every type a template names, at each deployment.
    get(typeName) {
      const served = custom.typeOf(typeName);
      return served ? Promise.resolve(served) : types.get(typeName);
    },
    names: () => types.names(),
  };
}
