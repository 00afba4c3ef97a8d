/**
 * @module /v1/requests — follow, list and cancel operations.
 */
import type { FastifyInstance } from 'fastify';
import { TypeplaneError } from '../../errors.js';
import type { Engine } from '../../engine/index.js';
import type { Operation, OperationStatus } from '../../engine/index.js';
import { assertRequestVisible, assertTypeVisible, typeVisible } from '../../auth/index.js';
import { principalOf } from '../auth.js';
import { maxResultsParam } from '../query.js';
import { isWatch, serveWatch, type Watches } from '../../watch/index.js';

const OPERATIONS: readonly Operation[] = ['CREATE', 'READ', 'UPDATE', 'DELETE', 'LIST'];
const STATUSES: readonly OperationStatus[] = [
  'PENDING',
  'IN_PROGRESS',
  'SUCCESS',
  'FAILED',
  'CANCEL_IN_PROGRESS',
  'CANCEL_COMPLETE',
];

/** `?status=A,B` or repeated `?status=A&status=B`, each checked against the allowed values. */
function listParam<T extends string>(
  name: string,
  raw: string | string[] | undefined,
  allowed: readonly T[],
): T[] | undefined {
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).filter((v) => v !== '');
  for (const v of values) {
    if (!allowed.includes(v as T))
      throw new TypeplaneError('InvalidRequest', `${name} must be one of ${allowed.join(', ')}, not '${v}'`);
  }
  return values as T[];
}

/** `?typeName=T[&identifier=I]`: one type's operations, or one resource's (its history). */
function resourceParams(query: ListQuery['Querystring']): { typeName?: string; identifier?: string } {
  const single = (name: 'typeName' | 'identifier'): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (Array.isArray(value) || value === '')
      throw new TypeplaneError('InvalidRequest', `give ${name} once, not empty`, [
        { pointer: `/query/${name}`, message: 'one non-empty value' },
      ]);
    return value;
  };
  const typeName = single('typeName');
  const identifier = single('identifier');
  if (identifier !== undefined && typeName === undefined)
    throw new TypeplaneError(
      'InvalidRequest',
      'identifier names a resource of a type: give typeName with it',
      [{ pointer: '/query/identifier', message: 'needs typeName' }],
    );
  return {
    ...(typeName !== undefined ? { typeName } : {}),
    ...(identifier !== undefined ? { identifier } : {}),
  };
}

type ListQuery = {
  Querystring: {
    operation?: string | string[];
    status?: string | string[];
    typeName?: string | string[];
    identifier?: string | string[];
    maxResults?: string;
    nextToken?: string;
  };
};

export async function requestRoutes(
  app: FastifyInstance,
  { engine, watches }: { engine: Engine; watches?: Watches },
): Promise<void> {
  app.get<{ Params: { requestToken: string } }>('/v1/requests/:requestToken', async (request) => {
    const progressEvent = await engine.getRequest(request.params.requestToken);
    assertRequestVisible(principalOf(request), progressEvent.typeName);
    return { progressEvent };
  });

  app.get<ListQuery>('/v1/requests', async (request, reply) => {
    const operation = listParam('operation', request.query.operation, OPERATIONS);
    const status = listParam('status', request.query.status, STATUSES);
    const resource = resourceParams(request.query);
    // A history of a type the token does not see is refused, as reading the type is (403).
    if (resource.typeName !== undefined) assertTypeVisible(principalOf(request), resource.typeName);
    if (watches && isWatch(request.query))
      // The list's filters narrow the watch as they narrow a page.
      return serveWatch(
        watches,
        request,
        reply,
        principalOf(request),
        { kind: 'requests', ...(operation ? { operation } : {}), ...(status ? { status } : {}), ...resource },
        ['operation', 'status', 'typeName', 'identifier'],
      );
    const page = await engine.listRequests(
      { ...(operation ? { operation } : {}), ...(status ? { status } : {}), ...resource },
      { maxResults: maxResultsParam(request.query.maxResults), nextToken: request.query.nextToken },
    );
    // A type-scoped token sees its types only; a page may then hold fewer events than maxResults.
    const principal = principalOf(request);
    return { ...page, progressEvents: page.progressEvents.filter((e) => typeVisible(principal, e.typeName)) };
  });

  app.post<{ Params: { requestToken: string } }>('/v1/requests/:requestToken/cancel', async (request) => {
    const { typeName } = await engine.getRequest(request.params.requestToken);
    assertRequestVisible(principalOf(request), typeName);
    return { progressEvent: await engine.cancel(request.params.requestToken) };
  });
}
