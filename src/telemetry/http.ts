/**
 * @module HTTP request metrics: one histogram, fed by each `/v1` route's own `onResponse` hook (its
 * recorder chosen once, as the route is registered: {@link RequestDurations.forRoute}) and by the
 * Cloud Control front door. Its series are kept as `series.ts` keeps them: prom-client's histogram
 * hashes a request's labels on every observation, ~6% of a read's instructions; here a route's
 * request costs a look through that route's few series and three additions, and the registry reads
 * the series, in prom-client's shape, only when scraped.
 */
import type { Registry } from 'prom-client';
import { OwnHistogram, type HistogramSeries } from './series.js';

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

/** A series a route's recorder met, with what it matches a request on. */
interface Met {
  method: string;
  status: number;
  series: HistogramSeries;
}

/** A histogram of request durations, registered as prom-client's own metrics are. */
export class RequestDurations extends OwnHistogram {
  constructor(name: string, help: string, upperBounds: readonly number[], registry: Registry) {
    super(
      name,
      help,
      ['http_request_method', 'http_route', 'http_response_status_code', 'rpc_method'],
      upperBounds,
      [registry],
    );
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
    let met: Met[] = [];
    return (method, status, seconds) => {
      let series: HistogramSeries | undefined;
      for (let i = 0; i < met.length; i++)
        if (met[i]!.status === status && met[i]!.method === method) {
          series = met[i]!.series;
          break;
        }
      if (series === undefined || !series.live) {
        // Reset since: every series met is gone.
        if (series !== undefined) met = [];
        series = this.seriesOf(method, route, status, '');
        met.push({ method, status, series });
      }
      this.observe(series, seconds);
    };
  }

  private seriesOf(method: string, route: string, status: number, action: string): HistogramSeries {
    return this.series({
      http_request_method: method,
      http_route: route,
      http_response_status_code: String(status),
      rpc_method: action,
    });
  }
}
