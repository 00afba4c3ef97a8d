/**
 * @module The HTTP server: routes, error mapping, request ids and logs.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Engine } from '../engine/engine.js';
import type { Registry } from '../registry/registry.js';
import { errorBody, handleError } from './errors.js';
import { RESOURCE_BODY_LIMIT, resourceRoutes } from './routes/resources.js';
import { requestRoutes } from './routes/requests.js';
import { typeRoutes } from './routes/types.js';

export interface ServerOptions {
  engine: Engine;
  registry: Registry;
  logger: Logger;
}

export async function buildServer({ engine, registry, logger }: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: RESOURCE_BODY_LIMIT,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Refuse JSON that tries to reach prototypes, rather than silently dropping the key.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send(errorBody('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(typeRoutes, { registry });
  await app.register(resourceRoutes, { engine });
  await app.register(requestRoutes, { engine });
  return app;
}
