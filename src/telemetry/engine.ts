/**
 * @module The engine's metrics: an {@link EngineObserver} counting ended operations, timing handler
 * calls and counting provider errors; at scrape time, the handler slots in use (the worker's own
 * count) and the resources per registered type (the store's count, cached).
 */
import type { EngineObserver } from '../engine/index.js';
import type { Metrics } from './metrics.js';

/** What the scrape-time gauges read. */
export interface EngineSources {
  /** Handler invocations running in this process, by type name. */
  running(): ReadonlyMap<string, number>;
  /** The registered type names. */
  typeNames(): Promise<string[]>;
  /** How many resources a type has. */
  countResources(typeName: string): Promise<number>;
}

/**
 * How long counted resources are served again: on PostgreSQL a count is a scan of the type's index
 * entries (on SQLite a row the store keeps), so a scrape every few seconds must not run one per type.
 */
export const RESOURCE_COUNT_TTL_MS = 30_000;

export function engineObserver(metrics: Metrics): EngineObserver {
  return {
    operationEnded(typeName, operation, status) {
      metrics.operations.inc({ type_name: typeName, operation, status });
    },
    handlerInvoked(typeName, action, seconds, errorCode) {
      metrics.handlerDuration.observe({ type_name: typeName, operation: action }, seconds);
      if (errorCode !== undefined) metrics.providerErrors.inc({ type_name: typeName, error_code: errorCode });
    },
  };
}

/** Fills the engine's gauges from `sources` whenever they are scraped. */
export function watchEngine(metrics: Metrics, sources: EngineSources): void {
  metrics.readers.slotsInUse = (gauge) => {
    gauge.reset();
    for (const [typeName, n] of sources.running()) gauge.set({ type_name: typeName }, n);
  };
  let counted: { at: number; counts: Map<string, number> } | undefined;
  metrics.readers.resources = async (gauge) => {
    if (!counted || Date.now() - counted.at >= RESOURCE_COUNT_TTL_MS) {
      const counts = new Map<string, number>();
      for (const typeName of await sources.typeNames())
        counts.set(typeName, await sources.countResources(typeName));
      counted = { at: Date.now(), counts };
    }
    // Types deregistered since leave the gauge.
    gauge.reset();
    for (const [typeName, n] of counted.counts) gauge.set({ type_name: typeName }, n);
  };
}
