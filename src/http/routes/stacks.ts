/**
 * @module /v1/stacks — templates deployed as a unit: validate, plan, deploy, apply a plan, describe,
 * list, events, outputs, drift, delete. Deploys answer 202 at once (`?wait=<seconds>` blocks until the
 * deployment ends or the wait does). A scoped token must reach every type a template uses to deploy
 * it; events, outputs and drift follow its read scope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TypeplaneError } from '../../errors.js';
import { assertTypeVisible, typeVisible } from '../../auth/index.js';
import type { Stacks } from '../../stacks/index.js';
import { principalOf } from '../auth.js';

const STACK_BODY_LIMIT = 2 * 1024 * 1024;
const MAX_WAIT_SECONDS = 300;

type Named = {
  Params: { stackName: string };
  Querystring: { wait?: string; maxResults?: string; nextToken?: string; after?: string };
};
type Planned = { Params: { stackName: string; planId: string }; Querystring: { wait?: string } };

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeplaneError('InvalidRequest', 'request body must be a JSON object');
  return body as Record<string, unknown>;
}

function template(body: Record<string, unknown>): string {
  if (typeof body.template !== 'string' || body.template.trim() === '')
    throw new TypeplaneError('InvalidRequest', 'template must be the text of the template (JSON or YAML)', [
      { pointer: '/template', message: 'a string is required' },
    ]);
  return body.template;
}

function parameters(body: Record<string, unknown>): Record<string, unknown> {
  const p = body.parameters ?? {};
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    throw new TypeplaneError('InvalidRequest', 'parameters must map parameter names to values', [
      { pointer: '/parameters', message: 'an object is required' },
    ]);
  return p as Record<string, unknown>;
}

function waitSeconds(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > MAX_WAIT_SECONDS)
    throw new TypeplaneError(
      'InvalidRequest',
      `wait must be a number of seconds from 0 to ${MAX_WAIT_SECONDS}`,
    );
  return n;
}

function limit(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new TypeplaneError('InvalidRequest', 'maxResults must be an integer from 1 to 1000');
  return n;
}

/** Who asks: the engine's operations of the deployment run as this token (its id and type globs). */
function callerOf(request: FastifyRequest): { id: string; types?: string[] } {
  const principal = principalOf(request);
  return { id: principal.tokenId, ...(principal.types ? { types: [...principal.types] } : {}) };
}

/** Throws AccessDenied unless the caller's token reaches every one of `typeNames`. */
function authorizer(request: FastifyRequest): (typeNames: string[]) => void {
  const principal = principalOf(request);
  return (typeNames) => {
    for (const typeName of typeNames) assertTypeVisible(principal, typeName);
  };
}

