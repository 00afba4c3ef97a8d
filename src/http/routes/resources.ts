/**
 * @module /v1/resources — the uniform CRUDL API over every registered type.
 *
 * Mutations answer 202 with a ProgressEvent; `?wait=<seconds>` (at most 300) blocks until the
 * operation is terminal or the wait ends. Answers decided before any handler runs are synchronous
 * errors (400 InvalidRequest / NotUpdatable, 404 NotFound for an unknown type, 409 ResourceConflict).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller, Engine } from '../../engine/index.js';
import { TERMINAL_STATUSES, type ProgressEvent } from '../../engine/index.js';
import { callerOf, typeVisible } from '../../auth/index.js';
import { principalOf } from '../auth.js';
import { bodyObject } from './body-fields.js';
import { maxResultsParam, versionParam, waitParam } from '../query.js';
import { reviewing, warningHeaders } from '../verdicts.js';
import { releaseSeat } from '../../fairness/index.js';
import { isWatch, serveWatch, type Watches } from '../../watch/index.js';

export const RESOURCE_BODY_LIMIT = 1024 * 1024;
/** The Content-Type the framework gives the JSON it serialises. */
const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_WAIT_SECONDS = 300;

type TypeParams = {
  Params: { typeName: string };
  Querystring: { wait?: string; maxResults?: string; nextToken?: string; version?: string };
};
type ResourceParams = {
  Params: { typeName: string; identifier: string };
  Querystring: { wait?: string; version?: string };
};

function waitSeconds(value: string | undefined): number {
  return waitParam(value, MAX_WAIT_SECONDS);
}

/** The caller of a mutation: its token's client tokens and the types it may see. */
const callerOfRequest = (request: FastifyRequest): Caller => callerOf(principalOf(request));

