/**
 * @module `--watch` on the list commands: after the list, each change as the server streams it
 * (docs/watch.md), from the list's resourceVersion so that nothing between the two is missed — a line
 * a change in a table, one JSON document a line with `-o json`, a YAML document each with `-o yaml`.
 */
import { ApiError, type Client, type OutputFormat, type WatchEvent } from './client.js';
import { EXIT } from './usage.js';
import { yaml } from './yaml.js';

/**
 * Follows `path` (`?watch=true&resourceVersion=…` included) until the server ends the watch: exit 1
 * with the reason it gave (a revoked token, a client too slow, the server shutting down), 0 when it
 * closed without one. BOOKMARKs are not printed.
 */
export async function followWatch(
  client: Client,
  path: string,
  output: OutputFormat,
  line: (event: WatchEvent) => string,
): Promise<number> {
  const ended = await client.watch(path, (event) => {
    if (event.type === 'BOOKMARK') return;
    process.stdout.write(
      output === 'json'
        ? `${JSON.stringify(event)}\n`
        : output === 'yaml'
          ? `---\n${yaml().stringify(event)}`
          : `${line(event)}\n`,
    );
  });
  if (!ended) return EXIT.ok;
  throw watchEnded(ended, 'the watch ended');
}

/** The error a watch's ERROR event (or its end without one) says, after `what`. */
export function watchEnded(ended: WatchEvent | undefined, what: string): ApiError {
  const { errorCode, message, code } = (ended?.object ?? {}) as {
    errorCode?: string;
    message?: string;
    code?: number;
  };
  return new ApiError(code ?? 0, errorCode ?? 'WatchEnded', `${what}: ${message ?? 'no reason given'}`, []);
}

/** A table line of a change: its type, then `cells`, two spaces apart (a table's header is printed before). */
export function eventLine(event: WatchEvent, cells: readonly string[]): string {
  return [event.type.padEnd(8), ...cells].join('  ');
}
