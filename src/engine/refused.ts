/**
 * @module An operation refused before it began (an invalid request, access denied, a policy's
 * verdict), as the failed event a caller running operations to their end (a stack's step, a recipe's
 * resource) treats like any other failure.
 */
import type { TypeplaneError } from '../errors.js';
import type { ProgressEvent } from './types.js';

export function refusedEvent(e: TypeplaneError): ProgressEvent {
  // The details the message does not already state (the engine's schema refusal names them all).
  const details = e.details
    .map((d) => `${d.pointer ?? ''} ${d.message}`)
    .filter((d) => !e.message.includes(d));
  return {
    typeName: '',
    requestToken: '',
    operation: 'CREATE',
    operationStatus: 'FAILED',
    eventTime: new Date().toISOString(),
    errorCode: e.code,
    statusMessage: `${e.message}${details.length > 0 ? `: ${details.join('; ')}` : ''}`,
  };
}