export async function resourceRoutes(
  app: FastifyInstance,
  { engine, watches }: { engine: Engine; watches?: Watches },
): Promise<void> {
  /**
   * Answers 202 with the operation's event: at once (no promise) when it has ended or the caller does
   * not wait, else once it ends or the wait does. The answer is sent before the handler returns, so
   * the handler returns nothing (fastify sends nothing more); the reply, a thenable, is not returned
   * through a promise, which would cost the request a turn of the microtask queue for each.
   */
  const accepted = (reply: FastifyReply, event: ProgressEvent, wait: number): Promise<void> | undefined => {
    if (wait > 0 && !TERMINAL_STATUSES.has(event.operationStatus)) return acceptedAfter(reply, event, wait);
    answered(reply, event);
    return undefined;
  };
  const acceptedAfter = async (reply: FastifyReply, event: ProgressEvent, wait: number) => {
    // Waiting for the operation's end holds no seat (src/fairness): another request runs meanwhile.
    releaseSeat(reply.raw);
    answered(reply, await engine.waitFor(event.requestToken, wait * 1000));
  };
  const answered = (reply: FastifyReply, event: ProgressEvent) => {
    warningHeaders(reply, event.warnings);
    reply.status(202).send({ progressEvent: event });
  };

  app.post<TypeParams>(
    '/v1/resources/:typeName',
    { bodyLimit: RESOURCE_BODY_LIMIT },
    async (request, reply) => {
      const wait = waitSeconds(request.query.wait);
      const body = bodyObject(request.body);
      const event = await engine.create(
        request.params.typeName,
        body.desiredState,
        body.clientToken as string | undefined,
        reviewing(request, callerOfRequest(request)),
        versionParam(request.query.version),
      );
      const waiting = accepted(reply, event, wait);
      if (waiting) await waiting;
    },
  );

  app.get<TypeParams>('/v1/resources/:typeName', async (request, reply) => {
    const { typeName } = request.params;
    if (watches && isWatch(request.query))
      return serveWatch(watches, request, reply, principalOf(request), { kind: 'resources', typeName });
    // Every other query parameter is a filter on a top-level property (the engine checks them);
    // `version` names the type version whose schema they are checked against.
    const { maxResults, nextToken, version, ...filters } = request.query as Record<string, unknown>;
    const named = versionParam(version);
    const page = await engine.list(typeName, {
      maxResults: maxResultsParam(maxResults),
      nextToken,
      filters,
      ...(named !== undefined ? { version: named } : {}),
    });
    return { typeName, ...page };
  });

  app.get<ResourceParams>('/v1/resources/:typeName/:identifier', async (request, reply) => {
    const { typeName, identifier } = request.params;
    const answer = await engine.readAnswer(typeName, identifier);
    if (!('propertiesJson' in answer)) return { typeName, ...answer };
    // The recorded JSON text spliced in, unparsed: the bytes the serialiser would make of the model.
    return reply
      .type(JSON_TYPE)
      .send(
        `{"typeName":${JSON.stringify(typeName)},"identifier":${JSON.stringify(answer.identifier)},"properties":${answer.propertiesJson}}`,
      );
  });

  app.patch<ResourceParams>(
    '/v1/resources/:typeName/:identifier',
    { bodyLimit: RESOURCE_BODY_LIMIT },
    async (request, reply) => {
      const wait = waitSeconds(request.query.wait);
      const body = bodyObject(request.body);
      const event = await engine.update(
        request.params.typeName,
        request.params.identifier,
        body.patchDocument,
        body.clientToken as string | undefined,
        reviewing(request, callerOfRequest(request)),
        versionParam(request.query.version),
      );
      const waiting = accepted(reply, event, wait);
      if (waiting) await waiting;
    },
  );

  app.put<ResourceParams>(
    '/v1/resources/:typeName/:identifier',
    { bodyLimit: RESOURCE_BODY_LIMIT },
    async (request, reply) => {
      const wait = waitSeconds(request.query.wait);
      const body = bodyObject(request.body);
      const event = await engine.put(
        request.params.typeName,
        request.params.identifier,
        body.desiredState,
        body.clientToken as string | undefined,
        reviewing(request, callerOfRequest(request)),
        versionParam(request.query.version),
      );
      const waiting = accepted(reply, event, wait);
      if (waiting) await waiting;
    },
  );

  app.get<ResourceParams>('/v1/resources/:typeName/:identifier/references', async (request) => {
    const { typeName, identifier } = request.params;
    const { references, referencedBy } = await engine.references(typeName, identifier);
    // Links to types outside a scoped token's globs are left out, as lists leave them out.
    const principal = principalOf(request);
    const visible = (link: { typeName: string }) => typeVisible(principal, link.typeName);
    return {
      typeName,
      identifier,
      references: references.filter(visible),
      referencedBy: referencedBy.filter(visible),
    };
  });

  // Drops the record without calling the provider: done at once, 200 with the completed operation.
  app.post<ResourceParams>('/v1/resources/:typeName/:identifier/forget', async (request) => {
    const { typeName, identifier } = request.params;
    const caller = callerOfRequest(request);
    const event = await engine.forget(typeName, identifier, caller);
    // The audit trail: who dropped which record (a token by its id, never its secret).
    request.log.info(
      { typeName, identifier: event.identifier, requestToken: event.requestToken, by: caller.id },
      'resource record forgotten',
    );
    return { progressEvent: event };
  });

  // Records a resource the provider has and Typeplane had none of, read through the provider: done
  // at once, 200 with the completed operation (a CREATE that created nothing).
  // Reviewed as a create is (admission policies, hooks): its verdicts are the request's, its
  // warnings sent as headers.
  app.post<ResourceParams>('/v1/resources/:typeName/:identifier/import', async (request, reply) => {
    const { typeName, identifier } = request.params;
    const caller = callerOfRequest(request);
    const event = await engine.adopt(typeName, identifier, reviewing(request, caller));
    warningHeaders(reply, event.warnings);
    request.log.info(
      { typeName, identifier: event.identifier, requestToken: event.requestToken, by: caller.id },
      'resource imported',
    );
    return { progressEvent: event };
  });

  // A page of the provider's own list, without the resources Typeplane has a record of.
  app.get<TypeParams>('/v1/unmanaged-resources/:typeName', async (request) => {
    const { typeName } = request.params;
    const { maxResults, nextToken } = request.query;
    const page = await engine.unmanaged(typeName, { maxResults: maxResultsParam(maxResults), nextToken });
    return { typeName, ...page };
  });

  app.delete<ResourceParams>('/v1/resources/:typeName/:identifier', async (request, reply) => {
    const wait = waitSeconds(request.query.wait);
    const body = request.body === undefined || request.body === null ? {} : bodyObject(request.body);
    const clientToken =
      (body.clientToken as string | undefined) ?? (request.headers['x-client-token'] as string | undefined);
    const event = await engine.delete(
      request.params.typeName,
      request.params.identifier,
      clientToken,
      reviewing(request, callerOfRequest(request)),
    );
    const waiting = accepted(reply, event, wait);
    if (waiting) await waiting;
  });
}
