/**
 * @module The Cloud Control front door on the HTTP server: `POST /` requests are taken off the server
 * before the `/v1` API's router sees them, read once (the body as bytes, hashed once for the
 * signature, parsed once), and answered with one write.
 *
 * Not a route of the `/v1` API's framework: routing, its hooks, a content-type parser and a reply
 * pipeline built for a JSON API it does not speak nearly doubled what a signed read cost the server.
 * The HTTP server's own bounds (header size, timeouts, malformed requests) hold for both alike.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Auditor } from '../audit/index.js';
import type { Principal, Tokens } from '../auth/index.js';
import type { Engine } from '../engine/index.js';
import { holdSeat, type Fairness, type Throttled } from '../fairness/index.js';
import type { Verdict } from '../verdict.js';
import {
  answeringBeforeBody,
  clientRequestId,
  RequestMessage,
  RESOURCE_BODY_LIMIT,
  type FrontDoor,
} from '../http/index.js';
import { isChange, recordOf } from './audit.js';
import { CloudControlError } from './errors.js';
import { OPERATION_SPECS } from './operations.js';
import {
  authenticate,
  type Caller,
  CONTENT_TYPE,
  errorAnswer,
  INTERNAL_FAILURE,
  operationOf,
  refusal,
  run,
} from './protocol.js';

export interface FrontDoorOptions {
  engine: Engine;
  tokens: Tokens;
  /** Request lines ('incoming request', 'request completed') at info, as the `/v1` API logs them. */
  logger: Logger;
  /** The largest body taken, in bytes (the `/v1` API's resource body limit by default). */
  bodyLimit?: number;
  /** Told of every answer: its action (one of the operations, '' for another), status and duration. */
  observe?: (action: string, status: number, seconds: number) => void;
  /** The audit trail: changes and refusals are recorded (see audit.ts), a change run once it can be. */
  audit?: Auditor;
  /** Fair queuing by token, the access key counting as its token (see src/fairness). */
  fairness?: Fairness;
}

function isOwn(request: IncomingMessage): boolean {
  const url = request.url;
  return request.method === 'POST' && (url === '/' || (url !== undefined && url.startsWith('/?')));
}

/** Over the caller's share: the AWS SDKs retry a ThrottlingException with backoff. */
function throttling(refusal: Throttled): CloudControlError {
  return new CloudControlError('ThrottlingException', refusal.message);
}

function tooLarge(limit: number): CloudControlError {
  return new CloudControlError(
    'RequestEntityTooLargeException',
    `the request body is larger than ${limit} bytes`,
  );
}

/**
 * The body's bytes, or a refusal when they pass `limit`: a declared length is refused before a byte is
 * read, a stream without one once it passes the limit. A body of a declared length is complete with
 * its last byte (the HTTP parser frames it by that length), without waiting for the stream's end.
 * `done` is called once, and not at all when the client goes away mid-body (nobody to answer).
 */
function readBody(
  request: IncomingMessage,
  limit: number,
  done: (error: CloudControlError | undefined, body?: Buffer) => void,
): void {
  const declared = request.headers['content-length'];
  const length = declared === undefined ? -1 : Number(declared);
  if (length > limit) return done(tooLarge(limit));
  if (length === 0) return done(undefined, Buffer.alloc(0));
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (error: CloudControlError | undefined, body?: Buffer) => {
    if (finished) return;
    finished = true;
    done(error, body);
  };
  /** A piece of the body: false once the body is complete or refused (later pieces are not kept). */
  const take = (chunk: Buffer): boolean => {
    if (finished) return false;
    size += chunk.length;
    if (size > limit) {
      finish(tooLarge(limit));
      return false;
    }
    if (size === length) {
      finish(undefined, chunks.length === 0 ? chunk : Buffer.concat([...chunks, chunk], size));
      return false;
    }
    chunks.push(chunk);
    return true;
  };
  const ended = () => finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  if (
    request instanceof RequestMessage &&
    request.takeBody((chunk) => (chunk === null ? ended() : take(chunk)))
  )
    return;
  // Pieces already arrived (the caller's key was looked up first): read as a stream.
  request
    .on('data', (chunk: Buffer) => {
      if (!take(chunk) && size > limit) request.pause();
    })
    .on('end', ended);
}

