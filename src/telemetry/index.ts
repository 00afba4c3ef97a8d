/**
 * @module Telemetry: the service's metrics in the Prometheus text format (`GET /metrics`).
 *
 * @example
 * const telemetry = createTelemetry();
 * telemetry.recordRequest('GET', '/v1/resources/:typeName', 200, 0.0012);
 * const text = await telemetry.exposition(); // "# HELP http_server_request_duration_seconds …"
 */
import { defineMetrics, Registry } from './metrics.js';
import type { RequestRecorder, RouteRecorder } from './http.js';
import { engineObserver, watchEngine, type EngineSources } from './engine.js';
import { stacksObserver } from './stacks.js';
import { storeObserver, watchStore } from './store.js';
import { watchFairness } from './fairness.js';
import { watchWatches, type WatchSource } from './watches.js';
import type { Fairness } from '../fairness/index.js';
import type { EngineObserver } from '../engine/index.js';
import type { StacksObserver } from '../stacks/index.js';
import type { StoreObserver, StoreStats } from '../store/index.js';

export interface Telemetry {
  /** The Content-Type of {@link exposition}'s text. */
  readonly contentType: string;
  /** One answered HTTP request (see `http.ts`). */
  readonly recordRequest: RequestRecorder;
  /** The recorder of one route template's answered requests, to be made once per route (see `http.ts`). */
  recorderFor(route: string): RouteRecorder;
  /** Told of the engine's ended operations, handler calls and lease takeovers. */
  readonly engineObserver: EngineObserver;
  /** Told of ended stack deployments and drift checks. */
  readonly stacksObserver: StacksObserver;
  /** Told of the store's transactions. */
  readonly storeObserver: StoreObserver;
  /** Read the engine's gauges (slots in use, resources per type, queue depth) from `sources` at each scrape. */
  watchEngine(sources: EngineSources): void;
  /** Read the store's own figures (WAL size and checkpoints, or the pool) from `stats` at each scrape. */
  watchStore(stats: () => StoreStats): void;
  /** Read fairness's seats, queues, waits and refusals per priority level and flow at each scrape. */
  watchFairness(fairness: Fairness): void;
  /** Read how many records the store's audit trail dropped (`dropped`), at each scrape. */
  watchAuditTrail(dropped: () => number): void;
  /** Read the watches open, what they sent and why they ended, at each scrape. */
  watchWatches(watches: WatchSource): void;
  /** Every metric, as Prometheus scrapes them. */
  exposition(): Promise<string>;
}

export function createTelemetry(): Telemetry {
  const registry = new Registry();
  const metrics = defineMetrics(registry);
  return {
    contentType: registry.contentType,
    recordRequest: metrics.httpDuration.record,
    recorderFor: (route) => metrics.httpDuration.forRoute(route),
    engineObserver: engineObserver(metrics),
    stacksObserver: stacksObserver(metrics),
    storeObserver: storeObserver(metrics),
    watchEngine: (sources) => watchEngine(metrics, sources),
    watchStore: (stats) => watchStore(metrics, registry, stats),
    watchFairness: (fairness) => watchFairness(metrics, registry, fairness),
    watchWatches: (watches) => watchWatches(metrics, registry, watches),
    watchAuditTrail: (dropped) => {
      registry.registerMetric(metrics.auditDropped);
      metrics.readers.auditDropped = (counter) => {
        counter.reset();
        counter.inc(dropped());
      };
    },
    exposition: () => registry.metrics(),
  };
}

export type { RequestRecorder, RouteRecorder, EngineSources };
export { startTracing, tracingChoice, type Tracing, type TracingChoice } from './tracing.js';
export { logTraceIds } from './spans.js';
export { nameRoute, serveInSpan } from './server-spans.js';
