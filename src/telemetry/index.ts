/**
 * @module Telemetry: the service's metrics in the Prometheus text format (`GET /metrics`).
 *
 * @example
 * const telemetry = createTelemetry();
 * telemetry.recordRequest('GET', '/v1/resources/:typeName', 200, 0.0012);
 * const text = await telemetry.exposition(); // "# HELP http_server_request_duration_seconds …"
 */
import { defineMetrics, Registry } from './metrics.js';
import { requestRecorder, type RequestRecorder } from './http.js';
import { engineObserver, watchEngine, type EngineSources } from './engine.js';
import type { EngineObserver } from '../engine/index.js';

export interface Telemetry {
  /** The Content-Type of {@link exposition}'s text. */
  readonly contentType: string;
  /** One answered HTTP request (see `http.ts`). */
  readonly recordRequest: RequestRecorder;
  /** Told of the engine's ended operations and handler calls. */
  readonly engineObserver: EngineObserver;
  /** Read the engine's gauges (slots in use, resources per type) from `sources` at each scrape. */
  watchEngine(sources: EngineSources): void;
  /** Every metric, as Prometheus scrapes them. */
  exposition(): Promise<string>;
}

export function createTelemetry(): Telemetry {
  const registry = new Registry();
  const metrics = defineMetrics(registry);
  return {
    contentType: registry.contentType,
    recordRequest: requestRecorder(metrics.httpDuration),
    engineObserver: engineObserver(metrics),
    watchEngine: (sources) => watchEngine(metrics, sources),
    exposition: () => registry.metrics(),
  };
}

export type { RequestRecorder, EngineSources };
export { startTracing, tracingChoice, type Tracing, type TracingChoice } from './tracing.js';
export { logTraceIds } from './spans.js';
export { nameRoute, serveInSpan } from './server-spans.js';
