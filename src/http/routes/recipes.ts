/**
 * @module /v1/environments and /v1/recipes — where recipes are registered (admins: they run with the
 * rights they are registered with), and what a recipe's instance adds to /v1/resources: its drift
 * and its upgrade to the recipe's latest version. A token sees the recipes of the types it reaches;
 * a recipe's template, and the types it makes, only when it reaches all of those too.
 */
import { releaseSeat } from '../../fairness/index.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TypeplaneError } from '../../errors.js';
import { assertTypeVisible, callerOf, typeVisible } from '../../auth/index.js';
import { TERMINAL_STATUSES } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import type { RecipeView, Recipes } from '../../recipes/index.js';
import { principalOf } from '../auth.js';
import { bodyObject, parametersOf } from './body-fields.js';
import { waitParam } from '../query.js';

const RECIPE_BODY_LIMIT = 2 * 1024 * 1024;

type Named = { Params: { name: string } };
type RecipeParams = {
  Params: { environment: string; typeName: string; name: string };
  Querystring: { version?: string };
};
type InstanceParams = { Params: { typeName: string; identifier: string }; Querystring: { wait?: string } };

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '')
    throw new TypeplaneError('InvalidRequest', `${key} must be a non-empty string`, [
      { pointer: `/${key}`, message: 'a string is required' },
    ]);
  return v;
}

function requiredString(body: Record<string, unknown>, key: string, what: string): string {
  const v = optionalString(body, key);
  if (v === undefined)
    throw new TypeplaneError('InvalidRequest', `${key} is required: ${what}`, [
      { pointer: `/${key}`, message: 'a string is required' },
    ]);
  return v;
}

function registerInput(request: FastifyRequest) {
  const body = bodyObject(request.body);
  const file = optionalString(body, 'file');
  const name = optionalString(body, 'name');
  const environment = optionalString(body, 'environment');
  const templateKind = optionalString(body, 'templateKind');
  return {
    typeName: requiredString(body, 'typeName', 'the type the recipe implements'),
    template: requiredString(
      body,
      'template',
      'the text of the recipe template (CloudFormation format, JSON or YAML)',
    ),
    parameters: parametersOf(body),
    ...(file ? { file } : {}),
    ...(name ? { name } : {}),
    ...(environment ? { environment } : {}),
    ...(templateKind ? { templateKind } : {}),
    by: principalOf(request).tokenId,
  };
}

export async function recipeRoutes(
  app: FastifyInstance,
  { recipes, engine }: { recipes: Recipes; engine: Engine },
): Promise<void> {
  /** A recipe as the caller may see it: what it makes, and its template, only when all of that is in reach. */
  const shown = <T extends RecipeView>(
    request: FastifyRequest,
    recipe: T,
  ): T | Omit<T, 'types' | 'template'> => {
    const principal = principalOf(request);
    if (recipe.types.every((t) => typeVisible(principal, t))) return recipe;
    const { types: _types, template: _template, ...rest } = recipe;
    return rest;
  };
  const visibleRecipes = (request: FastifyRequest, list: RecipeView[]) =>
    list.filter((r) => typeVisible(principalOf(request), r.typeName)).map((r) => shown(request, r));

  // ---- Environments ----

  app.get('/v1/environments', async () => ({ environments: await recipes.environments() }));

  app.post('/v1/environments', async (request, reply) => {
    const body = bodyObject(request.body);
    const env = await recipes.createEnvironment(
      requiredString(body, 'name', 'the environment name'),
      optionalString(body, 'description'),
    );
    return reply.status(201).send(env);
  });

  app.get<Named>('/v1/environments/:name', async (request) => {
    const env = await recipes.environment(request.params.name);
    return { ...env, recipes: visibleRecipes(request, env.recipes) };
  });

  app.delete<Named>('/v1/environments/:name', async (request, reply) => {
    await recipes.deleteEnvironment(request.params.name);
    return reply.status(204).send();
  });

  // ---- Recipes ----

  app.post('/v1/recipes/check', { bodyLimit: RECIPE_BODY_LIMIT }, async (request) =>
    recipes.check(registerInput(request)),
  );

  app.post('/v1/recipes', { bodyLimit: RECIPE_BODY_LIMIT }, async (request, reply) => {
    const registered = await recipes.register(registerInput(request));
    return reply.status(registered.created ? 201 : 200).send(registered);
  });

  app.get<{ Querystring: { environment?: string; typeName?: string } }>('/v1/recipes', async (request) => ({
    recipes: visibleRecipes(
      request,
      await recipes.list({
        ...(request.query.environment ? { environment: request.query.environment } : {}),
        ...(request.query.typeName ? { typeName: request.query.typeName } : {}),
      }),
    ),
  }));

  app.get<RecipeParams>('/v1/recipes/:environment/:typeName/:name', async (request) => {
    const { environment, typeName, name } = request.params;
    assertTypeVisible(principalOf(request), typeName);
    const version = request.query.version;
    if (version !== undefined && !/^[1-9]\d{0,8}$/.test(version))
      throw new TypeplaneError('InvalidRequest', 'version must be a recipe version number (1, 2, …)');
    return shown(
      request,
      await recipes.show(environment, typeName, name, version === undefined ? undefined : Number(version)),
    );
  });

  app.delete<RecipeParams>('/v1/recipes/:environment/:typeName/:name', async (request, reply) => {
    const { environment, typeName, name } = request.params;
    await recipes.delete(environment, typeName, name);
    return reply.status(204).send();
  });

  // ---- Instances ----

  app.get<InstanceParams>('/v1/resources/:typeName/:identifier/drift', async (request) => {
    const principal = principalOf(request);
    assertTypeVisible(principal, request.params.typeName);
    return recipes.drift(request.params.typeName, request.params.identifier, (t) =>
      typeVisible(principal, t),
    );
  });

  app.get<InstanceParams>('/v1/resources/:typeName/:identifier/upgrade', async (request) => {
    assertTypeVisible(principalOf(request), request.params.typeName);
    const plan = await recipes.upgradePlan(request.params.typeName, request.params.identifier);
    const principal = principalOf(request);
    // What the recipe makes is shown to who may see it: others see how many of its resources change.
    return {
      ...plan,
      changes: plan.changes.map((c) =>
        typeVisible(principal, c.type) ? c : { logicalId: c.logicalId, action: c.action },
      ),
    };
  });

  app.post<InstanceParams>('/v1/resources/:typeName/:identifier/upgrade', async (request, reply) => {
    const principal = principalOf(request);
    assertTypeVisible(principal, request.params.typeName);
    const wait = waitParam(request.query.wait, 300);
    const event = await recipes.upgrade(
      request.params.typeName,
      request.params.identifier,
      callerOf(principal),
    );
    let latest = event;
    if (wait > 0 && !TERMINAL_STATUSES.has(event.operationStatus)) {
      // Waiting for the operation's end holds no seat (src/fairness).
      releaseSeat(reply.raw);
      latest = await engine.waitFor(event.requestToken, wait * 1000);
    }
    return reply.status(202).send({ progressEvent: latest });
  });
}
