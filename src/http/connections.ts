/**
 * @module What a connection may cost the server: how long a request may take to arrive, and what
 * becomes of a body the server answers before it has read it.
 *
 * Node's HTTP server waits for a request body for ever by default, and a minute for headers: a client
 * opening connections and sending a byte now and then could hold every one it opened, with or without
 * a token, until the process runs out of file descriptors. Here both have a deadline, checked often.
 *
 * A body refused before it is read (too large, or its request refused on its headers) is read and
 * dropped when it is of a bounded length, so that the client, still sending, reads the refusal and
 * keeps its connection. Closing instead, with the client's bytes unread, resets the connection: the
 * client's next write fails (EPIPE, ECONNRESET) and it may never see the answer.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** The request line and headers must arrive within this many milliseconds of the request's start. */
  headersMs: number;
  /** The whole request, body included, must arrive within this many milliseconds of its start. */
  requestMs: number;
  /**
   * Connections open at once; Node closes more as they arrive. Each holds a file descriptor and some
   * memory: without a bound, a flood of connections (deadlines or not) could take every descriptor
   * the process has, and the provider calls, files and database connections it needs would fail.
   */
  maxConnections: number;
}

/** Descriptors kept for what is not a client connection (database, providers, files, workers). */
const RESERVED_DESCRIPTORS = 512;
/** The most connections by default, whatever the descriptor limit: ~10-20 KB of memory each. */
const MAX_CONNECTIONS = 10_000;

/** The process's limit of open files (Linux's /proc/self/limits; Node raises it to the hard limit), if known. */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined)
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/** 10,000 connections, or fewer where the process may not open that many files (at least 64). */
export function defaultMaxConnections(openFiles = openFileLimit()): number {
  if (openFiles === undefined) return MAX_CONNECTIONS;
  return Math.max(64, Math.min(MAX_CONNECTIONS, openFiles - RESERVED_DESCRIPTORS));
}

/** A minute for a whole request (a 10 MB type document at 170 KB/s), 20 s for its headers. */
export const DEFAULT_CONNECTION_LIMITS: Omit<ConnectionLimits, 'maxConnections'> = {
  headersMs: 20_000,
  requestMs: 60_000,
};

/** Limits with the headers' no later than the request's, as Node requires. */
export function connectionLimits(given: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const requestMs = given.requestMs ?? DEFAULT_CONNECTION_LIMITS.requestMs;
  const headersMs = Math.min(given.headersMs ?? DEFAULT_CONNECTION_LIMITS.headersMs, requestMs);
  const maxConnections = given.maxConnections ?? defaultMaxConnections();
  for (const [name, value] of Object.entries({ headersMs, requestMs, maxConnections }))
    if (!(Number.isInteger(value) && value > 0))
      throw new RangeError(`${name} must be a whole number above 0`);
  return { headersMs, requestMs, maxConnections };
}

/**
 * How often Node looks for requests past their deadline: a tenth of the shorter one, within 0.1–5 s,
 * so that a deadline is kept to within 10% (Node's default of 30 s would let a 20 s one run to 50 s).
 */
export function checkIntervalMs({ headersMs, requestMs }: ConnectionLimits): number {
  return Math.max(100, Math.min(5_000, Math.floor(Math.min(headersMs, requestMs) / 10)));
}

/**
 * The most bytes of a refused body the server reads and drops to keep the connection: a few times
 * the largest body taken (10 MB, a type document). A longer body is answered and its connection
 * closed; the deadline for the whole request bounds the time either way.
 */
export const DRAIN_LIMIT = 32 * 1024 * 1024;

/**
 * Whether what is left of a request's body may be read and dropped once the request is answered,
 * rather than its connection closed: it has all arrived, or it declared a length of at most
 * {@link DRAIN_LIMIT}. A body of no declared length (chunked) may never end.
 */
export function drainable(request: IncomingMessage): boolean {
  if (request.complete) return true;
  const declared = request.headers['content-length'];
  if (declared === undefined) return request.headers['transfer-encoding'] === undefined;
  return Number(declared) <= DRAIN_LIMIT;
}

/** Connections whose request was answered before its body had all arrived, until it has. */
const answeredEarly = new WeakSet<Socket>();

/**
 * An answer is given before its request's body has all arrived: whether the connection must close
 * after it (what is left may be too long to drain, see {@link drainable}). Otherwise Node reads the
 * rest and drops it; should the rest come too late, or malformed, the connection is then closed
 * without another answer. The client has its answer: a 408 or 400 after it would read as the answer
 * to a request it never sent.
 */
export function answeringBeforeBody(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const socket = request.socket;
  answeredEarly.add(socket);
  request.once('end', () => answeredEarly.delete(socket));
  return !drainable(request);
}

/** Whether the connection's request was answered while its body was still arriving (see answeringBeforeBody). */
export function wasAnsweredEarly(socket: Socket): boolean {
  return answeredEarly.has(socket);
}

/** How long a connection refused at the HTTP level is still read, and what arrives dropped, before it is closed. */
export const LINGER_MS = 2000;
const lingering = new WeakSet<Socket>();

/**
 * Ends a connection after `answer` without losing it. Closing a socket while its client is still
 * sending makes the kernel answer with a reset, and a reset can make the client's side drop the answer
 * it has not read yet (a 408 to a client still dribbling its headers, say). So the answer is sent with
 * a FIN, what the client still sends is read and dropped (Node's parser, already in error, consumes
 * it), and the socket is destroyed once the client closes its side or after {@link LINGER_MS}.
 */
export function endAfter(socket: Socket, answer: string): void {
  lingering.add(socket);
  if (socket.writable) socket.end(answer);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** Whether the connection is being ended by {@link endAfter}: further parse errors on it need no answer. */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}
