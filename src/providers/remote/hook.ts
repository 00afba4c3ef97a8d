/**
 * @module Hooks served over HTTP by a program in any language: each invocation is one POST of a
 * HookRequest (docs/provider-protocol/hook-request.schema.json) to the endpoint, answered by a
 * HookProgressEvent. Whatever goes wrong on the way becomes a FAILED answer with a code saying so
 * (`NetworkFailure`, `HandlerInternalFailure`), never a thrown error: the hook's failure mode decides.
 *
 * A hook only judges, so sending a request again is harmless: a call that could not connect, or
 * whose connection broke, is sent once more while the hook's time allows.
 *
 * @example
 * const tags = createRemoteHook({
 *   name: 'python-hooks',
 *   url: 'http://127.0.0.1:9000/',
 *   hooks: ['Acme::Policy::RequireTags'],
 * });
 */
import type { Agent } from 'node:http';
import type { HookAction, HookEvent, HookRequest, HookServer } from '../../handler/index.js';
import { keepAliveAgent, post, type Outcome } from './transport.js';
import { protocolSchemaValidator, schemaErrors } from './protocol.js';
import type { ValidateFunction } from 'ajv';

/** The protocol version hook requests are sent with: 1.2 added the hook actions. */
export const HOOK_PROTOCOL_VERSION = '1.2';

export type HookWireAction = 'PRE_CREATE' | 'PRE_UPDATE' | 'PRE_DELETE';

export const HOOK_WIRE_ACTION: Record<HookAction, HookWireAction> = {
  preCreate: 'PRE_CREATE',
  preUpdate: 'PRE_UPDATE',
  preDelete: 'PRE_DELETE',
};

export interface RemoteHookOptions {
  /** Shown in logs and verdicts. */
  name: string;
  /** The endpoint (`http:` or `https:`); every invocation is a POST to this one URL. */
  url: string;
  /** The hook type names it serves. */
  hooks: readonly string[];
  /** A hook schema file registered at start. */
  schema?: string;
  /** The largest answer read (default 64 KiB). */
  maxResponseBytes?: number;
  /** Extra request headers, e.g. `authorization`. */
  headers?: Record<string, string>;
}

export const DEFAULT_HOOK_MAX_RESPONSE_BYTES = 64 * 1024;
/** The invoker's signal ends a call at the hook's timeout (at most a minute); this only backs it up. */
const BACKSTOP_TIMEOUT_MS = 65_000;

/** The request body (see hook-request.schema.json): fields that do not apply are null. */
export function hookRequestMessage(request: HookRequest) {
  return {
    action: HOOK_WIRE_ACTION[request.action],
    hookTypeName: request.hookTypeName,
    clientRequestToken: request.clientRequestToken,
    requestData: {
      targetName: request.target.typeName,
      targetType: 'RESOURCE',
      targetLogicalId: request.target.logicalId ?? null,
      targetModel: {
        resourceProperties: request.target.properties,
        previousResourceProperties: request.target.previousProperties ?? null,
      },
    },
    hookConfiguration: request.hookConfiguration ?? null,
    caller: request.caller ?? null,
    callbackContext: request.callbackContext ?? null,
  };
}

let validateAnswer: ValidateFunction | undefined;

/** The answer as a HookEvent, or what is wrong with it. */
export function parseHookEvent(body: Buffer): { event: HookEvent } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    // The parser's message quotes the text, which may echo anything: left out.
    return { problem: `an answer that is not JSON (${body.length} bytes)` };
  }
  validateAnswer ??= protocolSchemaValidator('hook-progress-event.schema.json');
  if (!validateAnswer(value))
    return { problem: `an answer that is not a HookProgressEvent: ${schemaErrors(validateAnswer.errors)}` };
  const answer = value as { [K in keyof HookEvent]?: HookEvent[K] | null } & { status: HookEvent['status'] };
  const event: HookEvent = { status: answer.status };
  if (answer.errorCode != null) event.errorCode = answer.errorCode;
  if (answer.message != null) event.message = answer.message;
  if (answer.status === 'IN_PROGRESS') {
    event.callbackContext = answer.callbackContext ?? {};
    event.callbackDelaySeconds = answer.callbackDelaySeconds ?? 0;
  }
  return { event };
}

