/**
 * @module The watches' metrics (src/watch), read from their counts at each scrape: watches open,
 * events and bytes sent, watches ended by reason. The watch path only counts.
 */
import type { Counter } from 'prom-client';
import type { WatchCounts } from '../watch/index.js';
import type { Metrics, Registry } from './metrics.js';

/** What the metrics read of a server's watches. */
export interface WatchSource {
  readonly open: number;
  readonly counts: WatchCounts;
}

export function watchWatches(metrics: Metrics, registry: Registry, watches: WatchSource): void {
  const { readers } = metrics;
  for (const metric of [metrics.watchesOpen, metrics.watchEvents, metrics.watchBytes, metrics.watchesEnded])
    registry.registerMetric(metric);
  readers.watchesOpen = (gauge) => gauge.set(watches.open);
  // The counts only grow: each counter is set to them.
  const figure = (read: () => number) => (counter: Counter) => {
    counter.reset();
    counter.inc(read());
  };
  readers.watchEvents = figure(() => watches.counts.events);
  readers.watchBytes = figure(() => watches.counts.bytes);
  readers.watchesEnded = (counter) => {
    counter.reset();
    for (const [reason, count] of Object.entries(watches.counts.ended)) counter.inc({ reason }, count);
  };
}
