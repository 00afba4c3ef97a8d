/**
 * @module /v1/hooks — hooks (CloudFormation Hooks' model): register a hook's schema (JSON or YAML,
 * as a type's), list, describe and deregister hooks, and set or read a hook's configuration. Admins
 * only, reading included: a hook's configuration may hold secrets, and its schema says what is
 * checked of every tenant's changes.
 */
import type { FastifyInstance } from 'fastify';
import { accessDenied } from '../../auth/index.js';
import { TypeplaneError } from '../../errors.js';
import type { HookRegistrations, RegisteredHook } from '../../policy/hooks/index.js';
import { LIMITS } from '../../schema/index.js';
import { principalOf } from '../auth.js';
import { parseJsonBody } from '../body.js';

export async function hookRoutes(
  app: FastifyInstance,
  { hooks }: { hooks: HookRegistrations },
): Promise<void> {
  // Hook schemas arrive as bytes, so diagnostics can point at line and column (as type documents do).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/plain'],
    { parseAs: 'buffer', bodyLimit: LIMITS.maxBytes },
    (_req, body, done) => done(null, body),
  );
  app.addHook('preHandler', async (request) => {
    if (principalOf(request).role !== 'admin')
      throw accessDenied(
        "hooks are an admin's: registering, configuring and reading them (their configuration may hold secrets) need an admin token",
      );
  });

  app.post('/v1/hooks', async (request, reply) => {
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0)
      throw new TypeplaneError(
        'InvalidRequest',
        "send a hook's schema (application/json or application/yaml) as the body",
      );
    const contentType = String(request.headers['content-type'] ?? '');
    const format = /json/i.test(contentType) ? 'json' : /yaml/i.test(contentType) ? 'yaml' : undefined;
    const registered = await hooks.register(body, { file: 'request body', ...(format ? { format } : {}) });
    request.log.info(
      { hook: registered.hook.typeName, outcome: registered.outcome, by: principalOf(request).tokenId },
      'hook registered',
    );
    return reply
      .status(registered.outcome === 'unchanged' ? 200 : 201)
      .send({ ...(await summary(hooks, registered)), outcome: registered.outcome });
  });

  app.get('/v1/hooks', async () => {
    const list = await hooks.list();
    return { hooks: await Promise.all(list.map((h) => summary(hooks, h))) };
  });

  app.get<{ Params: { typeName: string } }>('/v1/hooks/:typeName', async (request) => {
    const registered = await hooks.get(request.params.typeName);
    return { ...(await summary(hooks, registered)), schema: registered.hook.document };
  });

  app.delete<{ Params: { typeName: string } }>('/v1/hooks/:typeName', async (request, reply) => {
    await hooks.remove(request.params.typeName);
    request.log.info(
      { hook: request.params.typeName, by: principalOf(request).tokenId },
      'hook deregistered',
    );
    return reply.status(204).send();
  });

  app.put<{ Params: { typeName: string } }>('/v1/hooks/:typeName/configuration', async (request) => {
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0)
      throw new TypeplaneError(
        'InvalidRequest',
        'send the configuration as JSON: { "CloudFormationConfiguration": { "HookConfiguration": { … } } }',
      );
    const { typeName } = request.params;
    const { settings, updatedAt } = await hooks.configure(typeName, parseJsonBody(body));
    request.log.info({ hook: typeName, by: principalOf(request).tokenId }, 'hook configured');
    return {
      typeName,
      configured: true,
      enabled: settings.enabled,
      failureMode: settings.failureMode,
      updatedAt,
    };
  });

  app.get<{ Params: { typeName: string } }>('/v1/hooks/:typeName/configuration', async (request) => {
    const { typeName } = request.params;
    await hooks.get(typeName);
    const found = await hooks.configuration(typeName);
    if (!found)
      throw new TypeplaneError(
        'NotFound',
        `hook ${typeName} has no configuration: it is not invoked until one enables it ('typeplane hook configure')`,
      );
    return { typeName, configured: true, updatedAt: found.updatedAt, configuration: found.configuration };
  });
}

/** A hook as listed: what it targets, and whether (and how) it is configured to run. */
async function summary(hooks: HookRegistrations, { hook, registeredAt }: RegisteredHook) {
  const settings = await hooks.settings(hook).catch(() => undefined);
  return {
    typeName: hook.typeName,
    description: hook.description,
    registeredAt,
    handlers: Object.fromEntries(
      Object.entries(hook.handlers).map(([action, h]) => [action, { targetNames: h.targetNames }]),
    ),
    configured: settings !== undefined,
    enabled: settings?.enabled ?? false,
    ...(settings
      ? {
          failureMode: settings.failureMode,
          timeoutSeconds: settings.timeoutMs / 1000,
          targetOperations: settings.targetOperations,
        }
      : {}),
  };
}
