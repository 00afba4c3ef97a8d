/**
 * @module Every error answer has one shape: `{ errorCode, message, details }` with a contract code.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TypeplaneError, type ErrorCode } from '../errors.js';

export interface ErrorBody {
  errorCode: ErrorCode;
  message: string;
  details: unknown[];
}

export function errorBody(code: ErrorCode, message: string, details: unknown[] = []): ErrorBody {
  return { errorCode: code, message, details };
}

/** Fastify's own refusals (bad JSON, body too large, wrong media type) in the contract's terms. */
function fromFastify(error: FastifyError): { status: number; body: ErrorBody } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 413,
        body: errorBody(
          'InvalidRequest',
          `request body is larger than the limit of this route: ${error.message}`,
        ),
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        body: errorBody(
          'InvalidRequest',
          `unsupported Content-Type: ${error.message}; send application/json (or application/yaml to register a manifest)`,
        ),
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: errorBody('InvalidRequest', 'request body is empty; send a JSON object') };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, body: errorBody('InvalidRequest', 'Content-Length does not match the body') };
    default:
      break;
  }
  if (error.statusCode === 400 || error.validation) {
    return { status: 400, body: errorBody('InvalidRequest', `request is malformed: ${error.message}`) };
  }
  return undefined;
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof TypeplaneError) {
    void reply.status(error.status).send(errorBody(error.code, error.message, error.details));
    return;
  }
  const mapped = fromFastify(error as FastifyError);
  if (mapped) {
    void reply.status(mapped.status).send(mapped.body);
    return;
  }
  request.log.error({ err: error }, 'unexpected error');
  void reply
    .status(500)
    .send(errorBody('InternalFailure', 'internal error; the server log has details under this request id'));
}
