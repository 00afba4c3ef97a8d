/**
 * @module The schema toolkit: load, validate and normalise resource type definitions.
 */
export {
  validateDocument,
  validateDocumentYielding,
  type ValidateOptions,
  type ValidationResult,
  type Dialect,
} from './validate.js';
export {
  loadTypes,
  checkAcrossDocuments,
  findDocuments,
  type LoadOptions,
  type LoadResult,
  type SkippedDocument,
  type TypeSummary,
} from './load-types.js';
export {
  parseSource,
  parseSourceYielding,
  jsonDepthOffset,
  detectFormat,
  LIMITS,
  type ParseResult,
  type SourceDocument,
  type SourceFormat,
  type Position,
} from './source.js';
export { RULES, hasErrors, type Diagnostic, type Severity, type RuleId } from './diagnostics.js';
export {
  DEFAULT_TIMEOUT_MINUTES,
  type ResourceType,
  type JsonSchema,
  type HandlerAction,
  type HandlerSettings,
  type Reference,
  type Traits,
} from './model.js';
export { COMMON_SCHEMAS } from './common.js';
export { otherDocument, HOOK_SCHEMA, STACK_TEMPLATE } from './other-documents.js';
export { MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM } from './regex.js';
export {
  valueProblems,
  hasLoneSurrogate,
  jsonTextMayHoldUnkeepable,
  type ValueProblem,
  type ValueProblemKind,
} from './values.js';
