/**
 * @module The contract checks on what a handler answers: a well-formed event, and a model that matches
 * the schema and carries the resource's primary identifier. A broken answer is the provider's fault
 * (HandlerInternalFailure), never the caller's.
 */
import { TypeplaneError, isErrorCode } from '../errors.js';
import type { Provider } from '../handler/index.js';
import { identifierOf, stripNulls, type Model } from '../model/index.js';
import type { CompiledType } from '../registry/compile.js';
import { identifierProblem } from './identifiers.js';
import { ratchet } from './ratchet.js';
import type { EngineLogger } from './logger.js';

/** Why a handler's answer is not a valid event, or undefined. */
export function eventProblem(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'not an object';
  const e = event as Record<string, unknown>;
  if (e.status !== 'SUCCESS' && e.status !== 'FAILED' && e.status !== 'IN_PROGRESS')
    return `status must be SUCCESS, FAILED or IN_PROGRESS, not ${JSON.stringify(e.status)}`;
  if (e.status === 'FAILED' && !isErrorCode(e.errorCode))
    return `FAILED needs a contract errorCode, not ${JSON.stringify(e.errorCode)}`;
  if (
    e.callbackDelaySeconds !== undefined &&
    (typeof e.callbackDelaySeconds !== 'number' || !(e.callbackDelaySeconds >= 0))
  )
    return 'callbackDelaySeconds must be a non-negative number';
  if (
    e.callbackContext !== undefined &&
    (typeof e.callbackContext !== 'object' || e.callbackContext === null || Array.isArray(e.callbackContext))
  )
    return 'callbackContext must be an object';
  return undefined;
}

/**
 * A model a handler returned: shape-valid, carrying the (expected) primary identifier; nulls removed.
 * Values equal to `recorded` (the model as recorded, perhaps under an earlier version of the type)
 * are not the provider's to answer for (see `ratchet.ts`).
 */
export function checkModel(
  log: EngineLogger,
  provider: Provider,
  compiled: CompiledType,
  raw: unknown,
  expectedIdentifier: string | undefined,
  recorded?: Model,
): Model {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw contractViolation(log, provider, 'SUCCESS without a resource model');
  }
  const model = stripNulls(raw) as Model;
  const found = compiled.validateOutput(model);
  const problems = recorded && found.length > 0 ? ratchet(found, recorded, model) : found;
  if (problems.length > 0) {
    throw contractViolation(
      log,
      provider,
      `returned a model that does not match the schema: ${problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`,
    );
  }
  const identifier = identifierOf(compiled.type, model);
  if (identifier === undefined)
    throw contractViolation(
      log,
      provider,
      `returned a model without its primary identifier (${compiled.type.primaryIdentifier.join(', ')})`,
    );
  const problem = identifierProblem(identifier);
  if (problem) throw contractViolation(log, provider, `returned an identifier that ${problem}`);
  if (expectedIdentifier !== undefined && identifier !== expectedIdentifier) {
    throw contractViolation(
      log,
      provider,
      `returned identifier ${identifier} for resource ${expectedIdentifier}`,
    );
  }
  return model;
}

export function contractViolation(log: EngineLogger, provider: Provider, message: string): TypeplaneError {
  log.error('handler broke the contract', { provider: provider.name, problem: message });
  return new TypeplaneError('HandlerInternalFailure', `provider ${provider.name} ${message}`);
}
