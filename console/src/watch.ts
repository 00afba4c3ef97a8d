/**
 * A watch (docs/watch.md) read with fetch and a stream, not EventSource: EventSource cannot send an
 * Authorization header, and the token must not go in a URL. The NDJSON form, one event a line.
 * Resumes from the last version seen when the stream ends; a 410 (the version expired) asks the page
 * to list again.
 */
import { authorization, ApiError, signOut } from './api';

export interface WatchEvent<T = Record<string, unknown>> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T & { resourceVersion?: string };
}

export interface WatchHandlers<T> {
  event(event: WatchEvent<T>): void;
  /** The watch's version expired (410) or it failed for good: list again, or say why. */
  failed(error: ApiError | Error): void;
  /** Whether the watch is connected (for the "live" mark). */
  live?(live: boolean): void;
}

const RETRY_MS = 2000;

/** Watches `path` (a list route) from `resourceVersion`; returns the function that stops it. */
export function watch<T>(
  path: string,
  resourceVersion: string | undefined,
  handlers: WatchHandlers<T>,
): () => void {
  const abort = new AbortController();
  let version = resourceVersion;
  const run = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        const query = `watch=true${version ? `&resourceVersion=${encodeURIComponent(version)}` : ''}`;
        const answer = await fetch(`${path}${path.includes('?') ? '&' : '?'}${query}`, {
          headers: { accept: 'application/x-ndjson', ...authorization() },
          signal: abort.signal,
          credentials: 'omit',
          cache: 'no-store',
        });
        if (!answer.ok || !answer.body) {
          const body = (await answer.json().catch(() => ({}))) as { errorCode?: string; message?: string };
          throw new ApiError(answer.status, body.errorCode ?? 'Error', body.message ?? answer.statusText);
        }
        // A server without this watch answers the list as a page: the caller reads pages instead.
        if (!(answer.headers.get('content-type') ?? '').includes('ndjson')) {
          void answer.body.cancel();
          throw new ApiError(501, 'NotSupported', `${path} cannot be watched on this server`);
        }
        handlers.live?.(true);
        await readLines(answer.body, (line) => {
          const event = JSON.parse(line) as WatchEvent<T>;
          if (event.object?.resourceVersion) version = event.object.resourceVersion;
          if (event.type === 'ERROR') {
            const error = event.object as unknown as { code?: number; errorCode?: string; message?: string };
            if (error.code === 410 || error.code === 401 || error.code === 403)
              throw new ApiError(error.code, error.errorCode ?? 'Error', error.message ?? 'the watch ended');
            return;
          }
          handlers.event(event);
        });
      } catch (error) {
        if (abort.signal.aborted) return;
        handlers.live?.(false);
        if (error instanceof ApiError && [400, 401, 403, 404, 410, 501].includes(error.status)) {
          // A watch ends with 401 when its token is revoked: the console signs out, as a request would.
          if (error.status === 401) signOut();
          handlers.failed(error);
          return;
        }
      }
      handlers.live?.(false);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void run();
  return () => abort.abort();
}

async function readLines(body: ReadableStream<Uint8Array>, line: (text: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (text !== '') line(text);
    }
  }
}
