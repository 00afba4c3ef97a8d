/**
 * @module The registry: resource types made ready for the engine (compiled validators).
 */
export {
  Registry,
  RESOURCE_SCHEMA_VERSION,
  TypeNotRegistered,
  TypeVersionNotRegistered,
  type RegisterOptions,
  type Registration,
} from './registry.js';
export { MAX_CHECKED_RESOURCES, type Violations } from './violations.js';
export { similarNames } from '../schema/similar-names.js';
export type { ContractStatus } from './contract-reports.js';
export { compileType, MAX_VALIDATOR_SOURCE, ANNOTATION_KEYWORDS, type CompiledType } from './compile.js';
export { outputSchema } from './output-schema.js';
export { re2Engine } from './re2.js';
export { SCHEMA_LIMITS, schemaLimitExceeded } from './limits.js';
