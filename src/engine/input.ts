/**
 * @module Checks on what a caller sends, made before any operation begins (thrown as InvalidRequest).
 */
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import { cloneJson, readOnlyPresent, type Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import type { ResourceType } from '../schema/index.js';
import { DeniedByVerdicts } from '../verdict.js';

export const DEFAULT_MAX_RESULTS = 100;
export const MAX_RESULTS_LIMIT = 1000;

export function requireModel(value: unknown, name: string): Model {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeplaneError('InvalidRequest', `${name} must be a JSON object of the resource's properties`);
  }
  // The engine's own copy (defaults are applied to it); models are JSON, so a JSON copy does.
  return cloneJson(value as Model);
}

export function refuseReadOnly(type: ResourceType, desired: Model): void {
  const readOnly = readOnlyPresent(type, desired);
  if (readOnly.length > 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `read-only properties cannot be set: ${readOnly.join(', ')}`,
      readOnly.map((pointer) => ({ pointer, message: 'is read-only: the provider sets it' })),
    );
  }
}

/** `keep` narrows the problems that count (an update's ratcheting). */
export function assertValid(
  compiled: CompiledType,
  desired: Model,
  keep?: (problems: ErrorDetail[]) => ErrorDetail[],
): void {
  const found = compiled.validateInput(desired);
  const problems = keep && found.length > 0 ? keep(found) : found;
  if (problems.length > 0) {
    throw new TypeplaneError(
      'InvalidRequest',
      `the desired state does not match the schema of ${compiled.type.typeName}: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
      problems,
    );
  }
}

/**
 * The schema's validation rules on the desired state (`current`: the state an update or PUT starts
 * from). A failing rule refuses the change (400) with its verdicts.
 */
export function assertRules(compiled: CompiledType, desired: Model, current?: Model): void {
  const verdicts = compiled.checkRules?.(desired, current);
  if (verdicts && verdicts.length > 0) throw new DeniedByVerdicts(verdicts);
}

export function parseMaxResults(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_MAX_RESULTS;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_RESULTS_LIMIT) {
    throw new TypeplaneError(
      'InvalidRequest',
      `maxResults must be a whole number from 1 to ${MAX_RESULTS_LIMIT}`,
    );
  }
  return n;
}

/** A list's nextToken, as given (a string or absent). */
export function parseNextToken(value: unknown): string | undefined {
  if (value !== undefined && typeof value !== 'string')
    throw new TypeplaneError('InvalidRequest', 'nextToken must be a string');
  return value || undefined;
}
