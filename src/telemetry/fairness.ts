/**
 * @module Fairness's metrics (src/fairness), read from its figures at each scrape: seats per priority
 * level, and per flow (a token id, never a token) its queue, dispatched, queued and refused requests
 * and the time its requests waited. The request path only counts.
 */
import type { Counter } from 'prom-client';
import type { Fairness, FlowStats } from '../fairness/index.js';
import type { Metrics, Registry } from './metrics.js';

export function watchFairness(metrics: Metrics, registry: Registry, fairness: Fairness): void {
  const { readers } = metrics;
  for (const metric of [
    metrics.fairnessSeats,
    metrics.fairnessSeatsInUse,
    metrics.fairnessWaiting,
    metrics.fairnessDispatched,
    metrics.fairnessQueued,
    metrics.fairnessWaitSeconds,
    metrics.fairnessRejected,
  ])
    registry.registerMetric(metric);
  readers.fairnessSeats = (gauge) => {
    for (const level of fairness.levels()) gauge.set({ priority_level: level.level }, level.seats);
  };
  readers.fairnessSeatsInUse = (gauge) => {
    for (const level of fairness.levels()) gauge.set({ priority_level: level.level }, level.inUse);
  };
  readers.fairnessWaiting = (gauge) => {
    gauge.reset();
    for (const flow of fairness.flowStats())
      gauge.set({ priority_level: flow.level, flow: flow.flow }, flow.waiting);
  };
  // The figures only grow: each counter is set to them.
  const perFlow = (figure: (flow: FlowStats) => number) => (counter: Counter<'priority_level' | 'flow'>) => {
    counter.reset();
    for (const flow of fairness.flowStats())
      counter.inc({ priority_level: flow.level, flow: flow.flow }, figure(flow));
  };
  readers.fairnessDispatched = perFlow((flow) => flow.dispatched);
  readers.fairnessQueued = perFlow((flow) => flow.queued);
  readers.fairnessWaitSeconds = perFlow((flow) => flow.waitSeconds);
  readers.fairnessRejected = (counter) => {
    counter.reset();
    for (const flow of fairness.flowStats())
      for (const [reason, count] of Object.entries(flow.rejected))
        if (count > 0) counter.inc({ priority_level: flow.level, flow: flow.flow, reason }, count);
  };
}
