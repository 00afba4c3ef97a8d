/**
 * @module Every metric Typeplane exposes, with its help text and unit, defined in one place on a
 * registry of its own (one per service: tests run several services in one process, and the library's
 * global registry would mix them).
 *
 * Label values are bounded: HTTP routes are the route templates (never the URL), Cloud Control
 * actions come from the fixed list of operations, type names only from registered types, error codes
 * from the catalogue in src/errors.ts.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * OpenTelemetry's advice for HTTP durations, with two finer buckets below: most of this API's
 * answers take under a millisecond.
 */
const HTTP_BUCKETS = [
  0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export function defineMetrics(registry: Registry) {
  // Event-loop lag, heap, GC, file descriptors, CPU: the library's own, on this registry.
  collectDefaultMetrics({ register: registry });
  return {
    httpDuration: new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP server requests, by method, route template, status code and (for the Cloud Control API on POST /) its action.',
      labelNames: ['http_request_method', 'http_route', 'http_response_status_code', 'rpc_method'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof defineMetrics>;

/** Keeps prom-client's class names out of the callers' imports. */
export { Counter, Histogram, Registry };
