/**
 * @module /livez, /readyz and /healthz: open to anyone (probes carry no token), saying nothing a
 * tenant could learn from but whether this process can serve, and if not, in general words why.
 *
 * `/livez` answers while the process serves requests. `/readyz` answers 200 when the store is
 * reachable at the schema this Typeplane knows and the server is not shutting down, 503 with each
 * failed check's reason otherwise. `/healthz` is the older name kept as it was (liveness).
 */
import type { FastifyInstance } from 'fastify';
import type { Readiness } from '../../health/index.js';

export const HEALTH_ROUTES: readonly string[] = ['/healthz', '/livez', '/readyz'];

export async function healthRoutes(
  app: FastifyInstance,
  { readiness }: { readiness?: Readiness },
): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/livez', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (!readiness) return { status: 'ok', checks: [] };
    const report = await readiness.check();
    return reply
      .status(report.ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: report.ready ? 'ok' : 'unavailable', checks: report.checks });
  });
}