export function cloudControlFrontDoor({
  engine,
  tokens,
  logger,
  bodyLimit = RESOURCE_BODY_LIMIT,
  observe,
  audit,
  fairness,
}: FrontDoorOptions): FrontDoor {
  function answer(
    response: ServerResponse,
    id: string,
    status: number,
    body: unknown,
    // The body is left unread, of no bounded length: the connection cannot carry another request.
    close: boolean,
    log: Logger | undefined,
    started: number,
    operation = '',
  ): void {
    const text = JSON.stringify(body);
    const headers: Record<string, string | number> = {
      'content-type': CONTENT_TYPE,
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': id,
      'x-request-id': id,
    };
    if (close) headers.connection = 'close';
    response.writeHead(status, headers).end(text);
    if (!log && !observe) return;
    const elapsed = performance.now() - started;
    log?.info({ res: { statusCode: status }, responseTime: elapsed }, 'request completed');
    // A label value from the fixed list of operations only: the header is the caller's to choose.
    observe?.(Object.hasOwn(OPERATION_SPECS, operation) ? operation : '', status, elapsed / 1000);
  }

  return (request, response, closing) => {
    if (!isOwn(request)) return false;
    const headers = request.headers;
    const id = clientRequestId(headers['x-request-id']) ?? randomUUID();
    // A child logger and a clock read a request cost: made only when request lines are written.
    const log = logger.isLevelEnabled('info') ? logger.child({ reqId: id }) : undefined;
    const started = log || observe ? performance.now() : 0;
    log?.info(
      {
        req: {
          method: request.method,
          url: request.url,
          host: headers.host,
          remoteAddress: request.socket.remoteAddress,
          remotePort: request.socket.remotePort,
        },
      },
      'incoming request',
    );
    const operation = operationOf(headers);
    let bodyRead = false;
    let principal: Principal | undefined;
    let bytes: Buffer | undefined;
    // What the change's review said (Audit verdicts included), for its audit record.
    const verdicts: Verdict[] = [];
    const receivedAt = audit ? Date.now() : 0;
    const recorded = (status: number, body: unknown) => {
      const record = recordOf({
        id,
        url: request.url!,
        action: operation,
        ...(principal ? { principal } : {}),
        ...(request.socket.remoteAddress !== undefined ? { sourceIP: request.socket.remoteAddress } : {}),
        ...(typeof headers['user-agent'] === 'string' ? { userAgent: headers['user-agent'] } : {}),
        ...(bytes ? { bytes } : {}),
        status,
        answer: body,
        receivedAt,
        verdicts,
      });
      if (record) void audit!.record(record);
    };
    const fail = (error: unknown) => {
      const refused = errorAnswer(error, operation);
      if (!refused) logger.error({ reqId: id, err: error }, 'unexpected error');
      const { status, body } = refused ?? INTERNAL_FAILURE;
      if (audit) recorded(status, body);
      // A body not read is read and dropped by Node when of a bounded length: the client, maybe still
      // sending, reads the refusal and keeps its connection (see src/http/connections.ts), and is not
      // answered again should the rest come too late.
      answer(response, id, status, body, !bodyRead && answeringBeforeBody(request), log, started, operation);
    };
    if (closing) {
      const unavailable = refusal(
        'ServiceUnavailable',
        'the server is shutting down; retry against another replica or later',
      );
      answer(response, id, unavailable.status, unavailable.body, true, log, started);
      return true;
    }
    authenticate(tokens, headers, (error, caller) => {
      if (error || !caller) return fail(error);
      principal = caller.principal;
      if (!fairness) return serve(caller);
      // Seated before the body is read: a waiting request costs no reading.
      const flow = fairness.flowOf(principal);
      const admitted = fairness.enter(flow);
      if (admitted === true) {
        holdSeat(response, flow);
        return serve(caller);
      }
      if (admitted !== false) return fail(throttling(admitted));
      fairness.wait(flow, (refusal) => {
        if (refusal) return fail(throttling(refusal));
        if (response.destroyed) return fairness.leave(flow);
        holdSeat(response, flow);
        serve(caller);
      });
    });
    function serve(caller: Caller): void {
      readBody(request, bodyLimit, (tooLarge, body) => {
        if (tooLarge) return fail(tooLarge);
        bodyRead = true;
        bytes = body;
        const arrived = {
          method: 'POST',
          url: request.url!,
          rawHeaders: request.rawHeaders,
          headers,
        };
        const go = () => {
          let answered: Promise<unknown>;
          try {
            answered = run(engine, caller, arrived, operation, body!, (change) =>
              verdicts.push(...change.verdicts),
            );
          } catch (e) {
            return fail(e);
          }
          answered.then((out) => {
            answer(response, id, 200, out, false, log, started, operation);
            if (audit) recorded(200, out);
          }, fail);
        };
        // A change runs once its record can be taken, or is refused before it changes anything.
        const waiting = audit && isChange(operation) ? audit.admit() : undefined;
        if (waiting) waiting.then(go, fail);
        else go();
      });
    }
    return true;
  };
}
