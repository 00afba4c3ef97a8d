/**
 * @module The HTTP server's spans: one SERVER span per request, continuing the caller's trace when
 * it sends a W3C `traceparent`, for the `/v1` API and the Cloud Control front door alike. Named by
 * method and route template once the route is known (never by the URL, whose identifiers would
 * make a name each); a Cloud Control call also carries its action as `rpc.method`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { TRACER_NAME } from './spans.js';

const tracer = trace.getTracer(TRACER_NAME);

/** The front door's protocol: AWS JSON 1.0, its action named by `X-Amz-Target`. */
const CLOUD_CONTROL_TARGET = /^CloudApiService\.([A-Za-z]{1,64})$/;

/** Runs `serve` (the server's dispatch of one request) inside a SERVER span of that request. */
export function serveInSpan(request: IncomingMessage, response: ServerResponse, serve: () => void): void {
  const method = request.method ?? 'GET';
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const target = request.headers['x-amz-target'];
  const action = typeof target === 'string' ? CLOUD_CONTROL_TARGET.exec(target)?.[1] : undefined;
  const path = (request.url ?? '/').split('?', 1)[0]!;
  const span = tracer.startSpan(
    action ? `${method} /` : method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_PATH]: path,
        [ATTR_URL_SCHEME]: 'encrypted' in request.socket ? 'https' : 'http',
        [ATTR_NETWORK_PROTOCOL_VERSION]: request.httpVersion,
        ...(request.socket.remoteAddress ? { [ATTR_CLIENT_ADDRESS]: request.socket.remoteAddress } : {}),
        ...(typeof request.headers['user-agent'] === 'string'
          ? { [ATTR_USER_AGENT_ORIGINAL]: request.headers['user-agent'] }
          : {}),
        // rpc.* are the semantic conventions' (still incubating) names for an RPC's service and method.
        ...(action
          ? {
              [ATTR_HTTP_ROUTE]: '/',
              'rpc.system': 'aws-api',
              'rpc.service': 'CloudApiService',
              'rpc.method': action,
            }
          : {}),
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  // The body's chunks and the answer's events are emitted from the socket's context: bound, so the
  // handlers that run on them (after the body is read) are inside the request's span.
  context.bind(active, request);
  context.bind(active, response);
  response.once('close', () => {
    const status = response.statusCode;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (status >= 500 || !response.writableFinished) {
      span.setAttribute(ATTR_ERROR_TYPE, response.writableFinished ? String(status) : 'aborted');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  context.with(active, serve);
}

/** Names the active request span by its route template, once the router found it. */
export function nameRoute(method: string, route: string | undefined): void {
  if (route === undefined) return;
  const span = trace.getActiveSpan();
  if (span === undefined) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute(ATTR_HTTP_ROUTE, route);
}
