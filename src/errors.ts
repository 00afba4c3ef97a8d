/**
 * @module The catalogue of error codes: the handler contract's codes, each declared once with the
 * HTTP status an API answer carries for it. Users match on codes, never on text.
 */

export const ERROR_CODES = {
  NotUpdatable: 400,
  InvalidRequest: 400,
  AccessDenied: 403,
  InvalidCredentials: 401,
  AlreadyExists: 409,
  NotFound: 404,
  ResourceConflict: 409,
  Throttling: 429,
  ServiceLimitExceeded: 429,
  NotStabilized: 500,
  GeneralServiceException: 500,
  ServiceInternalError: 502,
  NetworkFailure: 502,
  InternalFailure: 500,
  InvalidTypeConfiguration: 400,
  HandlerInternalFailure: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** One problem inside an error answer, e.g. a failing JSON pointer. */
export interface ErrorDetail {
  pointer?: string;
  message: string;
  [key: string]: unknown;
}

/**
 * An error with a contract code. Thrown by the engine and the registry for answers decided before any
 * handler runs; the HTTP layer renders it as `{ errorCode, message, details }`.
 */
export class TypeplaneError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly status: number;

  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = [], status?: number) {
    super(message);
    this.name = 'TypeplaneError';
    this.code = code;
    this.details = details;
    this.status = status ?? ERROR_CODES[code];
  }
}
