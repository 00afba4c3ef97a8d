/**
 * @module /v1/tokens — create, list and revoke API tokens (admin only; the auth hook checks the role).
 * A created token is in the 201 answer and nowhere else: only its hash is kept.
 */
import type { FastifyInstance } from 'fastify';
import { TypeplaneError } from '../../errors.js';
import { isRole, type Tokens } from '../../auth/index.js';

/** The body as an object, or InvalidRequest showing `shape`. */
function objectBody(body: unknown, shape: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeplaneError('InvalidRequest', `send a JSON object: ${shape}`);
  return body as Record<string, unknown>;
}

function refuseUnknown(rest: Record<string, unknown>, why = ''): void {
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}${why}`,
    );
}

export async function tokenRoutes(app: FastifyInstance, { tokens }: { tokens: Tokens }): Promise<void> {
  app.post('/v1/tokens', async (request, reply) => {
    const { role, types, description, awsKeys, rate, burst, ...rest } = objectBody(
      request.body,
      '{ "role": "admin" | "writer" | "reader" | "monitor", "types"?: [...], "description"?: "...", "awsKeys"?: true, "rate"?: "100/s", "burst"?: 200 }',
    );
    refuseUnknown(rest);
    if (!isRole(role))
      throw new TypeplaneError(
        'InvalidRequest',
        role === undefined
          ? 'role is required: admin, writer, reader or monitor'
          : `role must be admin, writer, reader or monitor, not ${JSON.stringify(role).slice(0, 40)}`,
      );
    if (description !== undefined && typeof description !== 'string')
      throw new TypeplaneError('InvalidRequest', 'description must be a string');
    if (awsKeys !== undefined && typeof awsKeys !== 'boolean')
      throw new TypeplaneError('InvalidRequest', 'awsKeys must be true or false');
    const { token, record, accessKey } = await tokens.create({
      role,
      ...(types !== undefined ? { types } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(awsKeys === true ? { accessKey: true } : {}),
      ...(rate !== undefined ? { rate } : {}),
      ...(burst !== undefined ? { burst } : {}),
    });
    // The audit trail names tokens by id, never by secret.
    request.log.info(
      { tokenId: record.id, role: record.role, by: request.principal?.tokenId },
      'token created',
    );
    // The secret access key, like the token, is in this answer and nowhere else in plain text.
    return reply
      .status(201)
      .send({ token, ...record, ...(accessKey ? { secretAccessKey: accessKey.secretAccessKey } : {}) });
  });

  app.get('/v1/tokens', async () => ({ tokens: await tokens.list() }));

  // A token's own rate and burst (src/fairness), set, changed or dropped (rate null).
  app.patch<{ Params: { id: string } }>('/v1/tokens/:id', async (request) => {
    const { rate, burst, ...rest } = objectBody(request.body, '{ "rate": "100/s" | null, "burst"?: 200 }');
    refuseUnknown(rest, " (a token's rate and burst change; its role, types and description do not)");
    const record = await tokens.limit(request.params.id, { rate, burst });
    if (!record) throw new TypeplaneError('NotFound', `no token with id ${request.params.id}`);
    request.log.info(
      {
        tokenId: record.id,
        rate: record.rate ?? null,
        burst: record.burst ?? null,
        by: request.principal?.tokenId,
      },
      'token limits changed',
    );
    return record;
  });

  app.delete<{ Params: { id: string } }>('/v1/tokens/:id', async (request, reply) => {
    if (!(await tokens.revoke(request.params.id)))
      throw new TypeplaneError('NotFound', `no token with id ${request.params.id}`);
    request.log.info({ tokenId: request.params.id, by: request.principal?.tokenId }, 'token revoked');
    return reply.status(204).send();
  });
}
