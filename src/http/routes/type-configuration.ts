/**
 * @module /v1/types/{typeName}/configuration — a type's configuration (admin only, both ways): set
 * whole with PUT, read with GET. Registered inside the types plugin, whose bodies arrive as bytes.
 */
import type { FastifyInstance } from 'fastify';
import { TypeplaneError } from '../../errors.js';
import type { TypeConfigurations } from '../../type-configuration/index.js';
import { parseJsonBody } from '../body.js';

export function configurationRoutes(app: FastifyInstance, configurations: TypeConfigurations): void {
  app.put<{ Params: { typeName: string } }>('/v1/types/:typeName/configuration', async (request) => {
    const body = request.body;
    if (!Buffer.isBuffer(body) || body.length === 0)
      throw new TypeplaneError(
        'InvalidRequest',
        'send the configuration as a JSON object (application/json)',
      );
    const { typeName } = request.params;
    const { updatedAt } = await configurations.set(typeName, parseJsonBody(body));
    return { typeName, configured: true, updatedAt };
  });

  app.get<{ Params: { typeName: string } }>('/v1/types/:typeName/configuration', async (request) => {
    const { typeName } = request.params;
    const found = await configurations.describe(typeName);
    if (!found)
      throw new TypeplaneError(
        'NotFound',
        `${typeName} has no configuration set; set it with PUT /v1/types/{typeName}/configuration ('typeplane type configure')`,
      );
    return { typeName, configured: true, updatedAt: found.updatedAt, configuration: found.configuration };
  });
}
