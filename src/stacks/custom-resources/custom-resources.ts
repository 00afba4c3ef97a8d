/**
 * @module Custom resources run: each Create, Update or Delete is one request POSTed to the resource's
 * ServiceToken (an allowed URL, see service-tokens.ts) and one response the handler PUTs to the
 * request's ResponseURL — a one-time, unguessable URL on this server — before ServiceTimeout runs out.
 *
 * What is pending lives in the store (its key-value table), under the step's client token: a
 * deployment resumed after a crash (here or on another replica) waits for the answer it already
 * asked for instead of asking twice, and a response PUT to any replica reaches the one waiting.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TypeplaneError } from '../../errors.js';
import type { CompiledType } from '../../registry/compile.js';
import type { Store } from '../../store/types.js';
import {
  asSent,
  parseResponse,
  type CustomResourceRequestBody,
  type CustomResourceResponse,
  type RequestType,
} from './protocol.js';
import { serviceTokenProblem } from './service-tokens.js';
import { customResourceType, isCustomResourceType, serviceTimeoutSeconds } from './type.js';

const PENDING = 'typeplane:custom-resource-requests';
const RESPONSE_URLS = 'typeplane:custom-resource-response-urls';
/** Where the ResponseURL is served. */
export const RESPONSE_ROUTE = '/v1/custom-resource-responses/:token';
/** How long the handler's endpoint may take to accept the request (its answer comes to the ResponseURL). */
const POST_TIMEOUT_MS = 30_000;
/** How often a wait reads the store, for a response another replica received. */
const POLL_MS = 1_000;

export interface CustomResourceSettings {
  /** URL prefixes a ServiceToken may be under; none: no custom resource is called. */
  serviceTokens?: string[];
  /** The URL handlers reach this server at (the ResponseURL's base); default: where it listens. */
  responseUrl?: string;
}

export interface CustomResourceRequest {
  requestType: RequestType;
  typeName: string;
  logicalId: string;
  stackId: string;
  /** The resource's PhysicalResourceId (Update and Delete). */
  physicalId?: string;
  properties: Record<string, unknown>;
  oldProperties?: Record<string, unknown>;
  /** The step's client token: the same step resumed waits for the answer it asked for. */
  clientToken: string;
}

export type CustomResourceOutcome = CustomResourceResponse & { requestId: string };

