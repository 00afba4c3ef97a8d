/**
 * @module HTTP request metrics: one histogram, fed by the `/v1` API's `onResponse` hook and by the
 * Cloud Control front door. Label children are kept per (method, route, status, action): a request
 * costs a map lookup and an observation, not a hash of its labels.
 */
import type { Histogram } from 'prom-client';

type Child = ReturnType<Histogram<string>['labels']>;

/** Records one answered request. `route` is a route template, or '' for a request no route matched. */
export type RequestRecorder = (
  method: string,
  route: string,
  status: number,
  seconds: number,
  action?: string,
) => void;

export function requestRecorder(histogram: Histogram<string>): RequestRecorder {
  const children = new Map<string, Child>();
  return (method, route, status, seconds, action = '') => {
    const key = `${method} ${route} ${status} ${action}`;
    let child = children.get(key);
    if (!child) {
      child = histogram.labels({
        http_request_method: method,
        http_route: route,
        http_response_status_code: String(status),
        rpc_method: action,
      });
      children.set(key, child);
    }
    child.observe(seconds);
  };
}
