/**
 * @module Every error answer has one shape: `{ errorCode, message, details }` with a contract code.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TypeplaneError, type ErrorCode } from '../errors.js';
import { drainable, endAfter, isLingering, wasAnsweredEarly } from './connections.js';

/** The longest path segment (a type name or identifier, URL-encoded) a route accepts; 414 beyond. */
export const MAX_PARAM_LENGTH = 4096;

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

/**
 * The framework closes the connection after refusing a body (too large, malformed) as the client
 * may still be sending it. A body that has arrived, or is of a length the server drains (see
 * `connections.ts`), keeps the connection instead: Node reads what is left of a body nobody reads
 * and drops it, and the framework leaves one it began to read flowing to no listener. The client
 * reads the refusal rather than a reset.
 */
function keepConnection(request: FastifyRequest, reply: FastifyReply): void {
  if (reply.getHeader('connection') === 'close' && drainable(request.raw)) reply.removeHeader('connection');
}

export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  keepConnection(request, reply);
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

/** Refusals of the router, before any route runs: a URL that does not decode, a segment too long. */
export function handleFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply
      .status(414)
      .send(
        errorBody(
          'InvalidRequest',
          `a path segment is longer than ${MAX_PARAM_LENGTH} characters (URL-encoded)`,
        ),
      );
    return;
  }
  void reply
    .status(400)
    .send(
      errorBody(
        'InvalidRequest',
        'the URL is not valid: a path segment is not well-formed percent-encoded UTF-8',
      ),
    );
}

/**
 * Requests Node's HTTP parser refuses (headers over its size limit, malformed requests, timeouts)
 * answered in the one error shape, then the connection ended: its framing cannot be trusted (what
 * the client still sends is dropped, see endAfter). A request already answered is not answered
 * again: its connection is closed.
 */
export function handleClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || isLingering(socket)) return;
  // The request was answered before its body arrived: the rest came too late, or malformed.
  if (wasAnsweredEarly(socket)) {
    socket.destroy(error);
    return;
  }
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `the request line and headers are larger than ${maxHeaderSize} bytes`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, 'the request is not well-formed HTTP'];
  const body = JSON.stringify(errorBody('InvalidRequest', message));
  // An answer to HEAD has no body, or the client would read it as the start of another answer.
  // Node passes the bytes it read as a Buffer (fastify's type describes their JSON form).
  const raw: unknown = error.rawPacket;
  const head = Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
  endAfter(
    socket,
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}
