/**
 * @module The store's metrics: a {@link StoreObserver} timing write transactions, and at scrape time
 * what the store reports of itself — SQLite's write-ahead log size and checkpoints, PostgreSQL's
 * connection pool — registered only for the store that reports them.
 */
import type { StoreObserver, StoreStats } from '../store/index.js';
import type { Metrics, Registry } from './metrics.js';

export function storeObserver(metrics: Metrics): StoreObserver {
  const durations = metrics.transactionDuration;
  // Its one series, kept (asked for again once the metric is reset).
  let series = durations.series({});
  return {
    transactionEnded(seconds) {
      if (!series.live) series = durations.series({});
      durations.observe(series, seconds);
    },
  };
}

/** Registers the metrics of what `stats` reports (read once to see which), read at each scrape. */
export function watchStore(metrics: Metrics, registry: Registry, stats: () => StoreStats): void {
  const { walBytes, checkpoints, pool } = stats();
  if (walBytes !== undefined) {
    registry.registerMetric(metrics.walBytes);
    metrics.readers.walBytes = (gauge) => gauge.set(stats().walBytes ?? 0);
  }
  if (checkpoints !== undefined) {
    registry.registerMetric(metrics.checkpoints);
    // The checkpointer's own count, which only grows: the counter is set to it.
    metrics.readers.checkpoints = (counter) => {
      counter.reset();
      counter.inc(stats().checkpoints ?? 0);
    };
  }
  if (pool !== undefined) {
    registry.registerMetric(metrics.poolConnections);
    registry.registerMetric(metrics.poolWaiting);
    metrics.readers.poolConnections = (gauge) => {
      const now = stats().pool;
      gauge.set({ state: 'idle' }, now?.idle ?? 0);
      gauge.set({ state: 'used' }, (now?.total ?? 0) - (now?.idle ?? 0));
    };
    metrics.readers.poolWaiting = (gauge) => gauge.set(stats().pool?.waiting ?? 0);
  }
}
