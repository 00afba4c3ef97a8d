/**
 * @module HTTP request metrics: one histogram, fed by the `/v1` API's `onResponse` hook and by the
 * Cloud Control front door. It keeps its series itself: prom-client's histogram hashes a request's
 * labels on every observation (a child only keeps them), ~6% of a read's instructions; here a
 * request costs a map lookup by one key string and three additions, and the registry reads the
 * series, in prom-client's shape, only when scraped.
 */
import type { Registry } from 'prom-client';

/** Records one answered request. `route` is a route template, or '' for a request no route matched. */
export type RequestRecorder = (
  method: string,
  route: string,
  status: number,
  seconds: number,
  action?: string,
) => void;

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket, not cumulative; the last is past every bound (+Inf only). */
  buckets: number[];
  sum: number;
  count: number;
}

interface Value {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** A histogram of request durations, registered as prom-client's own metrics are. */
export class RequestDurations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  readonly record: RequestRecorder = (method, route, status, seconds, action = '') => {
    const key = `${method} ${route} ${status} ${action}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        labels: {
          http_request_method: method,
          http_route: route,
          http_response_status_code: String(status),
          rpc_method: action,
        },
        buckets: new Array<number>(this.upperBounds.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      this.series.set(key, series);
    }
    // As prom-client: an observation counts in the first bucket whose bound it does not exceed.
    let i = 0;
    while (i < this.upperBounds.length && seconds > this.upperBounds[i]!) i++;
    series.buckets[i]!++;
    series.sum += seconds;
    series.count++;
  };

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Value[] }> {
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, buckets, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.upperBounds.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucket });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
