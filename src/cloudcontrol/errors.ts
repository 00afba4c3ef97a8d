/**
 * @module Errors in the AWS JSON 1.0 protocol: `{ "__type": "<Name>", "message": "…" }` with the HTTP
 * status AWS answers for that name; and the engine's contract codes translated to Cloud Control's
 * exception names, in one table.
 */
import type { ErrorCode } from '../errors.js';

/** Every exception this front door answers, with its HTTP status (as in the service model). */
export const EXCEPTIONS = {
  // Cloud Control's own, from its service model.
  AlreadyExistsException: 400,
  ClientTokenConflictException: 409,
  ConcurrentModificationException: 500,
  GeneralServiceException: 400,
  HandlerInternalFailureException: 502,
  InvalidCredentialsException: 401,
  InvalidRequestException: 400,
  NetworkFailureException: 502,
  NotStabilizedException: 400,
  NotUpdatableException: 400,
  RequestTokenNotFoundException: 404,
  ResourceConflictException: 409,
  ResourceNotFoundException: 404,
  ServiceInternalErrorException: 502,
  ServiceLimitExceededException: 400,
  ThrottlingException: 429,
  TypeNotFoundException: 404,
  UnsupportedActionException: 405,
  // Common to AWS services (authentication, the protocol itself).
  AccessDeniedException: 400,
  IncompleteSignatureException: 400,
  InternalFailure: 500,
  InvalidSignatureException: 400,
  MissingAuthenticationTokenException: 403,
  RequestEntityTooLargeException: 413,
  SerializationException: 400,
  ServiceUnavailable: 503,
  UnknownOperationException: 400,
  UnrecognizedClientException: 400,
} as const;

export type ExceptionName = keyof typeof EXCEPTIONS;

/** An answer of the Cloud Control front door that is an error. */
export class CloudControlError extends Error {
  readonly status: number;
  constructor(
    readonly type: ExceptionName,
    message: string,
  ) {
    super(message);
    this.name = 'CloudControlError';
    this.status = EXCEPTIONS[type];
  }
}

/**
 * A key Typeplane does not know (not one it issued, revoked, or session credentials), answered as
 * AWS's JSON-protocol services answer any key they do not know: `UnrecognizedClientException`, 400,
 * with AWS's sentence, then the reason and what to do.
 */
export function unrecognizedClient(reason: string): CloudControlError {
  return new CloudControlError(
    'UnrecognizedClientException',
    `The security token included in the request is invalid. ${reason}`,
  );
}

/** The body of an error answer. */
export function errorBody(type: ExceptionName, message: string): { __type: ExceptionName; message: string } {
  return { __type: type, message };
}

/**
 * The exception for a contract code thrown before any handler ran (or by a read's handler). The
 * NotFound and ResourceConflict codes depend on what was asked: the operations say which applies.
 */
export const EXCEPTION_OF: Record<ErrorCode, ExceptionName> = {
  NotUpdatable: 'NotUpdatableException',
  InvalidRequest: 'InvalidRequestException',
  AccessDenied: 'AccessDeniedException',
  InvalidCredentials: 'InvalidCredentialsException',
  AlreadyExists: 'AlreadyExistsException',
  NotFound: 'ResourceNotFoundException',
  ResourceConflict: 'ResourceConflictException',
  Throttling: 'ThrottlingException',
  ServiceLimitExceeded: 'ServiceLimitExceededException',
  NotStabilized: 'NotStabilizedException',
  GeneralServiceException: 'GeneralServiceException',
  ServiceInternalError: 'ServiceInternalErrorException',
  NetworkFailure: 'NetworkFailureException',
  InternalFailure: 'InternalFailure',
  InvalidTypeConfiguration: 'InvalidRequestException',
  HandlerInternalFailure: 'HandlerInternalFailureException',
};

/**
 * `ProgressEvent.ErrorCode` speaks Cloud Control's HandlerErrorCode enumeration; the two contract
 * codes it lacks are given as the nearest member it has.
 */
export function handlerErrorCode(code: ErrorCode): string {
  if (code === 'HandlerInternalFailure') return 'InternalFailure';
  if (code === 'InvalidTypeConfiguration') return 'InvalidRequest';
  return code;
}
