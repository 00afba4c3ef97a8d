/**
 * @module GET /metrics: the service's metrics in the Prometheus text format, for a token of the
 * `admin` or `monitor` role (the role check is `auth.ts`'s, as for every route).
 */
import type { FastifyInstance } from 'fastify';
import type { Telemetry } from '../../telemetry/index.js';

export const METRICS_ROUTE = '/metrics';

export async function metricsRoutes(
  app: FastifyInstance,
  { telemetry }: { telemetry: Telemetry },
): Promise<void> {
  app.get(METRICS_ROUTE, async (_request, reply) => {
    const text = await telemetry.exposition();
    return reply.header('content-type', telemetry.contentType).header('cache-control', 'no-store').send(text);
  });
}
