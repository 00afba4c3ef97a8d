/**
 * @module The audit trail's view of the API: every change and every refusal, once answered, handed
 * to the auditor with who (the token's id), from where, the route's verb and object, and the outcome
 * (status, and the error's code and message, or the operation's request token from a 202). A change
 * runs only once its record can be taken (see audit/store-trail.ts); the store's trail is served on
 * `GET /v1/audit` (routes/audit.ts). An answer streamed at length (a backup) is recorded when it
 * ends, sent whole or cut short, with the bytes sent.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAudited, objectRefOf, verbOf, verdictAnnotations, type Auditor } from '../audit/index.js';
import { auditRoutes } from './routes/audit.js';

interface Outcome {
  errorCode?: string;
  message?: string;
  requestToken?: string;
  identifier?: string;
  annotations?: Record<string, string>;
}

/** A streamed answer's bytes, counted as they are handed on to the connection. */
function counted(payload: Readable, count: (bytes: number) => void): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of payload) {
      count((chunk as Buffer).length);
      yield chunk as Buffer;
    }
  }
  return Readable.from(chunks());
}

/** What a streamed answer's record says of how it ended. */
function streamOutcome(bytes: number, complete: boolean): Outcome {
  return {
    ...(complete
      ? {}
      : {
          message: `the answer stopped after ${bytes} bytes, before its end (the client went away, or reading failed)`,
        }),
    annotations: { 'typeplane.dev/bytes-sent': String(bytes), 'typeplane.dev/complete': String(complete) },
  };
}

const REQUEST_TOKEN = /"requestToken":"([^"\\]{1,512})"/;
const IDENTIFIER = /"identifier":"([^"\\]{1,4096})"/;

/** What the answer's body says of the outcome: read only for recorded requests, and only small errors parsed. */
function outcomeOf(status: number, payload: unknown): Outcome {
  if (typeof payload !== 'string') return {};
  if (status >= 400) {
    if (payload.length > 65536) return {};
    try {
      const body = JSON.parse(payload) as { errorCode?: unknown; message?: unknown };
      return {
        ...(typeof body.errorCode === 'string' ? { errorCode: body.errorCode } : {}),
        ...(typeof body.message === 'string' ? { message: body.message } : {}),
      };
    } catch {
      return {};
    }
  }
  const token = REQUEST_TOKEN.exec(payload)?.[1];
  const identifier = IDENTIFIER.exec(payload)?.[1];
  return {
    ...(token !== undefined ? { requestToken: token } : {}),
    ...(identifier !== undefined ? { identifier } : {}),
  };
}

export function registerAuditHook(app: FastifyInstance, auditor: Auditor): void {
  const outcomes = new WeakMap<FastifyRequest, Outcome>();
  const audited = (request: FastifyRequest, status: number) =>
    isAudited(request.method, request.routeOptions.url, status);
  const trail = auditor.trail;
  if (trail) {
    // After authentication (a stranger's refusal waits for nothing), before the body is read: a
    // change waits for room in the trail's buffer, or is refused before it changes anything.
    app.addHook('onRequest', (request, _reply, done) => {
      const waiting = audited(request, 200) ? auditor.admit() : undefined;
      if (!waiting) return done();
      waiting.then(() => done(), done);
    });
    void app.register(auditRoutes, { trail });
  }
  /** Answers recorded when their connection lets go of them, not on onResponse. */
  const streamed = new WeakSet<FastifyRequest>();
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!audited(request, reply.statusCode)) return done(null, payload);
    if (!(payload instanceof Readable)) {
      outcomes.set(request, outcomeOf(reply.statusCode, payload));
      return done(null, payload);
    }
    // onResponse never hears of an answer cut short: recorded on close, finished or not.
    let bytes = 0;
    streamed.add(request);
    reply.raw.once('close', () => record(request, reply, streamOutcome(bytes, reply.raw.writableFinished)));
    done(
      null,
      counted(payload, (n) => (bytes += n)),
    );
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (audited(request, reply.statusCode) && !streamed.has(request))
      record(request, reply, outcomes.get(request) ?? {});
    done();
  });

  function record(request: FastifyRequest, reply: FastifyReply, outcome: Outcome): void {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    const objectRef = objectRefOf(route, request.url, request.params);
    if (outcome.requestToken !== undefined && objectRef.resource === 'resources')
      objectRef.requestToken = outcome.requestToken;
    if (outcome.identifier !== undefined && objectRef.resource === 'resources')
      objectRef.identifier ??= outcome.identifier;
    const principal = request.principal;
    const userAgent = request.headers['user-agent'];
    const verdicts = verdictAnnotations(request.verdicts);
    const annotations = verdicts || outcome.annotations ? { ...verdicts, ...outcome.annotations } : undefined;
    void auditor.record({
      requestID: request.id,
      method: request.method,
      url: request.url,
      ...(route !== undefined ? { route } : {}),
      params: request.params,
      query: request.query,
      body: request.body,
      verb: verbOf(request.method, route),
      objectRef,
      user: principal ? { tokenId: principal.tokenId, role: principal.role, authentication: 'bearer' } : {},
      ...(request.ip !== undefined ? { sourceIP: request.ip } : {}),
      ...(typeof userAgent === 'string' ? { userAgent } : {}),
      status,
      ...(outcome.errorCode !== undefined ? { errorCode: outcome.errorCode } : {}),
      ...(outcome.message !== undefined ? { message: outcome.message } : {}),
      receivedAt: Date.now() - reply.elapsedTime,
      ...(annotations ? { annotations } : {}),
    });
  }
}
