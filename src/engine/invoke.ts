/**
 * @module Invoking a handler: whatever it does (throws, hangs past its signal, answers garbage), the
 * engine gets a valid event back, with the right error code and no write-only value in its message.
 */
import { withMembers } from '../members.js';
import { isErrorCode } from '../errors.js';
import {
  raceAbort,
  type HandlerAction,
  type HandlerEvent,
  type HandlerRequest,
  type Provider,
} from '../handler/index.js';
import type { ResourceType } from '../schema/index.js';
import { eventProblem } from './check-answer.js';
import type { EngineLogger } from './logger.js';
import { maskWriteOnly } from './sealing.js';

/** Invoke a handler, turning every way it can misbehave into a FAILED event with the right code. */
export async function invoke(
  log: EngineLogger,
  provider: Provider,
  action: HandlerAction,
  type: ResourceType,
  request: HandlerRequest,
): Promise<HandlerEvent> {
  // A provider's words may quote what it was handed; they are kept and logged, so never the secrets.
  const mask = (text: string) =>
    maskWriteOnly(type, text, [request.desiredState, request.previousState], request.typeConfiguration);
  let event: unknown;
  try {
    event = await raceAbort(provider[action](request), request.signal);
  } catch (e) {
    if (request.signal.aborted) {
      return {
        status: 'FAILED',
        errorCode: 'NotStabilized',
        message: `${action} was stopped: ${String((request.signal.reason as Error)?.message ?? 'timed out')}`,
      };
    }
    const code = (e as { code?: unknown }).code;
    if (isErrorCode(code))
      return { status: 'FAILED', errorCode: code, message: mask(String((e as Error).message)) };
    log.error('handler threw', {
      provider: provider.name,
      typeName: type.typeName,
      action,
      err: mask(String(e)),
    });
    return {
      status: 'FAILED',
      errorCode: 'HandlerInternalFailure',
      message: mask(`provider ${provider.name} failed in ${action}: ${(e as Error)?.message ?? String(e)}`),
    };
  }
  // An invalid event is quoted in its problem (an errorCode that is a secret, say).
  const found = eventProblem(event);
  const problem = found === undefined ? undefined : mask(found);
  if (problem) {
    log.error('handler broke the contract', {
      provider: provider.name,
      typeName: type.typeName,
      action,
      problem,
    });
    return {
      status: 'FAILED',
      errorCode: 'HandlerInternalFailure',
      message: `provider ${provider.name} answered ${action} with an invalid event: ${problem}`,
    };
  }
  const answer = event as HandlerEvent;
  return typeof answer.message === 'string' ? withMembers(answer, { message: mask(answer.message) }) : answer;
}
