/**
 * @module The AWS JSON 1.0 protocol on `POST /`: `X-Amz-Target: CloudApiService.<Operation>`, a
 * JSON body of the operation's members, answers in `application/x-amz-json-1.0`, errors as
 * `{ "__type", "message" }` with AWS's statuses. Every request is signed with SigV4 by an access key
 * pair issued with a token (`typeplane token create --aws-keys`): the signature's form, scope and
 * time and the key are checked before the body is read; the signature itself once it has arrived.
 *
 * What a request asks and what it is answered, apart from HTTP: `front-door.ts` reads requests off
 * the server and writes the answers.
 */
import { isAccessKeyId, roleAllows, type Principal, type Tokens } from '../auth/index.js';
import { ClientTokenReused, UnsupportedAction, type Engine } from '../engine/index.js';
import type { Verdict } from '../verdict.js';
import { TypeplaneError } from '../errors.js';
import { parseJsonBody } from '../http/index.js';
import { TypeNotRegistered, TypeVersionNotRegistered } from '../registry/index.js';
import {
  CloudControlError,
  errorBody,
  EXCEPTION_OF,
  EXCEPTIONS,
  unrecognizedClient,
  type ExceptionName,
} from './errors.js';
import { Input } from './input.js';
import { OPERATION_SPECS } from './operations.js';
import {
  payloadHash,
  readSignature,
  verifySignature,
  type ArrivedRequest,
  type SignatureClaim,
} from './sigv4.js';

const TARGET_PREFIX = 'CloudApiService.';
export const CONTENT_TYPE = 'application/x-amz-json-1.0';

/** A signed caller whose key is known: the claim still to verify once the body has arrived. */
export interface Caller {
  claim: SignatureClaim;
  principal: Principal;
  secretAccessKey: string;
}

/** An answer: its HTTP status and its body, an object serialized as JSON. */
export interface Answer {
  status: number;
  body: unknown;
}

function describe(action: string): string {
  return action === 'read' ? 'read' : 'create, change or delete resources, or cancel requests';
}

/** Unknown (or revoked) keys of ours, and key ids that are not ours, each with its reason. */
function unknownKey(accessKeyId: string): CloudControlError {
  return unrecognizedClient(
    isAccessKeyId(accessKeyId)
      ? `Access key ${accessKeyId} is unknown or its token was revoked; create a key pair with 'typeplane token create --aws-keys'`
      : "This is not an access key id Typeplane issued (they begin with TPAK); create a key pair with 'typeplane token create --aws-keys'",
  );
}

/**
 * The caller of a request, from its headers alone, before its body is read: a stranger costs no
 * parsing. A key seen in the last second is known without a promise or a store read (the callback
 * runs at once).
 */
export function authenticate(
  tokens: Tokens,
  headers: ArrivedRequest['headers'],
  done: (error: Error | undefined, caller?: Caller) => void,
): void {
  let claim: SignatureClaim;
  try {
    claim = readSignature(headers, Date.now());
  } catch (error) {
    return done(error as Error);
  }
  const { accessKeyId } = claim.credential;
  const recent = tokens.recentAccessKey(accessKeyId);
  if (recent)
    return done(undefined, { claim, principal: recent.principal, secretAccessKey: recent.secretAccessKey });
  tokens.authenticateAccessKey(accessKeyId).then(
    (found) =>
      found
        ? done(undefined, { claim, principal: found.principal, secretAccessKey: found.secretAccessKey })
        : done(unknownKey(accessKeyId)),
    (error: unknown) => done(error as Error),
  );
}

/** The operation a request's X-Amz-Target names. */
export function operationOf(headers: ArrivedRequest['headers']): string {
  const target = headers['x-amz-target'];
  return typeof target === 'string' && target.startsWith(TARGET_PREFIX)
    ? target.slice(TARGET_PREFIX.length)
    : '';
}

/**
 * Run a request whose body has arrived: the signature verified against it, the operation and the
 * caller's role checked, the body parsed and handed to the operation. What is refused before the
 * operation runs is thrown at once; the operation's answer (a 200 body) or refusal comes as a promise.
 *
 * @throws CloudControlError, or the engine's TypeplaneError (see {@link errorAnswer}).
 */
export function run(
  engine: Engine,
  caller: Caller,
  request: ArrivedRequest,
  name: string,
  bytes: Buffer,
  reviews?: (change: { verdicts: readonly Verdict[] }) => void,
): Promise<unknown> {
  verifySignature(caller.claim, caller.secretAccessKey, request, payloadHash(bytes));
  const spec = Object.hasOwn(OPERATION_SPECS, name) ? OPERATION_SPECS[name] : undefined;
  if (!spec)
    throw new CloudControlError(
      'UnknownOperationException',
      `X-Amz-Target must be ${TARGET_PREFIX}<Operation> with one of ${Object.keys(OPERATION_SPECS).join(', ')}`,
    );
  if (!roleAllows(caller.principal.role, spec.action))
    throw new CloudControlError(
      'AccessDeniedException',
      `a ${caller.principal.role} key cannot ${describe(spec.action)} (${name})`,
    );
  const sent = request.headers['content-type'];
  const contentType =
    sent === CONTENT_TYPE
      ? sent
      : (Array.isArray(sent) ? sent[0] : sent)?.split(';')[0]?.trim().toLowerCase();
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
  return spec.run(
    { engine, principal: caller.principal, ...(reviews ? { reviews } : {}) },
    new Input(name, body as Record<string, unknown>, spec.members),
  );
}

/** Requests refused for what they ask of the engine, in Cloud Control's names. */
function exceptionOf(error: TypeplaneError, operation: string): ExceptionName {
  if (error instanceof UnsupportedAction) return 'UnsupportedActionException';
  if (error instanceof TypeNotRegistered || error instanceof TypeVersionNotRegistered)
    return 'TypeNotFoundException';
  const onRequest = operation === 'GetResourceRequestStatus' || operation === 'CancelResourceRequest';
  if (error.code === 'NotFound' && onRequest) return 'RequestTokenNotFoundException';
  // Cloud Control's answer to cancelling a request that has ended.
  if (error.code === 'ResourceConflict' && operation === 'CancelResourceRequest')
    return 'ConcurrentModificationException';
  return EXCEPTION_OF[error.code];
}

export function refusal(type: ExceptionName, message: string): Answer {
  return { status: EXCEPTIONS[type], body: errorBody(type, message) };
}

/** The answer to a refused request; undefined for an error nobody meant (the caller logs it, answers 500). */
export function errorAnswer(error: unknown, operation: string): Answer | undefined {
  if (error instanceof CloudControlError) return refusal(error.type, error.message);
  // The engine names the client token as it keeps it, which may differ from the one sent.
  if (error instanceof ClientTokenReused)
    return refusal(
      'ClientTokenConflictException',
      'the ClientToken was already used for a different request; use a new ClientToken for a new request',
    );
  if (error instanceof TypeplaneError) return refusal(exceptionOf(error, operation), error.message);
  return undefined;
}

/** The answer to an error nobody meant: no detail leaves the server. */
export const INTERNAL_FAILURE: Answer = refusal(
  'InternalFailure',
  'internal error; the server log has details under this request id',
);
