/**
 * @module One HTTP exchange with an out-of-process provider: POST a JSON body, read the answer with a
 * size cap and a deadline, and say precisely how it went — above all whether the request can have
 * reached the provider, which decides whether a mutation may be sent again.
 *
 * Built on `node:http` rather than `fetch` for that reason: a request counts as possibly delivered
 * from the moment its connection is established (or reused), and `fetch` does not expose that.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

export type Outcome =
  /** The provider answered (any status); `body` holds at most the cap. */
  | { kind: 'response'; status: number; contentType: string | undefined; body: Buffer }
  /** No connection was made (refused, DNS failure, unreachable, TLS handshake failed): not delivered. */
  | { kind: 'unsent'; detail: string }
  /** The connection failed after it was established: the request may have been delivered. */
  | { kind: 'network'; detail: string }
  /** No complete answer within the per-call timeout; `sent` when the connection had been established. */
  | { kind: 'timeout'; sent: boolean }
  /** The caller's signal aborted the exchange. */
  | { kind: 'aborted'; reason: unknown }
  /** The answer is larger than the cap (by its Content-Length, or once that much was read). */
  | { kind: 'too-large'; limit: number };

export interface PostOptions {
  agent: http.Agent;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  maxResponseBytes: number;
  signal: AbortSignal;
}

/** A keep-alive agent for the URL's scheme; the caller destroys it when done. */
export function keepAliveAgent(url: URL): http.Agent {
  const options = { keepAlive: true, scheduling: 'lifo' as const };
  return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/** POST `body` to `url`; never rejects. */
export function post(url: URL, options: PostOptions): Promise<Outcome> {
  const { signal } = options;
  if (signal.aborted) return Promise.resolve({ kind: 'aborted', reason: signal.reason });
  const tls = url.protocol === 'https:';
  return new Promise<Outcome>((resolve) => {
    let connected = false;
    let settled = false;
    const request = (tls ? https : http).request(url, {
      method: 'POST',
      agent: options.agent,
      headers: { ...options.headers, 'content-length': String(options.body.length) },
    });
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      // A connection whose exchange did not complete is never reused.
      if (outcome.kind !== 'response') request.destroy();
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'aborted', reason: signal.reason });
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish({ kind: 'timeout', sent: connected }), options.timeoutMs);

    request.on('socket', (socket: Socket) => {
      // A reused keep-alive connection is established already; a new one once TCP (and TLS) is up.
      if (!socket.connecting) {
        connected = true;
        return;
      }
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        connected = true;
      });
    });
    request.on('error', (e: NodeJS.ErrnoException) => {
      const detail = describe(e);
      finish(connected ? { kind: 'network', detail } : { kind: 'unsent', detail });
    });
    request.on('response', (response) => {
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
        response.destroy();
        finish({ kind: 'too-large', limit: options.maxResponseBytes });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) {
          response.destroy();
          finish({ kind: 'too-large', limit: options.maxResponseBytes });
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        const contentType = response.headers['content-type'];
        finish({
          kind: 'response',
          status: response.statusCode ?? 0,
          contentType,
          body: Buffer.concat(chunks, size),
        });
      });
      response.on('error', (e: NodeJS.ErrnoException) => finish({ kind: 'network', detail: describe(e) }));
      response.on('close', () => {
        if (!response.complete)
          finish({ kind: 'network', detail: 'the connection closed in the middle of the answer' });
      });
    });
    request.end(options.body);
  });
}

/** A short description of a socket error, without anything from the request. */
function describe(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (ECONNREFUSED)';
    case 'ECONNRESET':
      return 'connection reset (ECONNRESET)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host name not resolved (${e.code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `host unreachable (${e.code})`;
    case 'EPIPE':
      return 'connection closed while sending (EPIPE)';
    default:
      return e.code ? `${e.message} (${e.code})` : e.message;
  }
}
