/**
 * @module /v1/stacks — templates deployed as a unit: validate, plan, deploy, apply a plan, describe,
 * list, events, outputs, drift, delete. Deploys answer 202 at once (`?wait=<seconds>` blocks until the
 * deployment ends or the wait does). A scoped token must reach every type a template uses to deploy
 * it; events, outputs and drift follow its read scope, and a stack whose types it reaches none of
 * answers as a missing one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { releaseSeat } from '../../fairness/index.js';
import { TypeplaneError } from '../../errors.js';
import { assertTypeVisible, typeVisible } from '../../auth/index.js';
import {
  readResourcesToImport,
  reviewsTo,
  stackNotFound,
  type StackCaller,
  type StackView,
  type Stacks,
} from '../../stacks/index.js';
import { principalOf } from '../auth.js';
import { bodyObject, parametersOf } from './body-fields.js';
import { isRecipeStack } from '../../recipes/index.js';
import { verdictsOf } from '../verdicts.js';
import { packageTemplate } from '../../stacks/nested/index.js';
import { isWatch, serveStackEventsWatch, type StackEventSource, type Watches } from '../../watch/index.js';

/**
 * A nested stack is changed through its parent only: deployed or deleted on its own, it would differ
 * from what the parent holds of it (as CloudFormation, which updates nested stacks from the root).
 */
async function notNestedStack(stacks: Stacks, name: string): Promise<void> {
  if (await stacks.isNested(name))
    throw new TypeplaneError(
      'InvalidRequest',
      `stack ${name} is a nested stack: its parent deploys and deletes it; change the nested template in the root stack's deployment instead`,
    );
}

/** A recipe instance's stack is changed through its instance only (its resource, or its upgrade). */
function notRecipeStack(name: string): void {
  if (isRecipeStack(name))
    throw new TypeplaneError(
      'InvalidRequest',
      `stack ${name} is a recipe instance's: change or delete the instance instead (typeplane resource update|delete|upgrade)`,
    );
}

/**
 * A recipe instance's stack that is missing says when such a stack is written: a new instance's is
 * written when first needed. Said of every such name alike, whether it exists out of the caller's
 * reach or not at all, so it tells nothing of either.
 */
async function recipeStackHinted<T>(name: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (isRecipeStack(name) && e instanceof TypeplaneError && e.code === 'NotFound')
      throw new TypeplaneError(
        'NotFound',
        `${e.message} (a recipe instance's stack is written when the instance is first updated, upgraded or checked for drift: typeplane resource drift <type> <identifier>)`,
        e.details,
      );
    throw e;
  }
}

const STACK_BODY_LIMIT = 2 * 1024 * 1024;
const MAX_WAIT_SECONDS = 300;

type Named = {
  Params: { stackName: string };
  Querystring: { wait?: string; maxResults?: string; nextToken?: string; after?: string; stackId?: string };
};
type Planned = { Params: { stackName: string; planId: string }; Querystring: { wait?: string } };

