/**
 * @module A small HTTP client for the CLI commands that talk to a running server.
 */
import { stringify as toYaml } from 'yaml';

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
  constructor(readonly endpoint: string) {}

  async call<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.endpoint), {
        method,
        headers: body === undefined ? {} : { 'content-type': contentType },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
      throw new ApiError(0, 'NetworkFailure', `cannot reach Typeplane at ${this.endpoint} (${cause}); is 'typeplane serve' running? (--endpoint or TYPEPLANE_ENDPOINT)`, []);
    }
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : safeJson(text);
    if (!response.ok) {
      const err = (parsed ?? {}) as { errorCode?: string; message?: string; details?: unknown[] };
      throw new ApiError(response.status, err.errorCode ?? `HTTP${response.status}`, err.message ?? text, err.details ?? []);
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

export type OutputFormat = 'json' | 'yaml' | 'table';

export function render(value: unknown, format: OutputFormat, table?: () => string): string {
  if (format === 'yaml') return toYaml(value).trimEnd();
  if (format === 'table' && table) return table();
  return JSON.stringify(value, null, 2);
}

/** Fixed-width columns, the way kubectl prints lists. */
export function columns(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('   ');
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
