/**
 * @module The AWS JSON 1.0 protocol on `POST /`: `X-Amz-Target: CloudApiService.<Operation>`, a
 * JSON body of the operation's members, answers in `application/x-amz-json-1.0`, errors as
 * `{ "__type", "message" }` with AWS's statuses. Every request is signed with SigV4 by an access key
 * pair issued with a token (`typeplane token create --aws-keys`): the signature's form, scope and
 * time and the key are checked before the body is read; the signature itself once it has arrived.
 *
 * A plugin of its own (encapsulated): its body parser and error answers apply to `POST /` only; the
 * native `/v1` API beside it is unchanged.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAccessKeyId, roleAllows, type Principal, type Tokens } from '../auth/index.js';
import { ClientTokenReused, type Engine } from '../engine/index.js';
import { TypeplaneError } from '../errors.js';
import { parseJsonBody, RESOURCE_BODY_LIMIT } from '../http/index.js';
import { TypeNotRegistered } from '../registry/index.js';
import { CloudControlError, errorBody, EXCEPTION_OF, EXCEPTIONS, type ExceptionName } from './errors.js';
import { Input } from './input.js';
import { OPERATION_SPECS } from './operations.js';
import { payloadHash, readSignature, verifySignature, type SignatureClaim } from './sigv4.js';

const TARGET_PREFIX = 'CloudApiService.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

interface Caller {
  claim: SignatureClaim;
  principal: Principal;
  secretAccessKey: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed caller of a Cloud Control request, once its key is known. */
    cloudControlCaller?: Caller;
    /** The Cloud Control operation a request names, once read. */
    cloudControlOperation?: string;
  }
}

function describe(action: string): string {
  return action === 'read' ? 'read' : 'create, change or delete resources, or cancel requests';
}

/** Requests refused for what they ask of the engine, in Cloud Control's names. */
function exceptionOf(error: TypeplaneError, operation: string | undefined): ExceptionName {
  if (error instanceof TypeNotRegistered) return 'TypeNotFoundException';
  const onRequest = operation === 'GetResourceRequestStatus' || operation === 'CancelResourceRequest';
  if (error.code === 'NotFound' && onRequest) return 'RequestTokenNotFoundException';
  // Cloud Control's answer to cancelling a request that has ended.
  if (error.code === 'ResourceConflict' && operation === 'CancelResourceRequest')
    return 'ConcurrentModificationException';
  return EXCEPTION_OF[error.code];
}

function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return (
    reply
      .status(status)
      .header('content-type', CONTENT_TYPE)
      .header('x-amzn-requestid', reply.request.id)
      // A serializer of the reply's own: fastify then adds no charset parameter to the media type
      // (AWS sends none).
      .serializer((text) => text)
      .send(JSON.stringify(body))
  );
}

function handleError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof CloudControlError)
    return send(reply, error.status, errorBody(error.type, error.message));
  // The engine names the client token as it keeps it, which may differ from the one sent.
  if (error instanceof ClientTokenReused)
    return send(
      reply,
      EXCEPTIONS.ClientTokenConflictException,
      errorBody(
        'ClientTokenConflictException',
        'the ClientToken was already used for a different request; use a new ClientToken for a new request',
      ),
    );
  if (error instanceof TypeplaneError) {
    const type = exceptionOf(error, request.cloudControlOperation);
    return send(reply, EXCEPTIONS[type], errorBody(type, error.message));
  }
  const code = (error as FastifyError).code;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return send(
      reply,
      413,
      errorBody(
        'RequestEntityTooLargeException',
        `the request body is larger than ${RESOURCE_BODY_LIMIT} bytes`,
      ),
    );
  if ((error as FastifyError).statusCode === 400)
    return send(
      reply,
      400,
      errorBody('SerializationException', `the request is malformed: ${error.message}`),
    );
  request.log.error({ err: error }, 'unexpected error');
  return send(
    reply,
    500,
    errorBody('InternalFailure', 'internal error; the server log has details under this request id'),
  );
}

