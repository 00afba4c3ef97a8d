/**
 * @module What a request is, for the trail: whether it is recorded, its verb and the object it names,
 * read from the route template and path parameters alone (pure).
 */
import type { AuditObjectRef } from './event.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** POST routes that change nothing: checks of a document. */
const CHECKS = new Set(['/v1/stacks/validate', '/v1/recipes/check']);
const VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
/** Reads recorded as changes are, and their verbs: a backup carries the whole store away. */
const RECORDED_READS: Record<string, string> = { '/v1/backup': 'backup' };

/**
 * Changes and backups are recorded whatever their outcome, and refusals of anything (401, 403),
 * reads included; other reads are not (see docs/operations.md, Audit trail).
 */
export function isAudited(method: string, route: string | undefined, status: number): boolean {
  if (status === 401 || status === 403) return true;
  if (route === undefined || !route.startsWith('/v1/')) return false;
  if (Object.hasOwn(RECORDED_READS, route)) return true;
  return !READS.has(method) && !CHECKS.has(route);
}

/**
 * Kubernetes' verbs (create, update, patch, delete, get, list) from the method; a POST to an action
 * (`…/cancel`, `…/forget`, `…/apply`, `…/upgrade`, `…/plans`) is that action.
 */
export function verbOf(method: string, route: string | undefined): string {
  if (route !== undefined && Object.hasOwn(RECORDED_READS, route)) return RECORDED_READS[route]!;
  const last = route?.split('/').pop() ?? '';
  if (method === 'POST' && route !== undefined && /\/:[A-Za-z]+\/[a-z-]+$/.test(route))
    return last === 'plans' ? 'plan' : last;
  if (method === 'GET' || method === 'HEAD')
    return route !== undefined && /\/:[A-Za-z]+$/.test(route) ? 'get' : 'list';
  return VERBS[method] ?? method.toLowerCase();
}

/** The object: the route's collection and the names its path holds. */
export function objectRefOf(route: string | undefined, url: string, params: unknown): AuditObjectRef {
  const path = route ?? url.split('?')[0] ?? url;
  const resource = path.split('/')[2] ?? '';
  const named = (params ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof named[key] === 'string' ? (named[key] as string) : undefined);
  const typeName = text('typeName');
  const identifier = text('identifier');
  const requestToken = text('requestToken');
  const name = text('stackName') ?? text('id') ?? text('name') ?? text('planId');
  return {
    resource,
    ...(typeName !== undefined ? { typeName } : {}),
    ...(identifier !== undefined ? { identifier } : {}),
    ...(requestToken !== undefined ? { requestToken } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
