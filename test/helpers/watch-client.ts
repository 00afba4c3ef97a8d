/**
 * A watch over real HTTP (node:http): the events as they arrive, parsed from NDJSON or Server-Sent
 * Events, and a wait for the next one matching a test.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface WatchEvent {
  type: string;
  object: any;
  /** The SSE `id:` line, when the stream is SSE. */
  id?: string;
}

export interface WatchClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's body as JSON when it is not a stream (a refusal). */
  body?: any;
  events: WatchEvent[];
  /** The next event (after those taken before) matching `test`, within `timeoutMs`. */
  next(test?: (e: WatchEvent) => boolean, timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  response: IncomingMessage;
  close(): void;
}

export function openWatch(
  url: string,
  path: string,
  token: string,
  accept = 'application/x-ndjson',
  headers: Record<string, string> = {},
): Promise<WatchClient> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(url + path), {
      headers: { authorization: `Bearer ${token}`, accept, ...headers },
    });
    req.on('error', reject);
    req.on('response', (response) => {
      const events: WatchEvent[] = [];
      let taken = 0;
      let waiters: (() => void)[] = [];
      const ended = new Promise<void>((done) => {
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      });
      void ended.then(() => waiters.forEach((w) => w()));
      let text = '';
      const sse = (response.headers['content-type'] ?? '').startsWith('text/event-stream');
      response.setEncoding('utf8');
      if (response.statusCode !== 200) {
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* kept as text */
          }
          resolve({ ...client(), body });
        });
        return;
      }
      response.on('data', (chunk: string) => {
        text += chunk;
        const separator = sse ? '\n\n' : '\n';
        let at: number;
        while ((at = text.indexOf(separator)) >= 0) {
          const piece = text.slice(0, at);
          text = text.slice(at + separator.length);
          if (sse) {
            let id: string | undefined;
            let data: string | undefined;
            for (const line of piece.split('\n')) {
              if (line.startsWith('id: ')) id = line.slice(4);
              if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (data !== undefined)
              events.push({ ...(JSON.parse(data) as WatchEvent), ...(id ? { id } : {}) });
          } else if (piece.trim() !== '') events.push(JSON.parse(piece) as WatchEvent);
        }
        const w = waiters;
        waiters = [];
        w.forEach((f) => f());
      });
      function client(): WatchClient {
        return {
          status: response.statusCode ?? 0,
          headers: response.headers,
          events,
          response,
          ended,
          close: () => req.destroy(),
          async next(test = () => true, timeoutMs = 5000) {
            const deadline = Date.now() + timeoutMs;
            for (;;) {
              while (taken < events.length) {
                const e = events[taken++]!;
                if (test(e)) return e;
              }
              if (response.complete || response.destroyed)
                throw new Error(`the stream ended; events: ${JSON.stringify(events).slice(0, 2000)}`);
              const left = deadline - Date.now();
              if (left <= 0)
                throw new Error(
                  `no matching event in ${timeoutMs} ms; events: ${JSON.stringify(events).slice(0, 2000)}`,
                );
              await new Promise<void>((wake) => {
                const timer = setTimeout(wake, left);
                waiters.push(() => {
                  clearTimeout(timer);
                  wake();
                });
              });
            }
          },
        };
      }
      resolve(client());
    });
    req.end();
  });
}