function template(body: Record<string, unknown>): string {
  if (typeof body.template !== 'string' || body.template.trim() === '')
    throw new TypeplaneError('InvalidRequest', 'template must be the text of the template (JSON or YAML)', [
      { pointer: '/template', message: 'a string is required' },
    ]);
  if (body.templates === undefined) return body.template;
  // Nested stacks' templates, by the TemplateURL that names them: packaged with the parent's text.
  if (typeof body.templates !== 'object' || body.templates === null || Array.isArray(body.templates))
    throw new TypeplaneError('InvalidRequest', 'templates must map TemplateURLs to template texts', [
      { pointer: '/templates', message: 'an object is required' },
    ]);
  return packageTemplate(body.template, body.templates as Record<string, unknown>);
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

/** `?deleted=true` lists the deleted stacks instead of the live ones. */
function deletedFlag(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new TypeplaneError('InvalidRequest', `deleted must be true or false, not '${value.slice(0, 40)}'`);
}

function limit(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new TypeplaneError('InvalidRequest', 'maxResults must be an integer from 1 to 1000');
  return n;
}

/**
 * Who asks: the engine's operations of the deployment run as this token (its id and type globs), and
 * policies are told its role and description; kept with the deployment, so one resumed is too.
 */
function callerOf(request: FastifyRequest): StackCaller {
  const principal = principalOf(request);
  return {
    id: principal.tokenId,
    ...(principal.types ? { types: [...principal.types] } : {}),
    role: principal.role,
    ...(principal.description !== undefined ? { description: principal.description } : {}),
  };
}

/** Throws AccessDenied unless the caller's token reaches every one of `typeNames`. */
function authorizer(request: FastifyRequest): (typeNames: string[]) => void {
  const principal = principalOf(request);
  return (typeNames) => {
    for (const typeName of typeNames) assertTypeVisible(principal, typeName);
  };
}

/** The resources of types the caller sees, each with its edges to those only. */
function shownResources(
  resources: StackView['resources'],
  visible: (typeName: string) => boolean,
): StackView['resources'] {
  const shown = resources.filter((r) => visible(r.type));
  const ids = new Set(shown.map((r) => r.logicalId));
  return shown.map((r) => ({ ...r, dependsOn: r.dependsOn.filter((d) => ids.has(d)) }));
}

/** Whether the caller's token reaches `typeName`. */
function visibleTo(request: FastifyRequest): (typeName: string) => boolean {
  const principal = principalOf(request);
  return (typeName) => typeVisible(principal, typeName);
}

export async function stackRoutes(
  app: FastifyInstance,
  { stacks, watches }: { stacks: Stacks; watches?: Watches },
): Promise<void> {
  // Waiting for a deployment's end holds no seat (src/fairness): another request runs meanwhile.
  const settled = async (reply: FastifyReply, name: string, deploymentId: string, wait: number) => {
    if (wait <= 0) return undefined;
    releaseSeat(reply.raw);
    return stacks.waitFor(name, deploymentId, wait * 1000);
  };

  /** A stack out of the caller's reach answers as a missing one (404, the same body). */
  const reached = async (request: FastifyRequest, name: string, planId?: string) => {
    // A token without globs reaches every type: no store read needed.
    if (principalOf(request).types !== undefined)
      await stacks.assertReached(name, visibleTo(request), planId);
  };

  /**
   * The stack as the caller may see it: whole when its token reaches every type the stack has used;
   * else its resources of those types and its status, without what may quote or feed the others
   * (the reason, outputs, parameters, description).
   */
  const shown = async (request: FastifyRequest, view: StackView): Promise<StackView> => {
    if (principalOf(request).types === undefined) return view;
    const visible = visibleTo(request);
    const types = await stacks.touchedTypes(view.stackName);
    // Judged again on the stack as read: one made (or deleted) after the reach was checked would
    // otherwise be shown. Every template has a resource, so an existing stack has used a type; none
    // (gone meanwhile) is none reached.
    if (!types.some(visible)) throw stackNotFound(view.stackName);
    if (types.every(visible)) return view;
    const { statusReason: _reason, description: _description, ...rest } = view;
    return {
      ...rest,
      parameters: {},
      outputs: [],
      // Edges to resources of types out of reach would name them: only edges among those shown.
      resources: shownResources(view.resources, visible),
    };
  };

  app.post('/v1/stacks/validate', { bodyLimit: STACK_BODY_LIMIT }, async (request) => {
    const body = bodyObject(request.body);
    // Parameters given (even none) are checked as plan and deploy check them; without, missing ones warn.
    const given = body.parameters === undefined ? undefined : parametersOf(body);
    return stacks.validate(template(body), given, authorizer(request));
  });

  // The IaC generator: a template (and its ResourcesToImport) of the resources outside stacks of the
  // types named, among those the caller may read.
  app.get<{ Querystring: { types?: string | string[] } }>('/v1/generated-template', async (request) => {
    const given = request.query.types;
    const globs = (Array.isArray(given) ? given : given === undefined ? [] : [given])
      .flatMap((g) => g.split(','))
      .map((g) => g.trim())
      .filter((g) => g !== '');
    return stacks.generate(globs, visibleTo(request));
  });

  app.get<{ Querystring: { maxResults?: string; nextToken?: string; deleted?: string } }>(
    '/v1/stacks',
    async (request) =>
      stacks.list({
        ...(limit(request.query.maxResults) !== undefined ? { limit: limit(request.query.maxResults)! } : {}),
        ...(deletedFlag(request.query.deleted) ? { deleted: true } : {}),
        ...(request.query.nextToken ? { nextToken: request.query.nextToken } : {}),
        // A scoped token lists the stacks whose every used type it reaches (rolled back ones included).
        ...(principalOf(request).types !== undefined ? { visible: visibleTo(request) } : {}),
      }),
  );

  app.put<Named>('/v1/stacks/:stackName', { bodyLimit: STACK_BODY_LIMIT }, async (request, reply) => {
    notRecipeStack(request.params.stackName);
    await notNestedStack(stacks, request.params.stackName);
    const wait = waitSeconds(request.query.wait);
    const body = bodyObject(request.body);
    if (body.clientToken !== undefined && typeof body.clientToken !== 'string')
      throw new TypeplaneError('InvalidRequest', 'clientToken must be a string');
    const resourcesToImport = readResourcesToImport(body.resourcesToImport);
    // The plan's verdicts (Audit ones included) go in this request's audit record.
    const started = await stacks.deploy(request.params.stackName, template(body), parametersOf(body), {
      noRollback: body.noRollback === true,
      ...(typeof body.clientToken === 'string' ? { clientToken: body.clientToken } : {}),
      authorize: authorizer(request),
      caller: reviewsTo(callerOf(request), verdictsOf(request)),
      ...(resourcesToImport ? { resourcesToImport } : {}),
    });
    const stack =
      (await settled(reply, request.params.stackName, started.deploymentId, wait)) ?? started.stack;
    return reply.status(202).send({
      deploymentId: started.deploymentId,
      startedAt: started.startedAt,
      stack: await shown(request, stack),
    });
  });

  app.get<Named>('/v1/stacks/:stackName', async (request) =>
    recipeStackHinted(request.params.stackName, async () => {
      await reached(request, request.params.stackName);
      return shown(request, await stacks.describe(request.params.stackName));
    }),
  );

  app.delete<Named>('/v1/stacks/:stackName', async (request, reply) => {
    notRecipeStack(request.params.stackName);
    const wait = waitSeconds(request.query.wait);
    await reached(request, request.params.stackName);
    await notNestedStack(stacks, request.params.stackName);
    const started = await stacks.delete(request.params.stackName, authorizer(request), callerOf(request));
    // A stack deleted while waited for is gone: undefined, answered as DELETE_COMPLETE.
    const stack =
      wait > 0 ? await settled(reply, request.params.stackName, started.deploymentId, wait) : started.stack;
    return reply.status(202).send({
      deploymentId: started.deploymentId,
      startedAt: started.startedAt,
      stack: stack
        ? await shown(request, stack)
        : { stackName: request.params.stackName, status: 'DELETE_COMPLETE' },
    });
  });

  app.get<Named>('/v1/stacks/:stackName/events', async (request, reply) => {
    if (watches && isWatch(request.query)) {
      const name = request.params.stackName;
      const stackId = request.query.stackId;
      // Each read as the token is now (its scope is checked again while the watch lasts).
      const source: StackEventSource = async (principal, page) => {
        const visible = (typeName: string) => typeVisible(principal, typeName);
        if (principal.types !== undefined) await stacks.assertReached(name, visible);
        return stacks.events(name, { ...page, ...(stackId ? { stackId } : {}) }, visible);
      };
      return serveStackEventsWatch(watches, request, reply, principalOf(request), source);
    }
    // Past the stack of this name, a deleted one's events are reached by its own types (stacks.events).
    await reached(request, request.params.stackName);
    const max = limit(request.query.maxResults);
    return stacks.events(
      request.params.stackName,
      {
        ...(max !== undefined ? { limit: max } : {}),
        ...(request.query.nextToken ? { nextToken: request.query.nextToken } : {}),
        ...(request.query.after ? { after: request.query.after } : {}),
        ...(request.query.stackId ? { stackId: request.query.stackId } : {}),
      },
      visibleTo(request),
    );
  });

  app.get<Named>('/v1/stacks/:stackName/outputs', async (request) =>
    recipeStackHinted(request.params.stackName, async () => {
      await reached(request, request.params.stackName);
      return {
        stackName: request.params.stackName,
        outputs: await stacks.outputs(request.params.stackName, authorizer(request)),
      };
    }),
  );

  app.get<Named>('/v1/stacks/:stackName/drift', async (request) =>
    recipeStackHinted(request.params.stackName, async () => {
      await reached(request, request.params.stackName);
      return stacks.drift(request.params.stackName, authorizer(request));
    }),
  );

  app.post<Named>('/v1/stacks/:stackName/plans', { bodyLimit: STACK_BODY_LIMIT }, async (request, reply) => {
    notRecipeStack(request.params.stackName);
    const body = bodyObject(request.body);
    const plan = await stacks.plan(
      request.params.stackName,
      template(body),
      parametersOf(body),
      authorizer(request),
      reviewsTo(callerOf(request), verdictsOf(request)),
      readResourcesToImport(body.resourcesToImport),
    );
    return reply.status(201).send(await stacks.getPlan(request.params.stackName, plan.planId));
  });

  app.get<Planned>('/v1/stacks/:stackName/plans/:planId', async (request) => {
    await reached(request, request.params.stackName, request.params.planId);
    return stacks.getPlan(request.params.stackName, request.params.planId, authorizer(request));
  });

  app.post<Planned>('/v1/stacks/:stackName/plans/:planId/apply', async (request, reply) => {
    notRecipeStack(request.params.stackName);
    const wait = waitSeconds(request.query.wait);
    const body = request.body === undefined || request.body === null ? {} : bodyObject(request.body);
    await reached(request, request.params.stackName, request.params.planId);
    await notNestedStack(stacks, request.params.stackName);
    const started = await stacks.applyPlan(request.params.stackName, request.params.planId, {
      noRollback: body.noRollback === true,
      authorize: authorizer(request),
      caller: callerOf(request),
    });
    const stack =
      (await settled(reply, request.params.stackName, started.deploymentId, wait)) ?? started.stack;
    return reply.status(202).send({
      deploymentId: started.deploymentId,
      startedAt: started.startedAt,
      stack: await shown(request, stack),
    });
  });
}
