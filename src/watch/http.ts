/**
 * @module The watch query of a list route: `?watch=true[&resourceVersion=N]`, the stream's format
 * chosen by `Accept`, and Last-Event-ID (what an EventSource sends when it reconnects) as the
 * version when the query names none.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TypeplaneError } from '../errors.js';
import type { Principal } from '../auth/index.js';
import type { WatchFormat } from './stream.js';
import type { Watches, WatchTarget } from './watches.js';

/** The query parameters a watch reads (besides `watch`); others are refused on a watch. */
export const WATCH_PARAMETERS = ['watch', 'resourceVersion', 'allowWatchBookmarks'] as const;

/** Whether the query asks for a watch: `watch=true` (or `1`). */
export function isWatch(query: unknown): boolean {
  const watch = (query as Record<string, unknown> | undefined)?.watch;
  if (watch === undefined) return false;
  if (watch === 'true' || watch === '1') return true;
  if (watch === 'false' || watch === '0' || watch === '') return false;
  throw new TypeplaneError('InvalidRequest', `watch must be true or false, not ${JSON.stringify(watch)}`, [
    { pointer: '/query/watch', message: 'must be true or false' },
  ]);
}

/** A version as the API writes them: decimal digits, at most 15 (exact in a JSON number too). */
const VERSION = /^[0-9]{1,15}$/;

function versionFrom(raw: unknown, where: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !VERSION.test(raw))
    throw new TypeplaneError(
      'InvalidRequest',
      `${where} must be a resourceVersion as a list or an event gave it (decimal digits), not ${JSON.stringify(raw).slice(0, 40)}`,
      [
        {
          pointer: where === 'resourceVersion' ? '/query/resourceVersion' : '/headers/last-event-id',
          message: 'not a resourceVersion',
        },
      ],
    );
  return Number(raw);
}

/** The stream's format and media type for an Accept header; 406 when it accepts neither. */
function formatFor(accept: string | undefined): { format: WatchFormat; contentType: string } {
  const types = (accept ?? '*/*').split(',').map((t) => t.trim().toLowerCase().replaceAll(' ', ''));
  for (const t of types) {
    if (t.startsWith('text/event-stream')) return { format: 'sse', contentType: 'text/event-stream' };
    if (t.startsWith('application/x-ndjson'))
      return { format: 'ndjson', contentType: 'application/x-ndjson' };
    if (t.startsWith('application/json;stream=watch'))
      return { format: 'ndjson', contentType: 'application/json;stream=watch' };
  }
  if (
    types.some(
      (t) => t.startsWith('*/*') || t.startsWith('application/*') || t.startsWith('application/json'),
    )
  )
    return { format: 'ndjson', contentType: 'application/x-ndjson' };
  throw new TypeplaneError(
    'InvalidRequest',
    `a watch answers text/event-stream (Server-Sent Events) or application/x-ndjson (also as application/json;stream=watch), not ${accept}`,
    [{ pointer: '/headers/accept', message: 'accepts no watch format' }],
    406,
  );
}

/** Serves `?watch=true` on a list route: refusals answered as the API's errors, then the stream. */
export async function serveWatch(
  watches: Watches,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  target: WatchTarget,
): Promise<void> {
  const query = request.query as Record<string, unknown>;
  const unknown = Object.keys(query).filter((k) => !(WATCH_PARAMETERS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `a watch takes only ${WATCH_PARAMETERS.join(', ')} as query parameters, not ${unknown.join(', ')}: it sends every change the token may see`,
      unknown.map((k) => ({ pointer: `/query/${k}`, message: 'not a watch parameter' })),
    );
  const { format, contentType } = formatFor(request.headers.accept);
  const from =
    versionFrom(query.resourceVersion, 'resourceVersion') ??
    (format === 'sse' ? versionFrom(request.headers['last-event-id'], 'Last-Event-ID') : undefined);
  const authorization = request.headers.authorization ?? '';
  const token = authorization.replace(/^Bearer +/i, '').trim();
  const headers = reply.getHeaders();
  await watches.serve({ target, principal, token, from, format, contentType }, reply.raw, () => {
    reply.hijack();
    // What the framework's hooks set (x-request-id) goes out with the stream's own headers.
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) reply.raw.setHeader(name, value as string);
  });
}
