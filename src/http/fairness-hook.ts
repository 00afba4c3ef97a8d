/**
 * @module Fairness at the `/v1` API's front: one `onRequest` hook, after authentication and before
 * the body is read (a waiting request costs no parsing), seats each request in its token's flow or
 * queues it (see src/fairness). Over its share a request is answered `429 Throttling` with
 * `Retry-After`. The seat is given back when the response closes (answered, or its client gone), or
 * once the request only waits: a watch holds none once admitted, `?wait` none while it waits.
 *
 * A free seat costs no promise and no allocation beyond the release's listener.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { holdSeat, type Fairness, type Flow, type Throttled } from '../fairness/index.js';
import { errorBody } from './errors.js';
import { HEALTH_ROUTES } from './routes/health.js';

const EXEMPT_ROUTES = new Set(HEALTH_ROUTES);

function throttle(reply: FastifyReply, refusal: Throttled): void {
  void reply
    .status(429)
    .header('retry-after', String(refusal.retryAfterSeconds))
    .send(errorBody('Throttling', refusal.message, [{ reason: refusal.reason }]));
}

/** A watch (`GET …?watch=…`) streams for as long as its client likes: admitted fairly, it holds no seat. */
function isWatch(request: FastifyRequest): boolean {
  return request.method === 'GET' && (request.query as { watch?: unknown } | undefined)?.watch !== undefined;
}

export function registerFairness(app: FastifyInstance, fairness: Fairness): void {
  const seat = (request: FastifyRequest, reply: FastifyReply, flow: Flow): void => {
    if (isWatch(request)) fairness.leave(flow);
    else holdSeat(reply.raw, flow);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const principal = request.principal;
    // Probes are exempt, as Kubernetes exempts its own: a server under load still says it is alive.
    if (principal === undefined && EXEMPT_ROUTES.has(request.routeOptions.url ?? '')) return done();
    const flow = fairness.flowOf(principal);
    const admitted = fairness.enter(flow);
    if (admitted === true) {
      seat(request, reply, flow);
      return done();
    }
    if (admitted !== false) return throttle(reply, admitted);
    fairness.wait(flow, (refusal) => {
      if (refusal) return throttle(reply, refusal);
      // The client left while it waited: the seat goes to the next one.
      if (reply.raw.destroyed) return fairness.leave(flow);
      seat(request, reply, flow);
      done();
    });
  });
}
