/**
 * @module The stacks' metrics: a {@link StacksObserver} counting and timing ended deployments by the
 * stack's final status, and counting drift checks and the resources they compared by result. Label
 * values are the fixed stack and drift statuses only, never a stack's name.
 */
import type { StacksObserver } from '../stacks/index.js';
import type { Metrics } from './metrics.js';

export function stacksObserver(metrics: Metrics): StacksObserver {
  return {
    deploymentEnded(status, seconds) {
      metrics.deployments.inc({ status });
      metrics.deploymentDuration.observe({ status }, Math.max(0, seconds));
    },
    driftChecked(status, resources) {
      metrics.driftChecks.inc({ status });
      for (const result of resources) metrics.driftResources.inc({ status: result });
    },
  };
}