interface Pending {
  requestId: string;
  stackId: string;
  logicalId: string;
  deadline: string;
  /** The ServiceTimeout, in seconds. */
  timeoutS: number;
  urlKey: string;
  response?: CustomResourceResponse;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class CustomResources {
  private readonly allowed: readonly string[];
  private readonly answered = new EventEmitter().setMaxListeners(0);
  private base: string | undefined;

  constructor(
    private readonly store: Store,
    settings: CustomResourceSettings = {},
  ) {
    this.allowed = settings.serviceTokens ?? [];
    this.base = settings.responseUrl?.replace(/\/+$/, '');
  }

  /** Where this server listens: the ResponseURL's base unless the settings named one. */
  listeningAt(url: string): void {
    this.base ??= url.replace(/\/+$/, '');
  }

  /** The type of a custom resource (`Custom::*`, `AWS::CloudFormation::CustomResource`), else undefined. */
  typeOf(typeName: string): CompiledType | undefined {
    return isCustomResourceType(typeName) ? customResourceType(typeName, this.allowed) : undefined;
  }

  /** Send one request to the resource's handler and wait for its response (or its ServiceTimeout). */
  async run(req: CustomResourceRequest): Promise<CustomResourceOutcome> {
    const key = sha256(req.clientToken);
    const held = await this.store.kvGet(PENDING, key);
    let pending = held?.value as Pending | undefined;
    try {
      if (!pending) pending = await this.send(req, key);
      if (!pending.response) pending = await this.wait(key, pending);
      return { ...pending.response!, requestId: pending.requestId };
    } catch (e) {
      if (!(e instanceof TypeplaneError)) throw e;
      return {
        status: 'FAILED',
        reason: e.message,
        data: {},
        noEcho: false,
        requestId: pending?.requestId ?? '',
      };
    } finally {
      if (pending) {
        await this.store.kvDelete(RESPONSE_URLS, pending.urlKey);
        await this.store.kvDelete(PENDING, key);
      }
    }
  }

  private async send(req: CustomResourceRequest, key: string): Promise<Pending> {
    const token = String(req.properties.ServiceToken ?? '');
    // Checked at validate and plan already; checked again here, as the value may only now be known.
    const problem = serviceTokenProblem(token, this.allowed);
    if (problem) throw new TypeplaneError('InvalidRequest', problem);
    const timeout = serviceTimeoutSeconds(req.properties.ServiceTimeout);
    if (typeof timeout === 'string') throw new TypeplaneError('InvalidRequest', timeout);
    if (this.base === undefined)
      throw new TypeplaneError(
        'InternalFailure',
        'this server does not know its own URL for the ResponseURL',
      );
    const secret = randomBytes(32).toString('base64url');
    const pending: Pending = {
      requestId: randomUUID(),
      stackId: req.stackId,
      logicalId: req.logicalId,
      deadline: new Date(Date.now() + timeout * 1000).toISOString(),
      timeoutS: timeout,
      urlKey: sha256(secret),
    };
    await this.store.kvInsert(PENDING, key, { value: { ...pending }, writtenBy: pending.requestId });
    await this.store.kvInsert(RESPONSE_URLS, pending.urlKey, {
      value: { pendingKey: key },
      writtenBy: pending.requestId,
    });
    const body: CustomResourceRequestBody = {
      RequestType: req.requestType,
      ResponseURL: `${this.base}${RESPONSE_ROUTE.replace(':token', secret)}`,
      StackId: req.stackId,
      RequestId: pending.requestId,
      ResourceType: req.typeName,
      LogicalResourceId: req.logicalId,
      ...(req.physicalId !== undefined ? { PhysicalResourceId: req.physicalId } : {}),
      ResourceProperties: asSent(req.properties) as Record<string, unknown>,
      ...(req.oldProperties !== undefined
        ? { OldResourceProperties: asSent(req.oldProperties) as Record<string, unknown> }
        : {}),
    };
    await post(new URL(token), JSON.stringify(body));
    return pending;
  }

  private async wait(key: string, pending: Pending): Promise<Pending> {
    const deadline = Date.parse(pending.deadline);
    for (;;) {
      const entry = await this.store.kvGet(PENDING, key);
      const now = entry?.value as Pending | undefined;
      if (now?.response) return now;
      // Settled and let go by another server running this step (its deployment's lease passed here).
      if (!now)
        throw new TypeplaneError(
          'ResourceConflict',
          "the custom resource's request was settled by another server running this deployment",
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new TypeplaneError(
          'NotStabilized',
          `the custom resource's handler sent no response to the ResponseURL within its ServiceTimeout (${pending.timeoutS} s)`,
        );
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.answered.off(key, done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, POLL_MS));
        this.answered.on(key, done);
      });
    }
  }

  /**
   * The handler's response PUT to a ResponseURL (`token` its last part): kept for the request waiting
   * on it. A URL answers once; an unknown, used or expired one is NotFound.
   */
  async respond(token: string, body: Buffer): Promise<void> {
    const urlKey = sha256(token);
    const link = await this.store.kvGet(RESPONSE_URLS, urlKey);
    const gone = new TypeplaneError(
      'NotFound',
      'no custom resource request waits for a response at this URL (it answered already, timed out, or never was)',
    );
    if (!link) throw gone;
    const key = String(link.value.pendingKey);
    const entry = await this.store.kvGet(PENDING, key);
    const pending = entry?.value as Pending | undefined;
    if (!entry || !pending || pending.response || Date.parse(pending.deadline) < Date.now()) throw gone;
    const response = parseResponse(body, pending);
    const swapped = await this.store.kvSwap(
      PENDING,
      key,
      {
        value: { ...pending, response } as unknown as Record<string, unknown>,
        writtenBy: `${pending.requestId}:answered`,
      },
      entry.writtenBy,
    );
    if (!swapped) throw gone;
    await this.store.kvDelete(RESPONSE_URLS, urlKey);
    this.answered.emit(key);
  }
}

/** POST `body` to the handler; a refusal (not 2xx, a redirect, no answer) fails the request at once. */
function post(url: URL, body: string): Promise<void> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: POST_TIMEOUT_MS,
      },
      (res) => {
        // The answer's body says nothing the protocol reads: drained, not kept.
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else
          reject(
            new TypeplaneError(
              'NetworkFailure',
              `the custom resource's handler at ${url.origin}${url.pathname} answered ${status} to the request${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`,
            ),
          );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${POST_TIMEOUT_MS / 1000} s`)));
    req.on('error', (e) =>
      reject(
        new TypeplaneError(
          'NetworkFailure',
          `the custom resource's handler at ${url.origin}${url.pathname} could not be reached: ${e.message}`,
        ),
      ),
    );
    req.end(body);
  });
}
