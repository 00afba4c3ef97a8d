/**
 * @module The engine's metrics: an {@link EngineObserver} counting ended operations, timing handler
 * calls and counting provider errors and lease takeovers; at scrape time, the handler slots in use
 * (the worker's own count), the resources per registered type (the store's count, cached) and the
 * operations due and in progress (the store's count of active operations, cached).
 */
import type { EngineObserver } from '../engine/index.js';
import type { Metrics } from './metrics.js';
import { SeriesByValues } from './series.js';

/** One type's operations not ended: due (claimable now), and held or waiting for a callback delay. */
export interface ActiveOperations {
  typeName: string;
  due: number;
  inProgress: number;
}

/** What the scrape-time gauges read. */
export interface EngineSources {
  /** Handler invocations running in this process, by type name. */
  running(): ReadonlyMap<string, number>;
  /** The registered type names. */
  typeNames(): Promise<string[]>;
  /** How many resources a type has. */
  countResources(typeName: string): Promise<number>;
  /** The operations not ended, by type (every replica's). */
  countActiveOperations(): Promise<ActiveOperations[]>;
}

/**
 * How long counted resources are served again: on PostgreSQL a count is a scan of the type's index
 * entries (on SQLite a row the store keeps), so a scrape every few seconds must not run one per type.
 */
export const RESOURCE_COUNT_TTL_MS = 30_000;

/**
 * How long the count of active operations is served again: it reads the index of active operations
 * (and each one's row), as many entries as there are operations not ended; queue depth is watched
 * over minutes, so a few seconds' delay costs nothing and a backlog is not read at every scrape.
 */
export const ACTIVE_COUNT_TTL_MS = 5_000;

/** Counts and times into series found once per label set (`series.ts`): a call makes no object. */
export function engineObserver(metrics: Metrics): EngineObserver {
  const ended = new SeriesByValues((type_name, operation, status) =>
    metrics.operations.series({ type_name, operation, status }),
  );
  const handlerCalls = new SeriesByValues((type_name, operation) =>
    metrics.handlerDuration.series({ type_name, operation }),
  );
  const errors = new SeriesByValues((type_name, error_code) =>
    metrics.providerErrors.series({ type_name, error_code }),
  );
  const takeovers = new SeriesByValues((type_name) => metrics.leaseTakeovers.series({ type_name }));
  return {
    operationEnded(typeName, operation, status) {
      ended.find(typeName, operation, status).value++;
    },
    handlerInvoked(typeName, action, seconds, errorCode) {
      metrics.handlerDuration.observe(handlerCalls.find(typeName, action), seconds);
      if (errorCode !== undefined) errors.find(typeName, errorCode).value++;
    },
    leaseTakenOver(typeName) {
      takeovers.find(typeName).value++;
    },
  };
}

/** `read`'s answer, read again once it is `ttlMs` old; scrapes at once share one read. */
function cached<T>(ttlMs: number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at >= ttlMs) {
      const value = read();
      last = { at: Date.now(), value };
      // A failed read is not served again.
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}

/** Fills the engine's gauges from `sources` whenever they are scraped. */
export function watchEngine(metrics: Metrics, sources: EngineSources): void {
  metrics.readers.slotsInUse = (gauge) => {
    gauge.reset();
    for (const [typeName, n] of sources.running()) gauge.set({ type_name: typeName }, n);
  };
  const resources = cached(RESOURCE_COUNT_TTL_MS, async () => {
    const counts = new Map<string, number>();
    for (const typeName of await sources.typeNames())
      counts.set(typeName, await sources.countResources(typeName));
    return counts;
  });
  metrics.readers.resources = async (gauge) => {
    const counts = await resources();
    // Types deregistered since leave the gauge.
    gauge.reset();
    for (const [typeName, n] of counts) gauge.set({ type_name: typeName }, n);
  };
  const active = cached(ACTIVE_COUNT_TTL_MS, () => sources.countActiveOperations());
  metrics.readers.operationsDue = async (gauge) => {
    const counts = await active();
    // A type with none left leaves the gauge (its operations may be deregistered with it).
    gauge.reset();
    for (const { typeName, due } of counts) gauge.set({ type_name: typeName }, due);
  };
  metrics.readers.operationsInProgress = async (gauge) => {
    const counts = await active();
    gauge.reset();
    for (const { typeName, inProgress } of counts) gauge.set({ type_name: typeName }, inProgress);
  };
}