export async function stackRoutes(app: FastifyInstance, { stacks }: { stacks: Stacks }): Promise<void> {
  const settled = async (name: string, deploymentId: string, wait: number) =>
    wait > 0 ? await stacks.waitFor(name, deploymentId, wait * 1000) : undefined;

  app.post('/v1/stacks/validate', { bodyLimit: STACK_BODY_LIMIT }, async (request) => {
    const body = bodyObject(request.body);
    return stacks.validate(template(body), parameters(body), authorizer(request));
  });

  app.get<{ Querystring: { maxResults?: string; nextToken?: string } }>('/v1/stacks', async (request) => {
    const page = await stacks.list({
      ...(limit(request.query.maxResults) !== undefined ? { limit: limit(request.query.maxResults)! } : {}),
      ...(request.query.nextToken ? { nextToken: request.query.nextToken } : {}),
    });
    const principal = principalOf(request);
    if (principal.types === undefined) return page;
    // A scoped token sees the stacks whose every resource it can reach.
    const visible = [];
    for (const s of page.stacks) {
      const view = await stacks.describe(s.stackName).catch(() => undefined);
      if (view && view.resources.every((r) => typeVisible(principal, r.type))) visible.push(s);
    }
    return { ...page, stacks: visible };
  });

  app.put<Named>('/v1/stacks/:stackName', { bodyLimit: STACK_BODY_LIMIT }, async (request, reply) => {
    const wait = waitSeconds(request.query.wait);
    const body = bodyObject(request.body);
    if (body.clientToken !== undefined && typeof body.clientToken !== 'string')
      throw new TypeplaneError('InvalidRequest', 'clientToken must be a string');
    const started = await stacks.deploy(request.params.stackName, template(body), parameters(body), {
      noRollback: body.noRollback === true,
      ...(typeof body.clientToken === 'string' ? { clientToken: body.clientToken } : {}),
      authorize: authorizer(request),
      caller: callerOf(request),
    });
    const stack = (await settled(request.params.stackName, started.deploymentId, wait)) ?? started.stack;
    return reply
      .status(202)
      .send({ deploymentId: started.deploymentId, startedAt: started.startedAt, stack });
  });

  app.get<Named>('/v1/stacks/:stackName', async (request) => {
    const view = await stacks.describe(request.params.stackName);
    const principal = principalOf(request);
    const resources = view.resources.filter((r) => typeVisible(principal, r.type));
    const all = resources.length === view.resources.length;
    if (all && (await stacks.touchedTypes(view.stackName)).every((t) => typeVisible(principal, t)))
      return view;
    // What is out of the caller's reach stays out: its resources, the outputs, a reason quoting them.
    const { statusReason: _hidden, ...shown } = view;
    return { ...shown, resources, outputs: all ? view.outputs : [] };
  });

  app.delete<Named>('/v1/stacks/:stackName', async (request, reply) => {
    const wait = waitSeconds(request.query.wait);
    const started = await stacks.delete(request.params.stackName, authorizer(request), callerOf(request));
    const stack =
      wait > 0
        ? await stacks.waitFor(request.params.stackName, started.deploymentId, wait * 1000)
        : started.stack;
    return reply.status(202).send({
      deploymentId: started.deploymentId,
      startedAt: started.startedAt,
      stack: stack ?? { stackName: request.params.stackName, status: 'DELETE_COMPLETE' },
    });
  });

  app.get<Named>('/v1/stacks/:stackName/events', async (request) => {
    const principal = principalOf(request);
    const max = limit(request.query.maxResults);
    return stacks.events(
      request.params.stackName,
      {
        ...(max !== undefined ? { limit: max } : {}),
        ...(request.query.nextToken ? { nextToken: request.query.nextToken } : {}),
        ...(request.query.after ? { after: request.query.after } : {}),
      },
      (typeName) => typeVisible(principal, typeName),
    );
  });

  app.get<Named>('/v1/stacks/:stackName/outputs', async (request) => ({
    stackName: request.params.stackName,
    outputs: await stacks.outputs(request.params.stackName, authorizer(request)),
  }));

  app.get<Named>('/v1/stacks/:stackName/drift', async (request) =>
    stacks.drift(request.params.stackName, authorizer(request)),
  );

  app.post<Named>('/v1/stacks/:stackName/plans', { bodyLimit: STACK_BODY_LIMIT }, async (request, reply) => {
    const body = bodyObject(request.body);
    const plan = await stacks.plan(
      request.params.stackName,
      template(body),
      parameters(body),
      authorizer(request),
    );
    return reply.status(201).send(await stacks.getPlan(request.params.stackName, plan.planId));
  });

  app.get<Planned>('/v1/stacks/:stackName/plans/:planId', async (request) => {
    const plan = await stacks.getPlan(request.params.stackName, request.params.planId);
    authorizer(request)([...new Set(plan.changes.map((c) => c.type))]);
    return plan;
  });

  app.post<Planned>('/v1/stacks/:stackName/plans/:planId/apply', async (request, reply) => {
    const wait = waitSeconds(request.query.wait);
    const body = request.body === undefined || request.body === null ? {} : bodyObject(request.body);
    const started = await stacks.applyPlan(request.params.stackName, request.params.planId, {
      noRollback: body.noRollback === true,
      authorize: authorizer(request),
      caller: callerOf(request),
    });
    const stack = (await settled(request.params.stackName, started.deploymentId, wait)) ?? started.stack;
    return reply
      .status(202)
      .send({ deploymentId: started.deploymentId, startedAt: started.startedAt, stack });
  });
}
