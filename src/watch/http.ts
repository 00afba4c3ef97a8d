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
import type { StackEventSource } from './stack-events.js';

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
  // "0" is Kubernetes' "any version": the watch starts as one without a version does.
  const version = Number(raw);
  return version === 0 ? undefined : version;
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

/**
 * Refuses the query parameters a watch does not take: a list's paging (a watch has no pages, and
 * `paging` names them with what to use instead) and any but `accepted` (the watch's own and the
 * route's filters).
 */
function refuseOthers(
  query: Record<string, unknown>,
  accepted: readonly string[],
  paging: Readonly<Record<string, string>>,
): void {
  const paged = Object.keys(query).filter((k) => Object.hasOwn(paging, k));
  if (paged.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `a watch has no pages: ${paged.map((k) => `${k} ${paging[k]}`).join('; ')}`,
      paged.map((k) => ({ pointer: `/query/${k}`, message: 'not taken by a watch' })),
    );
  const unknown = Object.keys(query).filter((k) => !accepted.includes(k));
  if (unknown.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `a watch takes only ${accepted.join(', ')} as query parameters, not ${unknown.join(', ')}`,
      unknown.map((k) => ({ pointer: `/query/${k}`, message: 'not a watch parameter' })),
    );
}

/** What a list's paging parameters are instead on a watch. */
const LIST_PAGING = {
  maxResults: 'is for a page of a list',
  nextToken: 'is for a page of a list (watch from a resourceVersion instead)',
};

/** The bearer token as sent: a watch checks it again while it lasts. */
function bearer(request: FastifyRequest): string {
  return (request.headers.authorization ?? '').replace(/^Bearer +/i, '').trim();
}

/** The reply's stream begins: what the framework's hooks set (x-request-id) goes out with its headers. */
function hijacked(reply: FastifyReply): () => void {
  const headers = reply.getHeaders();
  return () => {
    reply.hijack();
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) reply.raw.setHeader(name, value as string);
  };
}

/**
 * Serves `?watch=true` on a list route: refusals answered as the API's errors, then the stream.
 * `filters` are the query parameters the route's target took as filters; for a type's resources,
 * every parameter but the watch's own is one of its properties (checked against the type).
 */
export async function serveWatch(
  watches: Watches,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  target: WatchTarget,
  filters: readonly string[] = [],
): Promise<void> {
  const query = request.query as Record<string, unknown>;
  if (target.kind === 'resources') {
    refuseOthers(query, Object.keys(query), {
      ...LIST_PAGING,
      version: "is for a list's filters: a watch checks them against the type's default version",
    });
    const own = new Set<string>(WATCH_PARAMETERS);
    target = { ...target, filters: Object.fromEntries(Object.entries(query).filter(([k]) => !own.has(k))) };
  } else refuseOthers(query, [...WATCH_PARAMETERS, ...filters], LIST_PAGING);
  const { format, contentType } = formatFor(request.headers.accept);
  const from =
    versionFrom(query.resourceVersion, 'resourceVersion') ??
    (format === 'sse' ? versionFrom(request.headers['last-event-id'], 'Last-Event-ID') : undefined);
  const token = bearer(request);
  await watches.serve({ target, principal, token, from, format, contentType }, reply.raw, hijacked(reply));
}

/** A stack event's id (`<15-digit ms>-<8 hex>`), or a time in ms alone: events after that instant. */
const EVENT_KEY = /^\d{1,15}(-[0-9a-f]{8})?$/;

function eventIdFrom(raw: unknown, where: string): string | undefined {
  if (raw === undefined || raw === '' || raw === '0') return undefined;
  if (typeof raw !== 'string' || !EVENT_KEY.test(raw))
    throw new TypeplaneError(
      'InvalidRequest',
      `${where} must be a stack event's id as an event gave it (its resourceVersion), not ${JSON.stringify(raw).slice(0, 40)}`,
      [
        {
          pointer: where === 'resourceVersion' ? '/query/resourceVersion' : '/headers/last-event-id',
          message: 'not a stack event id',
        },
      ],
    );
  // Padded as event ids are, so that ids compare as text.
  return raw.includes('-') ? raw : raw.padStart(15, '0');
}

/**
 * Serves `?watch=true` on a stack's events: each event once as ADDED, its id its resourceVersion;
 * `stackId` (which stack of the name) is taken as on the list.
 */
export async function serveStackEventsWatch(
  watches: Watches,
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  source: StackEventSource,
): Promise<void> {
  const query = request.query as Record<string, unknown>;
  refuseOthers(query, [...WATCH_PARAMETERS, 'stackId'], {
    ...LIST_PAGING,
    after: 'is for a page of a list: watch from a resourceVersion (an event id) instead',
  });
  const { format, contentType } = formatFor(request.headers.accept);
  const from =
    eventIdFrom(query.resourceVersion, 'resourceVersion') ??
    (format === 'sse' ? eventIdFrom(request.headers['last-event-id'], 'Last-Event-ID') : undefined);
  const token = bearer(request);
  await watches.serveStackEvents(
    { source, principal, token, from, format, contentType },
    reply.raw,
    hijacked(reply),
  );
}
