/**
 * @module A type served by a running Typeplane server, driven through its API as if it were a
 * provider (`typeplane test --api`): each handler is a call to /v1/resources, so the contract suite
 * proves what a client of the server gets — whatever serves the type there (a recipe, a remote
 * provider, the state provider).
 *
 * create is a POST with the request's clientRequestToken as the clientToken (a repeated create is the
 * same operation), update a PATCH with the JSON Patch from previousState to desiredState, delete a
 * DELETE, read a GET, list a GET of one page. A mutation waits for its operation a while and answers
 * IN_PROGRESS (its request token as the callback context) until the operation ends; an error answer
 * is FAILED with its error code.
 */
import jsonpatch from 'fast-json-patch';
import { isErrorCode, type ErrorCode } from '../errors.js';
import type { HandlerEvent, HandlerRequest } from '../handler/types.js';
import { identifierOf, stripWriteOnly, type Model } from '../model/index.js';
import type { ProviderDefinition } from '../providers/sdk.js';
import type { ResourceType } from '../schema/index.js';

/**
 * How the adapter reaches the server: a call answering the parsed JSON of a 2xx answer, and throwing
 * for anything else an error carrying the answer's `errorCode` (and HTTP `status`, 0 for no answer).
 */
export type ApiCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

export interface ApiProviderOptions {
  /** Where the server is, for names and messages. */
  endpoint: string;
  type: ResourceType;
  call: ApiCall;
  /** How long one handler call waits for its operation before answering IN_PROGRESS (default 20 s). */
  waitMs?: number;
}

interface ProgressEvent {
  requestToken: string;
  operationStatus: string;
  resourceModel?: Model;
  statusMessage?: string;
  errorCode?: string;
}

/** Where a mutation is, between two calls of its handler. */
interface Waiting {
  requestToken: string;
}

const DEFAULT_WAIT_MS = 20_000;
const POLL_MS = 100;
const ENDED = new Set(['SUCCESS', 'FAILED', 'CANCEL_COMPLETE']);

const failed = (errorCode: ErrorCode, message: string): HandlerEvent => ({
  status: 'FAILED',
  errorCode,
  message,
});

/** The contract's code for an error answer: its own errorCode, else what its HTTP status means. */
function codeOf(error: unknown): ErrorCode {
  const { errorCode, status } = (error ?? {}) as { errorCode?: unknown; status?: unknown };
  if (isErrorCode(errorCode)) return errorCode;
  if (status === 0 || errorCode === 'TlsFailure') return 'NetworkFailure';
  if (status === 401 || status === 403) return 'AccessDenied';
  if (status === 404) return 'NotFound';
  if (status === 409) return 'ResourceConflict';
  if (status === 429) return 'Throttling';
  if (typeof status === 'number' && status >= 500) return 'ServiceInternalError';
  return 'InvalidRequest';
}

