/**
 * @module Pure functions on resource models (no I/O): property pointers, identifiers, property-list
 * rules, JSON Patch.
 */
export type { Model } from './types.js';
export {
  firstValueAt,
  onlyValueAt,
  valuesAt,
  propertyTokens,
  type ValueAt,
  type ModelPath,
} from './pointer.js';
export {
  identifierOf,
  additionalIdentifiersOf,
  identifierModel,
  readOnlyPresent,
  stripWriteOnly,
  stripReadOnly,
  typesAt,
  resolverOf,
  type ScalarType,
  IDENTIFIER_SEPARATOR,
} from './properties.js';
export { stripNulls, cloneJson, jsonEqual, setOwn } from './json.js';
export {
  createOnlyChanged,
  outcomeDifferences,
  valueDifferences,
  sameValue,
  modelPointer,
  type ModelDifference,
} from './compare.js';
export {
  splitWriteOnly,
  mergeWriteOnly,
  patchReadsWriteOnly,
  touchesWriteOnly,
  type WriteOnlyValue,
} from './write-only.js';
export { applyPatch, MAX_PATCH_OPERATIONS, MAX_PATH_TOKENS } from './patch.js';
