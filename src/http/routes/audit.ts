/**
 * @module GET /v1/audit — the store's audit trail (`serve --audit-store`), every replica's records in
 * one chain, newest first, admins only (the auth hook checks the role). Filters: `since`, `until`
 * (ISO times, of the record), `verb`, `typeName`, `tokenId`, `outcome` (`2xx` … `5xx`, a status
 * such as `403`, or an error code such as `AccessDenied`), `stage` (`ResponseComplete`: a request
 * answered; `OperationComplete`: an operation's end); pages with `maxResults` (default 100, at
 * most 1000) and `nextToken`. The records are answered as they are stored, byte for byte, so an
 * export of them verifies with `typeplane audit verify`.
 */
import type { FastifyInstance } from 'fastify';
import type { EventSink } from '../../audit/index.js';
import { TypeplaneError } from '../../errors.js';
import type { AuditFilter } from '../../store/types.js';
import { maxResultsParam } from '../query.js';

export const AUDIT_ROUTE = '/v1/audit';

const FILTERS = ['since', 'until', 'verb', 'typeName', 'tokenId', 'outcome', 'stage'] as const;
const STAGES = ['ResponseComplete', 'OperationComplete'] as const;
const KNOWN = new Set<string>([...FILTERS, 'maxResults', 'nextToken']);

type Query = Partial<Record<(typeof FILTERS)[number] | 'maxResults' | 'nextToken', unknown>>;

function text(query: Query, name: keyof Query): string | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 1024)
    throw new TypeplaneError('InvalidRequest', `${name} must be given once, as at most 1024 characters`, [
      { pointer: `/query/${name}`, message: 'one value of at most 1024 characters' },
    ]);
  return value;
}

/** `outcome`: a class of statuses (`4xx`), one status (`403`), or an error code (`AccessDenied`). */
function outcomeFilter(outcome: string | undefined): Partial<AuditFilter> {
  if (outcome === undefined) return {};
  const statusClass = /^([1-5])xx$/i.exec(outcome);
  if (statusClass) return { statusClass: Number(statusClass[1]) };
  if (/^[1-5][0-9]{2}$/.test(outcome)) return { code: Number(outcome) };
  if (/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(outcome)) return { errorCode: outcome };
  throw new TypeplaneError(
    'InvalidRequest',
    `outcome must be a class of statuses (2xx … 5xx), a status (403) or an error code (AccessDenied), not '${outcome.slice(0, 40)}'`,
    [{ pointer: '/query/outcome', message: 'like 4xx, 403 or AccessDenied' }],
  );
}

function stageFilter(stage: string | undefined): Partial<AuditFilter> {
  if (stage === undefined) return {};
  if (!(STAGES as readonly string[]).includes(stage))
    throw new TypeplaneError(
      'InvalidRequest',
      `stage must be ${STAGES.join(' (a request answered) or ')} (an operation's end), not '${stage.slice(0, 40)}'`,
      [{ pointer: '/query/stage', message: `one of ${STAGES.join(', ')}` }],
    );
  return { stage: stage as (typeof STAGES)[number] };
}

function timeFilter(query: Query, name: 'since' | 'until'): string | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(Date.parse(value)))
    throw new TypeplaneError('InvalidRequest', `${name} must be an ISO 8601 time (2025-01-01T12:00:00Z)`, [
      { pointer: `/query/${name}`, message: 'an ISO 8601 time' },
    ]);
  return new Date(value).toISOString();
}

export async function auditRoutes(app: FastifyInstance, { trail }: { trail: EventSink }): Promise<void> {
  app.get(AUDIT_ROUTE, async (request, reply) => {
    const query = (request.query ?? {}) as Query;
    const unknown = Object.keys(query).filter((name) => !KNOWN.has(name));
    if (unknown.length > 0)
      throw new TypeplaneError(
        'InvalidRequest',
        `unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (filters: ${FILTERS.join(', ')})`,
      );
    const limit = maxResultsParam(query.maxResults) ?? 100;
    if (limit < 1 || limit > 1000)
      throw new TypeplaneError('InvalidRequest', 'maxResults must be from 1 to 1000');
    const since = timeFilter(query, 'since');
    const until = timeFilter(query, 'until');
    const verb = text(query, 'verb');
    const typeName = text(query, 'typeName');
    const tokenId = text(query, 'tokenId');
    const nextToken = text(query, 'nextToken');
    const page = await trail.list(
      {
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(verb !== undefined ? { verb } : {}),
        ...(typeName !== undefined ? { typeName } : {}),
        ...(tokenId !== undefined ? { tokenId } : {}),
        ...outcomeFilter(text(query, 'outcome')),
        ...stageFilter(text(query, 'stage')),
      },
      { limit, ...(nextToken !== undefined ? { nextToken } : {}) },
    );
    // Each record is JSON as it was hashed: spliced in as it is, never parsed and serialised again.
    const next = page.nextToken !== undefined ? `,"nextToken":${JSON.stringify(page.nextToken)}` : '';
    return reply.type('application/json; charset=utf-8').send(`{"records":[${page.items.join(',')}]${next}}`);
  });
}