export function createRemoteHook(options: RemoteHookOptions): HookServer {
  const name = options?.name;
  if (typeof name !== 'string' || name === '') throw new TypeError('a remote hook needs a name');
  let url: URL;
  try {
    url = new URL(String(options.url));
  } catch {
    throw new TypeError(`remote hook ${name}: url must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`remote hook ${name}: url must be http: or https:, not ${url.protocol}`);
  if (
    !Array.isArray(options.hooks) ||
    options.hooks.length === 0 ||
    !options.hooks.every((h) => typeof h === 'string')
  )
    throw new TypeError(`remote hook ${name}: 'hooks' must list the hook type names it serves`);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_HOOK_MAX_RESPONSE_BYTES;
  // Credentials in the URL are used but never shown.
  const where = `${url.origin}${url.pathname}`;
  const headers: Record<string, string> = {
    ...options.headers,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'typeplane',
    'typeplane-protocol-version': HOOK_PROTOCOL_VERSION,
  };
  let agent: Agent | undefined = keepAliveAgent(url);

  const judge = (wire: HookWireAction, outcome: Outcome): { event: HookEvent; retry: boolean } => {
    const failed = (errorCode: string, message: string, retry = false) => ({
      event: { status: 'FAILED' as const, errorCode, message: `hook server ${name} ${message}` },
      retry,
    });
    switch (outcome.kind) {
      case 'response': {
        if (outcome.status < 200 || outcome.status > 299)
          return failed(
            'HandlerInternalFailure',
            `answered ${wire} with HTTP ${outcome.status}; a hook answers HTTP 200 with a HookProgressEvent, FAILED ones included`,
          );
        const parsed = parseHookEvent(outcome.body);
        if ('problem' in parsed)
          return failed('HandlerInternalFailure', `answered ${wire} with ${parsed.problem}`);
        return { event: parsed.event, retry: false };
      }
      case 'too-large':
        return failed('HandlerInternalFailure', `answered ${wire} with more than ${outcome.limit} bytes`);
      case 'unsent':
        return failed('NetworkFailure', `could not be reached at ${where}: ${outcome.detail}`, true);
      case 'network':
        return failed('NetworkFailure', `lost the connection at ${where}: ${outcome.detail}`, true);
      case 'timeout':
        return failed('NetworkFailure', `did not answer ${wire} at ${where} in time`);
      case 'aborted':
        return failed('NetworkFailure', `did not answer ${wire} at ${where} in time`);
    }
  };

  const call = async (request: HookRequest): Promise<HookEvent> => {
    const current = agent;
    if (!current)
      return { status: 'FAILED', errorCode: 'InternalFailure', message: `hook server ${name} is closed` };
    const wire = HOOK_WIRE_ACTION[request.action];
    const body = Buffer.from(JSON.stringify(hookRequestMessage(request)), 'utf8');
    for (let attempt = 0; ; attempt++) {
      // The signal carries the hook's deadline; the transport's own timer is only a backstop.
      const outcome = await post(url, {
        agent: current,
        headers,
        body,
        timeoutMs: BACKSTOP_TIMEOUT_MS,
        maxResponseBytes,
        signal: request.signal,
      });
      const { event, retry } = judge(wire, outcome);
      if (!retry || attempt >= 1 || request.signal.aborted) return event;
    }
  };

  return Object.freeze({
    name,
    hooks: [...options.hooks],
    ...(options.schema ? { schema: options.schema } : {}),
    preCreate: call,
    preUpdate: call,
    preDelete: call,
    close() {
      agent?.destroy();
      agent = undefined;
    },
  });
}
