/**
 * @module A small HTTP client for the CLI commands that talk to a running server.
 *
 * On node:http rather than fetch: a command makes one or a few calls, and loading fetch's
 * implementation cost more CPU than the rest of a command's start together (~0.28 s of ~0.48 s).
 */
import { exchange } from './exchange.js';
import { readCaFile, speaksTls, tlsProblem, withProtocol } from './tls-problems.js';
import { queried } from './output.js';
import { UsageError } from './usage.js';
import { yaml } from './yaml.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:4780';

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

  async call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    let response: { status: number; statusText: string; text: string };
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers = {
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...(payload === undefined ? {} : { 'content-type': contentType }),
    };
    try {
      response = await exchange(method, this.url(path), headers, payload, this.ca);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const tls =
        this.base.protocol === 'https:' ? tlsProblem(e as Error, this.endpoint, this.caFile) : undefined;
      if (tls) throw new ApiError(0, 'TlsFailure', `cannot talk to ${this.endpoint}: ${tls}`, []);
      // An answer that is not HTTP, or none before the connection closed.
      const noHttp = code === 'ECONNRESET' || code?.startsWith('HPE_');
      if (noHttp && this.base.protocol === 'http:' && (await speaksTls(this.base)))
        throw new ApiError(
          0,
          'NetworkFailure',
          `cannot talk to ${this.endpoint}: this endpoint speaks HTTPS, not plain HTTP: use ${withProtocol(this.endpoint, 'https:')}`,
          [],
        );
      if (noHttp)
        throw new ApiError(
          0,
          'NetworkFailure',
          `${this.endpoint} closed the connection without an HTTP answer; is it a Typeplane server, and is the scheme (http/https) right? (--endpoint or TYPEPLANE_ENDPOINT)`,
          [],
        );
      throw new ApiError(
        0,
        'NetworkFailure',
        `cannot reach Typeplane at ${this.endpoint} (${code ?? (e as Error).message}); is 'typeplane serve' running? (--endpoint or TYPEPLANE_ENDPOINT)`,
        [],
      );
    }
    const text = response.text;
    const parsed: unknown = text === '' ? undefined : safeJson(text);
    if (response.status < 200 || response.status > 299) {
      const err = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as {
        errorCode?: string;
        message?: string;
        details?: unknown[];
      };
      throw new ApiError(
        response.status,
        err.errorCode ?? `HTTP${response.status}`,
        err.message ?? (truncate(text.trim(), 200) || response.statusText),
        Array.isArray(err.details) ? err.details : [],
      );
    }
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
