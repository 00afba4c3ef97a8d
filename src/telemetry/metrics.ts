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
import { RequestDurations } from './http.js';
import { OwnCounter, OwnHistogram } from './series.js';

/**
 * OpenTelemetry's advice for HTTP durations, with two finer buckets below: most of this API's
 * answers take under a millisecond.
 */
/** Handler calls: a record-keeping provider answers in a millisecond, a cloud's in minutes. */
const HANDLER_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const HTTP_BUCKETS = [
  0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Stack deployments: a few seconds for records, an hour for a cloud's slow resources. */
const DEPLOYMENT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** Store transactions: a group commit on SQLite takes a fraction of a millisecond. */
const TRANSACTION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1];

/**
 * Fill a metric as it is scraped; set once what it reads is wired (see `engine.ts`, `store.ts`). The
 * store's own metrics are registered by `store.ts` for the store in use only (`registers: []` here).
 */
type Reader<M> = (metric: M) => void | Promise<void>;

export function defineMetrics(registry: Registry) {
  const readers: {
    slotsInUse?: Reader<Gauge<'type_name'>>;
    resources?: Reader<Gauge<'type_name'>>;
    operationsDue?: Reader<Gauge<'type_name'>>;
    operationsInProgress?: Reader<Gauge<'type_name'>>;
    walBytes?: Reader<Gauge>;
    checkpoints?: Reader<Counter>;
    poolConnections?: Reader<Gauge<'state'>>;
    poolWaiting?: Reader<Gauge>;
    fairnessSeats?: Reader<Gauge<'priority_level'>>;
    fairnessSeatsInUse?: Reader<Gauge<'priority_level'>>;
    fairnessWaiting?: Reader<Gauge<'priority_level' | 'flow'>>;
    fairnessDispatched?: Reader<Counter<'priority_level' | 'flow'>>;
    fairnessQueued?: Reader<Counter<'priority_level' | 'flow'>>;
    fairnessWaitSeconds?: Reader<Counter<'priority_level' | 'flow'>>;
    fairnessRejected?: Reader<Counter<'priority_level' | 'flow' | 'reason'>>;
    watchesOpen?: Reader<Gauge>;
    watchEvents?: Reader<Counter>;
    watchBytes?: Reader<Counter>;
    watchesEnded?: Reader<Counter<'reason'>>;
    auditDropped?: Reader<Counter>;
  } = {};
  // Event-loop lag, heap, GC, file descriptors, CPU: the library's own, on this registry.
  collectDefaultMetrics({ register: registry });
  return {
    readers,
    httpDuration: new RequestDurations(
      'http_server_request_duration_seconds',
      'Duration of HTTP server requests, by method, route template, status code and (for the Cloud Control API on POST /) its action.',
      HTTP_BUCKETS,
      registry,
    ),
    // Fed on every operation or handler call: series of their own (series.ts), not prom-client's.
    operations: new OwnCounter(
      'typeplane_operations_total',
      'Operations (create, update, delete) that ended, by type, operation and terminal status.',
      ['type_name', 'operation', 'status'],
      [registry],
    ),
    handlerDuration: new OwnHistogram(
      'typeplane_handler_duration_seconds',
      "Duration of providers' handler invocations, by type and handler (create, update, delete).",
      ['type_name', 'operation'],
      HANDLER_BUCKETS,
      [registry],
    ),
    providerErrors: new OwnCounter(
      'typeplane_provider_errors_total',
      'Handler invocations that failed, by type and error code (the handler contract error codes).',
      ['type_name', 'error_code'],
      [registry],
    ),
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
    operationsDue: new Gauge({
      name: 'typeplane_operations_due',
      help: 'Operations not ended that a worker may claim now (queue depth), by type (counted at most every 5 s).',
      labelNames: ['type_name'] as const,
      registers: [registry],
      collect() {
        return readers.operationsDue?.(this);
      },
    }),
    operationsInProgress: new Gauge({
      name: 'typeplane_operations_in_progress',
      help: "Operations not ended that a worker holds or that wait for their handler's callback delay, by type (counted at most every 5 s).",
      labelNames: ['type_name'] as const,
      registers: [registry],
      collect() {
        return readers.operationsInProgress?.(this);
      },
    }),
    leaseTakeovers: new OwnCounter(
      'typeplane_lease_takeovers_total',
      "Operations this process claimed whose lease had run out under another worker (a stopped or stalled one's), by type.",
      ['type_name'],
      [registry],
    ),
    deployments: new Counter({
      name: 'typeplane_stack_deployments_total',
      help: "Stack deployments and deletions that ended, by the stack's final status (recipes' instances included).",
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    deploymentDuration: new Histogram({
      name: 'typeplane_stack_deployment_duration_seconds',
      help: 'Duration of stack deployments and deletions, from their start to their end, by final status.',
      labelNames: ['status'] as const,
      buckets: DEPLOYMENT_BUCKETS,
      registers: [registry],
    }),
    driftChecks: new Counter({
      name: 'typeplane_stack_drift_checks_total',
      help: 'Stack drift checks, by result (IN_SYNC, DRIFTED).',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    driftResources: new Counter({
      name: 'typeplane_stack_drift_resources_total',
      help: "Resources compared by stack drift checks, by each one's result (IN_SYNC, MODIFIED, DELETED).",
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    transactionDuration: new OwnHistogram(
      'typeplane_store_transaction_duration_seconds',
      "Duration of the store's write transactions (SQLite: group commits; PostgreSQL: transactions of more than one statement).",
      [],
      TRANSACTION_BUCKETS,
      [registry],
    ),
    walBytes: new Gauge({
      name: 'typeplane_sqlite_wal_bytes',
      help: "Size of the SQLite store's write-ahead log (the -wal file), in bytes.",
      registers: [],
      collect() {
        return readers.walBytes?.(this);
      },
    }),
    checkpoints: new Counter({
      name: 'typeplane_sqlite_checkpoints_total',
      help: "Passes of the SQLite store's background checkpointer that copied pages from the write-ahead log into the database file.",
      registers: [],
      collect() {
        return readers.checkpoints?.(this);
      },
    }),
    poolConnections: new Gauge({
      name: 'typeplane_postgresql_pool_connections',
      help: "Connections of the PostgreSQL store's pool, by state (idle, used).",
      labelNames: ['state'] as const,
      registers: [],
      collect() {
        return readers.poolConnections?.(this);
      },
    }),
    poolWaiting: new Gauge({
      name: 'typeplane_postgresql_pool_pending_requests',
      help: "Requests waiting for a connection of the PostgreSQL store's pool.",
      registers: [],
      collect() {
        return readers.poolWaiting?.(this);
      },
    }),
    // Fairness (src/fairness), registered when it is on. A flow is a token id, never a token.
    fairnessSeats: new Gauge({
      name: 'typeplane_fairness_seats',
      help: 'Requests a priority level runs at once (its seats).',
      labelNames: ['priority_level'] as const,
      registers: [],
      collect() {
        return readers.fairnessSeats?.(this);
      },
    }),
    fairnessSeatsInUse: new Gauge({
      name: 'typeplane_fairness_seats_in_use',
      help: 'Requests running now, by priority level.',
      labelNames: ['priority_level'] as const,
      registers: [],
      collect() {
        return readers.fairnessSeatsInUse?.(this);
      },
    }),
    fairnessWaiting: new Gauge({
      name: 'typeplane_fairness_queue_length',
      help: 'Requests waiting for a seat now, by priority level and flow (token id).',
      labelNames: ['priority_level', 'flow'] as const,
      registers: [],
      collect() {
        return readers.fairnessWaiting?.(this);
      },
    }),
    fairnessDispatched: new Counter({
      name: 'typeplane_fairness_dispatched_requests_total',
      help: 'Requests given a seat, at once or after waiting, by priority level and flow (token id).',
      labelNames: ['priority_level', 'flow'] as const,
      registers: [],
      collect() {
        return readers.fairnessDispatched?.(this);
      },
    }),
    fairnessQueued: new Counter({
      name: 'typeplane_fairness_queued_requests_total',
      help: 'Requests that waited in a queue for a seat, by priority level and flow (token id).',
      labelNames: ['priority_level', 'flow'] as const,
      registers: [],
      collect() {
        return readers.fairnessQueued?.(this);
      },
    }),
    fairnessWaitSeconds: new Counter({
      name: 'typeplane_fairness_wait_seconds_total',
      help: 'Time queued requests waited for a seat (or for their refusal), summed, by priority level and flow (token id); divided by the queued requests, the mean wait.',
      labelNames: ['priority_level', 'flow'] as const,
      registers: [],
      collect() {
        return readers.fairnessWaitSeconds?.(this);
      },
    }),
    fairnessRejected: new Counter({
      name: 'typeplane_fairness_rejected_requests_total',
      help: "Requests refused with 429 (ThrottlingException on Cloud Control), by priority level, flow (token id) and reason: rate (the token's own), queue-full, queue-timeout.",
      labelNames: ['priority_level', 'flow', 'reason'] as const,
      registers: [],
      collect() {
        return readers.fairnessRejected?.(this);
      },
    }),
    // Watches (src/watch): read from its counts at each scrape; the watch path only counts.
    watchesOpen: new Gauge({
      name: 'typeplane_watches_open',
      help: 'Watches open now (resources, operations and stack events).',
      registers: [],
      collect() {
        return readers.watchesOpen?.(this);
      },
    }),
    watchEvents: new Counter({
      name: 'typeplane_watch_events_sent_total',
      help: 'Events sent to watches: changes, BOOKMARKs and the ERROR that ends one.',
      registers: [],
      collect() {
        return readers.watchEvents?.(this);
      },
    }),
    watchBytes: new Counter({
      name: 'typeplane_watch_sent_bytes_total',
      help: 'Bytes of events written to watches (SSE or NDJSON framing included).',
      registers: [],
      collect() {
        return readers.watchBytes?.(this);
      },
    }),
    auditDropped: new Counter({
      name: 'typeplane_audit_records_dropped_total',
      help: "Audit records the store's trail dropped: its buffer was full (the store down or too slow while operations in flight ended).",
      registers: [],
      collect() {
        return readers.auditDropped?.(this);
      },
    }),
    watchesEnded: new Counter({
      name: 'typeplane_watches_ended_total',
      help: 'Watches ended, by reason: client_closed, slow_consumer (429), revoked (401), forbidden (403), not_found (404), expired (410), shutdown (503), failed (500).',
      labelNames: ['reason'] as const,
      registers: [],
      collect() {
        return readers.watchesEnded?.(this);
      },
    }),
  };
}

export type Metrics = ReturnType<typeof defineMetrics>;

/** Keeps prom-client's class names out of the callers' imports. */
export { Registry };
