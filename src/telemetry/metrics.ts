/**
 * @module Every metric Typeplane exposes, with its help text and unit, defined in one place on a
 * registry of its own (one per service: tests run several services in one process, and the library's
 * global registry would mix them).
 *
 * Label values are bounded: HTTP routes are the route templates (never the URL), Cloud Control
 * actions come from the fixed list of operations, type names only from registered types, error codes
 * from the catalogue in src/errors.ts.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * OpenTelemetry's advice for HTTP durations, with two finer buckets below: most of this API's
 * answers take under a millisecond.
 */
/** Handler calls: a record-keeping provider answers in a millisecond, a cloud's in minutes. */
const HANDLER_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const HTTP_BUCKETS = [
  0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Fill a gauge as it is scraped; set once what it reads is wired (see `engine.ts`). */
type GaugeReader = (gauge: Gauge<'type_name'>) => void | Promise<void>;

export function defineMetrics(registry: Registry) {
  const readers: { slotsInUse?: GaugeReader; resources?: GaugeReader } = {};
  // Event-loop lag, heap, GC, file descriptors, CPU: the library's own, on this registry.
  collectDefaultMetrics({ register: registry });
  return {
    readers,
    httpDuration: new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP server requests, by method, route template, status code and (for the Cloud Control API on POST /) its action.',
      labelNames: ['http_request_method', 'http_route', 'http_response_status_code', 'rpc_method'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
    operations: new Counter({
      name: 'typeplane_operations_total',
      help: 'Operations (create, update, delete) that ended, by type, operation and terminal status.',
      labelNames: ['type_name', 'operation', 'status'] as const,
      registers: [registry],
    }),
    handlerDuration: new Histogram({
      name: 'typeplane_handler_duration_seconds',
      help: "Duration of providers' handler invocations, by type and handler (create, update, delete).",
      labelNames: ['type_name', 'operation'] as const,
      buckets: HANDLER_BUCKETS,
      registers: [registry],
    }),
    providerErrors: new Counter({
      name: 'typeplane_provider_errors_total',
      help: 'Handler invocations that failed, by type and error code (the handler contract error codes).',
      labelNames: ['type_name', 'error_code'] as const,
      registers: [registry],
    }),
    slotsInUse: new Gauge({
      name: 'typeplane_handler_slots_in_use',
      help: 'Handler invocations running in this process now, by type (each type has at most its share of the slots).',
      labelNames: ['type_name'] as const,
      registers: [registry],
      collect() {
        return readers.slotsInUse?.(this);
      },
    }),
    resources: new Gauge({
      name: 'typeplane_resources',
      help: 'Resources recorded, by registered type (counted at most every 30 s).',
      labelNames: ['type_name'] as const,
      registers: [registry],
      collect() {
        return readers.resources?.(this);
      },
    }),
  };
}

export type Metrics = ReturnType<typeof defineMetrics>;

/** Keeps prom-client's class names out of the callers' imports. */
export { Registry };