export async function cloudControlRoutes(
  app: FastifyInstance,
  { engine, tokens }: { engine: Engine; tokens: Tokens },
): Promise<void> {
  // The body as bytes, whatever its media type: its hash is part of the signature; the media type is
  // checked once the signature holds.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.setErrorHandler(handleError);

  /** Unknown (or revoked) keys of ours, and key ids that are not ours, answered apart. */
  function unknownKey(accessKeyId: string): CloudControlError {
    return isAccessKeyId(accessKeyId)
      ? new CloudControlError(
          'UnrecognizedClientException',
          `The security token included in the request is invalid: access key ${accessKeyId} is unknown or its token was revoked`,
        )
      : new CloudControlError(
          'InvalidClientTokenId',
          "The security token included in the request is invalid: this is not an access key id Typeplane issued (they begin with TPAK); create a key pair with 'typeplane token create --aws-keys'",
        );
  }

  /**
   * Everything the headers can tell, before the body is read: a stranger costs no parsing. A callback
   * hook: a key seen in the last second is checked without a promise or a store read.
   */
  function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    let claim: SignatureClaim;
    try {
      claim = readSignature(request.headers, Date.now());
    } catch (error) {
      return done(error as Error);
    }
    const recent = tokens.recentAccessKey(claim.accessKeyId);
    if (recent) {
      request.cloudControlCaller = { claim, ...recent };
      return done();
    }
    tokens.authenticateAccessKey(claim.accessKeyId).then(
      (found) => {
        if (!found) return done(unknownKey(claim.accessKeyId));
        request.cloudControlCaller = { claim, ...found };
        done();
      },
      (error: unknown) => done(error as Error),
    );
  }

  app.post(
    '/',
    { config: { authentication: 'sigv4' }, bodyLimit: RESOURCE_BODY_LIMIT, onRequest: authenticate },
    async (request, reply) => {
      const caller = request.cloudControlCaller!;
      const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      verifySignature(
        caller.claim,
        caller.secretAccessKey,
        {
          method: request.method,
          url: request.raw.url ?? '/',
          rawHeaders: request.raw.rawHeaders,
          headers: request.headers,
        },
        payloadHash(bytes),
      );
      const target = request.headers['x-amz-target'];
      const name =
        typeof target === 'string' && target.startsWith(TARGET_PREFIX)
          ? target.slice(TARGET_PREFIX.length)
          : '';
      const spec = Object.hasOwn(OPERATION_SPECS, name) ? OPERATION_SPECS[name] : undefined;
      if (!spec)
        throw new CloudControlError(
          'UnknownOperationException',
          `X-Amz-Target must be ${TARGET_PREFIX}<Operation> with one of ${Object.keys(OPERATION_SPECS).join(', ')}`,
        );
      request.cloudControlOperation = name;
      if (!roleAllows(caller.principal.role, spec.action))
        throw new CloudControlError(
          'AccessDeniedException',
          `a ${caller.principal.role} key cannot ${describe(spec.action)} (${name})`,
        );
      const contentType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (contentType !== CONTENT_TYPE)
        throw new CloudControlError(
          'SerializationException',
          `the Content-Type must be ${CONTENT_TYPE}, not '${(contentType ?? '').slice(0, 64)}'`,
        );
      let body: unknown;
      try {
        body = bytes.length === 0 ? {} : parseJsonBody(bytes);
      } catch (e) {
        if (e instanceof TypeplaneError) throw new CloudControlError('SerializationException', e.message);
        throw e;
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new CloudControlError('SerializationException', `the body of ${name} must be a JSON object`);
      const out = await spec.run(
        { engine, principal: caller.principal },
        new Input(name, body as Record<string, unknown>, spec.members),
      );
      return send(reply, 200, out);
    },
  );
}
