/**
 * @module What a create or update SUCCESS must hold beyond a valid model: the outcome is what was
 * asked (exactly; unordered arrays as sets), and a SUCCESS the engine refuses never leaves behind a
 * resource nobody can see.
 *
 * A provider that answered SUCCESS made (or changed) something. When the engine refuses the answer,
 * the operation fails with HandlerInternalFailure; the resource, when its answer names a usable
 * identifier, is still recorded, so that it is listed, can be read, and can be deleted through the
 * API, and the failure message says so. Cleaning it up behind the caller's back (a delete the caller
 * never asked for) could destroy what the caller wants to keep.
 */
import { identifierModel, identifierOf, outcomeDifferences, stripNulls, type Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import { identifierProblem } from './identifiers.js';

/** Why a SUCCESS model is not the outcome asked for (naming the differing paths), or undefined. */
export function outcomeProblem(
  compiled: CompiledType,
  operation: 'CREATE' | 'UPDATE',
  asked: Model,
  model: Model,
): string | undefined {
  const differences = outcomeDifferences(compiled.type, asked, model);
  if (differences.length === 0) return undefined;
  const shown = differences.slice(0, 10).map((d) => d.pointer || '/');
  const more = differences.length > shown.length ? ` and ${differences.length - shown.length} more` : '';
  return `answered ${operation} with a model that is not what was asked: ${shown.join(', ')}${more} ${
    differences.length === 1 ? 'differs' : 'differ'
  } (a ${operation === 'CREATE' ? 'create' : 'update'} must return every property it was given, exactly, and no others but read-only ones)`;
}

/**
 * The model to record for a refused SUCCESS, with its identifier, or undefined when there is nothing
 * usable to record: the provider's model when it has the shape of the schema, otherwise what was
 * asked with the identifier the provider reported (for a create: an update's resource is recorded
 * already). Only a model of the resource the operation is about.
 */
export function modelToKeep(
  compiled: CompiledType,
  operation: 'CREATE' | 'UPDATE',
  raw: unknown,
  asked: Model,
  expectedIdentifier: string | undefined,
): { identifier: string; model: Model } | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const type = compiled.type;
  const answered = stripNulls(raw) as Model;
  const identifier = identifierOf(type, answered);
  if (identifier === undefined || identifierProblem(identifier) !== undefined) return undefined;
  if (expectedIdentifier !== undefined && identifier !== expectedIdentifier) return undefined;
  if (compiled.validateOutput(answered).length === 0) return { identifier, model: answered };
  if (operation === 'UPDATE') return undefined;
  const model = { ...stripNulls(asked), ...identifierModel(type, identifier) };
  return compiled.validateOutput(model).length === 0 ? { identifier, model } : undefined;
}
