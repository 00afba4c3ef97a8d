/**
 * @module Stacks: deploy many resources from one template (CloudFormation format) — validate, plan,
 * apply in dependency order, roll back, delete, detect drift. See docs/stacks.md.
 */
export { Stacks, type StacksOptions } from './stacks.js';
export type { StackState, StackView, Started } from './views.js';
export type { ResourceDrift, DriftDifference } from './drift.js';
export type { ReviewedStackChange, StacksObserver } from './observer.js';
export { STACK_RULES, invalidTemplate, type StackRuleId } from './rules.js';
export { DEFAULT_PSEUDO, PSEUDO_NAMES, type PseudoParameters } from './intrinsics.js';
export { parseParameterPairs, MASK } from './parameters.js';
export { reviewsTo } from './review-plan.js';
export { stackNotFound } from './reach.js';
export type { PlannedChange } from './plan.js';
export { readResourcesToImport, type ResourceToImport } from './import/index.js';
export type { StackCaller, StackEvent, StackStatus } from './records.js';
// What recipes (src/recipes) build on: reading a template, finding its functions, locating diagnostics.
export { loadTemplate, locate, type Template, type ParameterDeclaration } from './template.js';
export { intrinsicOf, getAttTarget, subPieces } from './intrinsics.js';
export { parseTypeReference } from './types.js';
// What an editor (src/lsp) checks a template with, as `typeplane stack validate` does.
export { validateTemplate, type TemplateCheck } from './validate.js';
export type { TypeSource } from './analyze.js';
export type { BufferedDeployment } from './buffered.js';
export type { DirectTemplate, DirectResource, MadeResource } from './direct.js';
export { stackIdOf, type Adoption } from './start.js';
export { stepToken } from './stages/state.js';
export { walkGraph } from './graph.js';