export function createApiProvider(options: ApiProviderOptions): ProviderDefinition {
  const { type, call } = options;
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const typePath = `/v1/resources/${encodeURIComponent(type.typeName)}`;

  const pathOf = (model: Model): string => {
    const id = identifierOf(type, model);
    if (id === undefined)
      throw Object.assign(
        new Error(`the model has no primary identifier (${type.primaryIdentifier.join(', ')})`),
        { errorCode: 'InvalidRequest' },
      );
    return `${typePath}/${encodeURIComponent(id)}`;
  };

  /** The operation's latest event, once it ends or `until` passes (or the handler's time is up). */
  const follow = async (event: ProgressEvent, until: number, signal: AbortSignal): Promise<ProgressEvent> => {
    while (!ENDED.has(event.operationStatus) && Date.now() < until && !signal.aborted) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const answer = (await call('GET', `/v1/requests/${encodeURIComponent(event.requestToken)}`)) as {
        progressEvent: ProgressEvent;
      };
      event = answer.progressEvent;
    }
    return event;
  };

  /** An answer, or FAILED with the code of the error the call threw. */
  const answered = async (fn: () => Promise<HandlerEvent>): Promise<HandlerEvent> => {
    try {
      return await fn();
    } catch (e) {
      return failed(codeOf(e), (e as Error)?.message ?? String(e));
    }
  };

  /** A mutation: started once (or found again by its request token), followed, then answered. */
  const mutation =
    (start: (request: HandlerRequest) => Promise<ProgressEvent>, answersModel: boolean) =>
    (request: HandlerRequest): Promise<HandlerEvent> =>
      answered(async () => {
        const until = Date.now() + waitMs;
        const waiting = request.callbackContext as Waiting | undefined;
        const started = waiting
          ? { requestToken: waiting.requestToken, operationStatus: 'IN_PROGRESS' }
          : await start(request);
        const event = await follow(started, until, request.signal);
        switch (event.operationStatus) {
          case 'SUCCESS': {
            if (!answersModel) return { status: 'SUCCESS' };
            // A model the event does not carry is read back (the answer of a create found again, say).
            const model =
              event.resourceModel ??
              ((await call('GET', pathOf(request.desiredState))) as { properties: Model }).properties;
            return { status: 'SUCCESS', resourceModel: model };
          }
          case 'FAILED':
            return failed(
              isErrorCode(event.errorCode) ? event.errorCode : 'GeneralServiceException',
              event.statusMessage ?? `the operation ${event.requestToken} failed`,
            );
          case 'CANCEL_COMPLETE':
            return failed('GeneralServiceException', `the operation ${event.requestToken} was cancelled`);
          default:
            return {
              status: 'IN_PROGRESS',
              callbackContext: { requestToken: event.requestToken } satisfies Waiting,
              callbackDelaySeconds: 0,
              ...(event.statusMessage ? { message: event.statusMessage } : {}),
              // The model so far, as the contract asks of IN_PROGRESS (a delete's may be left out).
              ...(answersModel
                ? { resourceModel: event.resourceModel ?? stripWriteOnly(type, request.desiredState) }
                : {}),
            };
        }
      });

  const progress = async (method: string, path: string, body: unknown): Promise<ProgressEvent> => {
    const wait = Math.max(0, Math.floor(waitMs / 1000));
    const answer = (await call(method, `${path}?wait=${wait}`, body)) as { progressEvent: ProgressEvent };
    return answer.progressEvent;
  };

  return {
    name: `api ${options.endpoint}`,
    types: [type.typeName],
    create: mutation(
      (request) =>
        progress('POST', typePath, {
          desiredState: request.desiredState,
          clientToken: request.clientRequestToken,
        }),
      true,
    ),
    update: mutation(
      (request) =>
        progress('PATCH', pathOf(request.desiredState), {
          patchDocument: jsonpatch.compare(request.previousState ?? {}, request.desiredState),
          clientToken: request.clientRequestToken,
        }),
      true,
    ),
    delete: mutation(
      (request) =>
        progress('DELETE', pathOf(request.desiredState), { clientToken: request.clientRequestToken }),
      false,
    ),
    read: (request) =>
      answered(async () => {
        const answer = (await call('GET', pathOf(request.desiredState))) as { properties: Model };
        return { status: 'SUCCESS', resourceModel: answer.properties };
      }),
    list: (request) =>
      answered(async () => {
        const query = new URLSearchParams();
        if (request.maxResults !== undefined) query.set('maxResults', String(request.maxResults));
        if (request.nextToken) query.set('nextToken', request.nextToken);
        const q = query.toString();
        const answer = (await call('GET', q ? `${typePath}?${q}` : typePath)) as {
          resourceDescriptions: { properties: Model }[];
          nextToken?: string | null;
        };
        return {
          status: 'SUCCESS',
          resourceModels: answer.resourceDescriptions.map((d) => d.properties),
          nextToken: answer.nextToken ?? null,
        };
      }),
  };
}
