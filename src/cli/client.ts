/**
 * @module A small HTTP client for the CLI commands that talk to a running server.
 *
 * On node:http rather than fetch: a command makes one or a few calls, and loading fetch's
 * implementation cost more CPU than the rest of a command's start together (~0.28 s of ~0.48 s).
 */
import type { IncomingMessage } from 'node:http';
import { exchange, openExchange, readText } from './exchange.js';
import { isThrottled, retryDelaySeconds, THROTTLE_RETRIES } from './throttle-retry.js';
import { readCaFile, speaksTls, tlsProblem, withProtocol } from './tls-problems.js';
import { queried } from './output.js';
import { UsageError } from './usage.js';
import { yaml } from './yaml.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:4780';

/** One event of a watch (see docs/watch.md). */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly details: unknown[],
  ) {
    super(message);
  }
}

export class Client {
  readonly endpoint: string;
  private readonly base: URL;
  private readonly ca: Buffer | undefined;

  /**
   * `token` is sent as `Authorization: Bearer` on every call; `caFile` (PEM) holds the CA an https://
   * endpoint's certificate must chain to, instead of the system's.
   */
  constructor(
    endpoint: string,
    private readonly token?: string,
    private readonly caFile?: string,
  ) {
    let base: URL | undefined;
    try {
      base = new URL(endpoint);
    } catch {
      /* reported below */
    }
    if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
      throw new UsageError(
        `the endpoint must be an http:// or https:// URL, not '${endpoint}' (--endpoint or TYPEPLANE_ENDPOINT)`,
      );
    }
    this.endpoint = endpoint;
    this.base = base;
    this.ca = caFile === undefined ? undefined : readCaFile(caFile);
  }

  /** `path` is appended to the endpoint's own path, so a server behind a path prefix works. */
  private url(path: string): URL {
    const url = new URL(this.base);
    const [pathname, query] = path.split('?', 2) as [string, string | undefined];
    url.pathname = url.pathname.replace(/\/+$/, '') + pathname;
    url.search = query ?? '';
    return url;
  }

  private headers(contentType?: string): Record<string, string> {
    return {
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
    };
  }

  async call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    let response: Awaited<ReturnType<typeof exchange>>;
    let parsed: unknown;
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers = this.headers(payload === undefined ? undefined : contentType);
    for (let attempt = 1; ; attempt++) {
      try {
        response = await exchange(method, this.url(path), headers, payload, this.ca);
      } catch (e) {
        throw await this.unreachable(e);
      }
      parsed = response.text === '' ? undefined : safeJson(response.text);
      if (attempt > THROTTLE_RETRIES || !isThrottled(response.status, parsed)) break;
      // Over this token's share of the server (docs/fairness.md): refused before any work, so sent again.
      const seconds = retryDelaySeconds(response.headers['retry-after'], attempt);
      process.stderr.write(
        `the server is throttling this token (429 Throttling); retrying in ${seconds.toFixed(1)} s (retry ${attempt} of ${THROTTLE_RETRIES})\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
    const text = response.text;
    if (response.status < 200 || response.status > 299)
      throw refusal(response.status, response.statusText, text, parsed);
    if (typeof parsed === 'string') {
      throw new ApiError(
        response.status,
        'UnexpectedResponse',
        `${this.endpoint} answered ${method} ${path} with something that is not JSON; is it a Typeplane server?`,
        [],
      );
    }
    return parsed as T;
  }

  /**
   * GET `path` as bytes to be read as they arrive (a backup): the answer once it starts with a 2xx
   * status. Refused or unreachable, it rejects as {@link call} does.
   */
  async download(path: string): Promise<IncomingMessage> {
    let response: IncomingMessage;
    try {
      response = await openExchange('GET', this.url(path), this.headers(), undefined, this.ca);
    } catch (e) {
      throw await this.unreachable(e);
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status <= 299) return response;
    const text = await readText(response).catch(() => '');
    throw refusal(status, response.statusMessage ?? '', text, text === '' ? undefined : safeJson(text));
  }

  /**
   * Watches `path` (a list route with `watch=true`): each event, parsed, to `onEvent` as it arrives.
   * Resolves with the ERROR event that ended the watch, or undefined when the server closed it
   * without one, or `onEvent` returned false (it has seen what it waited for: the watch is closed).
   * Refused or unreachable, it rejects as {@link call} does.
   */
  async watch(path: string, onEvent: (event: WatchEvent) => boolean | void): Promise<WatchEvent | undefined> {
    let response: IncomingMessage;
    try {
      const headers = { ...this.headers(), accept: 'application/x-ndjson' };
      response = await openExchange('GET', this.url(path), headers, undefined, this.ca);
    } catch (e) {
      throw await this.unreachable(e);
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const text = await readText(response).catch(() => '');
      throw refusal(status, response.statusMessage ?? '', text, text === '' ? undefined : safeJson(text));
    }
    response.setEncoding('utf8');
    let rest = '';
    let ended: WatchEvent | undefined;
    for await (const chunk of response as AsyncIterable<string>) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        const event = safeJson(line) as WatchEvent;
        if (event.type === 'ERROR') ended = event;
        // Leaving the loop closes the response, and so the watch.
        else if (onEvent(event) === false) return undefined;
      }
    }
    return ended;
  }

  /** What to say when no HTTP answer came: TLS, a server that is no Typeplane, or none at all. */
  private async unreachable(e: unknown): Promise<ApiError> {
    const code = (e as NodeJS.ErrnoException).code;
    const tls =
      this.base.protocol === 'https:' ? tlsProblem(e as Error, this.endpoint, this.caFile) : undefined;
    if (tls) return new ApiError(0, 'TlsFailure', `cannot talk to ${this.endpoint}: ${tls}`, []);
    // An answer that is not HTTP, or none before the connection closed.
    const noHttp = code === 'ECONNRESET' || code?.startsWith('HPE_');
    if (noHttp && this.base.protocol === 'http:' && (await speaksTls(this.base)))
      return new ApiError(
        0,
        'NetworkFailure',
        `cannot talk to ${this.endpoint}: this endpoint speaks HTTPS, not plain HTTP: use ${withProtocol(this.endpoint, 'https:')}`,
        [],
      );
    if (noHttp)
      return new ApiError(
        0,
        'NetworkFailure',
        `${this.endpoint} closed the connection without an HTTP answer; is it a Typeplane server, and is the scheme (http/https) right? (--endpoint or TYPEPLANE_ENDPOINT)`,
        [],
      );
    return new ApiError(
      0,
      'NetworkFailure',
      `cannot reach Typeplane at ${this.endpoint} (${code ?? (e as Error).message}); is 'typeplane serve' running? (--endpoint or TYPEPLANE_ENDPOINT)`,
      [],
    );
  }
}

/** An answer with a status outside 2xx, as the error it carries. */
function refusal(status: number, statusText: string, text: string, parsed: unknown): ApiError {
  const err = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as {
    errorCode?: string;
    message?: string;
    details?: unknown[];
  };
  return new ApiError(
    status,
    err.errorCode ?? `HTTP${status}`,
    err.message ?? (truncate(text.trim(), 200) || statusText),
    Array.isArray(err.details) ? err.details : [],
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `wide` is the table with more columns, where a command has more to show. */
export type OutputFormat = 'json' | 'yaml' | 'table' | 'wide';

/** `value` as `format` says, or what `--query` selects from it. */
export function render(value: unknown, format: OutputFormat, table?: () => string): string {
  const selected = queried(value);
  if (selected && 'text' in selected) return selected.text;
  if (selected) value = selected.value;
  if (format === 'yaml') return yaml().stringify(value).trimEnd();
  if ((format === 'table' || format === 'wide') && table) return table();
  return JSON.stringify(value, null, 2);
}

/** Fixed-width columns, the way kubectl prints lists. */
export function columns(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('   ');
  return [line(headers), ...rows.map(line)].join('\n');
}

export function truncate(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A spinner on a TTY while waiting; nothing elsewhere. */
export function spinner(stream: NodeJS.WriteStream, label: string): { stop(): void } {
  if (!stream.isTTY) return { stop() {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  const timer = setInterval(() => stream.write(`\r${frames[i++ % frames.length]} ${label}`), 80);
  return {
    stop() {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
