/**
 * @module /v1/policies — admission policies. Writes are an admin's (the auth hook checks the role);
 * any admin, writer or reader token not scoped to types may read them (a policy spans types, so a
 * scoped token, which must not learn of other types, may not), so a team can see what refused a
 * change. Bodies are JSON; the CLI sends YAML files as JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessDenied } from '../../auth/index.js';
import { TypeplaneError } from '../../errors.js';
import type { CompiledPolicy, Policies } from '../../policy/index.js';
import { principalOf } from '../auth.js';

export async function policyRoutes(
  app: FastifyInstance,
  { policies }: { policies: Policies<CompiledPolicy> },
): Promise<void> {
  app.get('/v1/policies', async (request) => {
    assertUnscoped(request);
    return { policies: await policies.list() };
  });

  app.get<{ Params: { name: string } }>('/v1/policies/:name', async (request) => {
    assertUnscoped(request);
    const found = await policies.get(request.params.name);
    if (!found) throw notFound(request.params.name);
    return found;
  });

  app.post('/v1/policies', async (request, reply) => {
    const record = await policies.put(request.body, principalOf(request).tokenId);
    request.log.info({ policy: record.policy.name, by: principalOf(request).tokenId }, 'policy created');
    return reply.status(201).send(record);
  });

  app.put<{ Params: { name: string } }>('/v1/policies/:name', async (request) => {
    const { name } = request.params;
    const body = request.body;
    // The name is the path's: a body naming another would register it under a name not asked for.
    const named =
      typeof body === 'object' && body !== null && !Array.isArray(body) && 'name' in body
        ? (body as { name: unknown }).name
        : name;
    if (named !== name)
      throw new TypeplaneError(
        'InvalidRequest',
        `the body names policy ${JSON.stringify(named).slice(0, 80)}, the path ${name}: they must agree`,
        [{ pointer: '/name', message: `must be ${name}, as in the path` }],
      );
    const document = typeof body === 'object' && body !== null ? { ...body, name } : body;
    const record = await policies.put(document, principalOf(request).tokenId, { replace: true });
    request.log.info({ policy: name, by: principalOf(request).tokenId }, 'policy set');
    return record;
  });

  app.delete<{ Params: { name: string } }>('/v1/policies/:name', async (request, reply) => {
    if (!(await policies.delete(request.params.name))) throw notFound(request.params.name);
    request.log.info({ policy: request.params.name, by: principalOf(request).tokenId }, 'policy deleted');
    return reply.status(204).send();
  });
}

function assertUnscoped(request: FastifyRequest): void {
  if (principalOf(request).types !== undefined)
    throw accessDenied(
      'a token scoped to types cannot read policies (a policy may name any type); use an unscoped reader token',
    );
}

function notFound(name: string): TypeplaneError {
  return new TypeplaneError(
    'NotFound',
    `no policy named ${name}; 'typeplane policy list' shows those registered`,
  );
}
