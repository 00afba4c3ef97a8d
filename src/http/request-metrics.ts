/**
 * @module The `/v1` API's request metrics: each route's requests are recorded by an `onResponse`
 * hook of the route's own, made once as the route is registered (fastify's `onRoute`) with its
 * template already known, so that a request reads no route options (fastify builds that object anew
 * on each read) and makes no key; the requests no route matched, by a hook of the not-found
 * handler's own scope, as route ''.
 */
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { RouteRecorder, Telemetry } from '../telemetry/index.js';

/** Gives every route registered from now on a hook recording its requests. Call before any route. */
export function recordRoutes(app: FastifyInstance, telemetry: Telemetry): void {
  app.addHook('onRoute', (route) => {
    const own = route.onResponse;
    // A new array: fastify copies a GET route's options for its HEAD route before this runs, and
    // the HEAD route gets a hook of its own here.
    route.onResponse = [
      ...(own === undefined ? [] : Array.isArray(own) ? own : [own]),
      recording(telemetry.recorderFor(route.url)),
    ];
  });
}

/** The hook recording requests no route matched (route ''), for the scope of the not-found handler only. */
export function recordingUnmatched(telemetry: Telemetry): onResponseHookHandler {
  return recording(telemetry.recorderFor(''));
}

function recording(record: RouteRecorder): onResponseHookHandler {
  return (request, reply, done) => {
    record(request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
}
