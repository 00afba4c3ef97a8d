/**
 * @module HTTP request metrics: one histogram, fed by each `/v1` route's own `onResponse` hook (its
 * recorder chosen once, as the route is registered: {@link RequestDurations.forRoute}) and by the
 * Cloud Control front door. It keeps its series itself: prom-client's histogram hashes a request's
 * labels on every observation (a child only keeps them), ~6% of a read's instructions; here a
 * route's request costs a look through that route's few series and three additions, and the registry
 * reads the series, in prom-client's shape, only when scraped.
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

/** Records one answered request of a route whose template is known already (see `forRoute`). */
export type RouteRecorder = (method: string, status: number, seconds: number) => void;

interface Series {
  /** What a route's recorder matches a request on. */
  method: string;
  status: number;
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
  /** Bumped by `reset`: the routes' recorders then forget the series they found. */
  private generation = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  readonly record: RequestRecorder = (method, route, status, seconds, action = '') => {
    this.observe(this.seriesOf(method, route, status, action), seconds);
  };

  /**
   * The recorder of `route`'s requests, made once per route: a request then costs no key string
   * (nor the hashing of one, nor the framework's route options to read the template from), only a
   * look through the few series its route has met (by method and status).
   */
  forRoute(route: string): RouteRecorder {
    let met: Series[] = [];
    let generation = this.generation;
    return (method, status, seconds) => {
      if (generation !== this.generation) {
        met = [];
        generation = this.generation;
      }
      let series: Series | undefined;
      for (let i = 0; i < met.length; i++)
        if (met[i]!.status === status && met[i]!.method === method) {
          series = met[i];
          break;
        }
      if (series === undefined) met.push((series = this.seriesOf(method, route, status, '')));
      this.observe(series, seconds);
    };
  }

  private seriesOf(method: string, route: string, status: number, action: string): Series {
    const key = `${method} ${route} ${status} ${action}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        method,
        status,
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
    return series;
  }

  private observe(series: Series, seconds: number): void {
    // As prom-client: an observation counts in the first bucket whose bound it does not exceed.
    let i = 0;
    while (i < this.upperBounds.length && seconds > this.upperBounds[i]!) i++;
    series.buckets[i]!++;
    series.sum += seconds;
    series.count++;
  }

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
    this.generation++;
  }
}
