/**
 * @module Out-of-process providers: a provider written in any language, serving the provider protocol
 * (docs/provider-protocol.md) over HTTP, used like any other provider.
 *
 * Each handler invocation is one POST of a HandlerRequest to the provider's URL, answered by a
 * ProgressEvent. Whatever goes wrong on the way becomes a FAILED event with a contract code, never a
 * thrown error: no connection → `NetworkFailure`; an answer that is not a valid ProgressEvent (HTTP
 * error, not JSON, wrong shape, too large) → `HandlerInternalFailure`.
 *
 * Retries (exponential backoff with jitter) only where safe: READ and LIST always, CREATE, UPDATE and
 * DELETE only when no connection was made, so the request cannot have been delivered. The provider
 * still has to recognise a repeated `clientRequestToken` as the same request: the engine re-invokes
 * handlers with the same token after a restart or a lost answer.
 *
 * @example
 * const notes = createRemoteProvider({
 *   name: 'python-notes',
 *   url: 'http://127.0.0.1:8080/',
 *   types: ['Example::Python::Note'],
 * });
 * await startService({ dataDir, providers: new Map(notes.types.map((t) => [t, notes])) });
 */
import type { Agent } from 'node:http';
import type { ErrorCode } from '../../errors.js';
import { defineProvider, type ProviderDefinition } from '../sdk.js';
import type { HandlerAction, HandlerEvent, HandlerRequest } from '../../handler/index.js';
import { PROTOCOL_VERSION, WIRE_ACTION, loadEventSchema, parseEvent, requestMessage } from './protocol.js';
import { keepAliveAgent, post, type Outcome } from './transport.js';
import { inClientSpan, traced } from '../../telemetry/spans.js';

export { PROTOCOL_VERSION, type HandlerRequestMessage, type WireAction } from './protocol.js';

export interface RemoteProviderOptions {
  /** Shown in logs and error messages. */
  name: string;
  /** The provider's endpoint (`http:` or `https:`); every action is a POST to this one URL. */
  url: string;
  /** The type names it serves. */
  types: readonly string[];
  /** Schema or manifest files to register with the provider (see `ProviderDefinition.schemas`). */
  schemas?: readonly string[];
  /** Most milliseconds one HTTP exchange may take, connecting included (default 30,000). */
  timeoutMs?: number;
  /** How many times a failed call is sent again where that is safe (default 3). */
  retries?: number;
  /** The first retry's delay; doubled each time up to 5 s, with jitter (default 200). */
  retryDelayMs?: number;
  /** The largest answer read (default 5 MiB); a larger one is HandlerInternalFailure. */
  maxResponseBytes?: number;
  /** Extra request headers, e.g. `authorization`. */
  headers?: Record<string, string>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 3;
export const DEFAULT_RETRY_DELAY_MS = 200;
export const MAX_RETRY_DELAY_MS = 5_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** What one attempt came to: the event to answer with, and whether sending again is safe and useful. */
interface Verdict {
  event: HandlerEvent;
  retry: boolean;
}

export function createRemoteProvider(options: RemoteProviderOptions): ProviderDefinition {
  const name = options?.name;
  if (typeof name !== 'string' || name === '') throw new TypeError('a remote provider needs a name');
  const url = parseUrl(name, options.url);
  const timeoutMs = positive(name, 'timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const retries = wholeNumber(name, 'retries', options.retries, DEFAULT_RETRIES);
  const retryDelayMs = positive(name, 'retryDelayMs', options.retryDelayMs, DEFAULT_RETRY_DELAY_MS);
  const maxResponseBytes = positive(
    name,
    'maxResponseBytes',
    options.maxResponseBytes,
    DEFAULT_MAX_RESPONSE_BYTES,
  );
  // Credentials in the URL are used (http sends them as basic auth) but never shown.
  const where = `${url.origin}${url.pathname}`;
  // A provider named by its URL is not named twice in one message ("provider X … at X").
  const label = name === options.url || name === where ? 'the provider' : `provider ${name}`;
  const headers: Record<string, string> = {
    ...options.headers,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'typeplane',
    'typeplane-protocol-version': PROTOCOL_VERSION,
  };
  loadEventSchema();
  let agent: Agent | undefined = keepAliveAgent(url);

  const judge = (action: HandlerAction, outcome: Outcome): Verdict => {
    const wire = WIRE_ACTION[action];
    const idempotent = action === 'read' || action === 'list';
    const failed = (errorCode: ErrorCode, message: string, retry: boolean): Verdict => ({
      event: { status: 'FAILED', errorCode, message: `${label} ${message}` },
      retry,
    });
    switch (outcome.kind) {
      case 'response': {
        if (outcome.status < 200 || outcome.status > 299) {
          return failed(
            'HandlerInternalFailure',
            `answered ${wire} with HTTP ${outcome.status} (${outcome.contentType ?? 'no content type'}, ${outcome.body.length} bytes); a provider answers HTTP 200 with a ProgressEvent, FAILED ones included`,
            idempotent && (outcome.status === 429 || outcome.status >= 500),
          );
        }
        const parsed = parseEvent(action, outcome.body);
        if (parsed.problem !== undefined)
          return failed('HandlerInternalFailure', `answered ${wire} with ${parsed.problem}`, false);
        return { event: parsed.event, retry: false };
      }
      case 'too-large':
        return failed(
          'HandlerInternalFailure',
          `answered ${wire} with more than ${outcome.limit} bytes, the most an answer may have`,
          false,
        );
      case 'unsent':
        return failed(
          'NetworkFailure',
          `could not be reached at ${where} for ${wire}: ${outcome.detail}`,
          true,
        );
      case 'network':
        return failed(
          'NetworkFailure',
          `lost the connection at ${where} during ${wire}: ${outcome.detail}${idempotent ? '' : '; not sent again, since the provider may have carried it out'}`,
          idempotent,
        );
      case 'timeout':
        if (!outcome.sent)
          return failed(
            'NetworkFailure',
            `could not be reached at ${where} for ${wire} within ${timeoutMs} ms`,
            true,
          );
        if (idempotent)
          return failed('NetworkFailure', `did not answer ${wire} at ${where} within ${timeoutMs} ms`, true);
        return failed(
          'HandlerInternalFailure',
          `did not answer ${wire} at ${where} within ${timeoutMs} ms; not sent again, since the provider may be carrying it out (handlers must answer quickly, with IN_PROGRESS for long work)`,
          false,
        );
      case 'aborted':
        return failed('NotStabilized', `was stopped during ${wire}: ${reasonText(outcome.reason)}`, false);
    }
  };

  const call = async (action: HandlerAction, request: HandlerRequest): Promise<HandlerEvent> => {
    try {
      const current = agent;
      if (!current)
        return { status: 'FAILED', errorCode: 'InternalFailure', message: `provider ${name} is closed` };
      const body = Buffer.from(JSON.stringify(requestMessage(action, request)), 'utf8');
      for (let attempt = 0; ; attempt++) {
        const send = (sent: Record<string, string>) =>
          post(url, {
            agent: current,
            headers: sent,
            body,
            timeoutMs,
            maxResponseBytes,
            signal: request.signal,
          });
        // Traced, each attempt is a client span, and the provider gets its traceparent.
        const outcome = await (traced()
          ? inClientSpan('POST', url, headers, send, (o) => (o.kind === 'response' ? o.status : o.kind))
          : send(headers));
        const verdict = judge(action, outcome);
        if (!verdict.retry) return verdict.event;
        if (attempt >= retries) return withAttempts(verdict.event, attempt + 1);
        const delay = backoff(retryDelayMs, attempt);
        request.logger.warn('remote provider call failed; sending it again', {
          provider: name,
          action: WIRE_ACTION[action],
          attempt: attempt + 1,
          delayMs: Math.round(delay),
          problem: verdict.event.message,
        });
        if (!(await sleep(delay, request.signal)))
          return judge(action, { kind: 'aborted', reason: request.signal.reason }).event;
      }
    } catch (e) {
      // Nothing above should throw; if it does, the contract still wants an event.
      return {
        status: 'FAILED',
        errorCode: 'InternalFailure',
        message: `calling provider ${name} failed: ${e instanceof Error ? e.message : String(e)}`,
      };
    }
  };

  return defineProvider({
    name,
    types: options.types,
    ...(options.schemas ? { schemas: options.schemas } : {}),
    create: (request) => call('create', request),
    read: (request) => call('read', request),
    update: (request) => call('update', request),
    delete: (request) => call('delete', request),
    list: (request) => call('list', request),
    close() {
      agent?.destroy();
      agent = undefined;
    },
  });
}

/** Exponential backoff with "equal jitter": half the delay fixed, half random, so retries spread out. */
function backoff(base: number, attempt: number): number {
  const delay = Math.min(MAX_RETRY_DELAY_MS, base * 2 ** attempt);
  return delay / 2 + Math.random() * (delay / 2);
}

/** Wait `ms`; false when the signal aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A failure that retrying did not cure says how often it was tried. */
function withAttempts(event: HandlerEvent, attempts: number): HandlerEvent {
  if (attempts < 2) return event;
  return { ...event, message: `${event.message ?? ''} (after ${attempts} attempts)` };
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? 'aborted' : String(reason);
}

function parseUrl(name: string, value: unknown): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new TypeError(`remote provider ${name}: url must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`remote provider ${name}: url must be http: or https:, not ${url.protocol}`);
  return url;
}

function positive(name: string, option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new TypeError(`remote provider ${name}: ${option} must be a positive number`);
  return value;
}

function wholeNumber(name: string, option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new TypeError(`remote provider ${name}: ${option} must be a whole number, 0 or more`);
  return value;
}
