/**
 * @module The spans the service makes, through `@opentelemetry/api` alone: its global tracer is the
 * SDK's once `startTracing` registered one, and a no-op otherwise.
 *
 * A span is made only inside a trace: {@link traced} says whether a span is active, which is never
 * the case while tracing is off (the API's context is then always the empty root context). Callers
 * test it before making the closure and attributes a span needs, so that with tracing off the hot
 * path allocates nothing for traces:
 *
 * @example
 * return traced() ? inSpan('begin CREATE', { 'typeplane.type_name': t }, () => run()) : run();
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';

/** The instrumentation scope of every span Typeplane makes. */
export const TRACER_NAME = 'typeplane';

const tracer = trace.getTracer(TRACER_NAME);

/** Whether a span is active here: with tracing off, never. */
export function traced(): boolean {
  return trace.getActiveSpan() !== undefined;
}

/** The active span's context, to link to later (see {@link inGroupSpan}); undefined outside a trace. */
export function activeSpanContext(): SpanContext | undefined {
  return trace.getActiveSpan()?.spanContext();
}

/**
 * `work` in a child span of the active one, ended when `work` settles; a throw or rejection marks
 * the span as an error (with the error's `code`, never its message: messages may quote a request).
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => T,
  options: { kind?: SpanKind; links?: Link[]; parent?: Context } = {},
): T {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    {
      attributes,
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.links ? { links: options.links } : {}),
    },
    parent,
  );
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

/** Marks `span` failed with the error's stable code (or class name) as `error.type`. */
export function failed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | undefined)?.code;
  span.setAttribute(
    ATTR_ERROR_TYPE,
    typeof code === 'string' ? code : ((error as Error | undefined)?.constructor?.name ?? 'Error'),
  );
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The active span's context as a W3C `traceparent`, to be carried where the context is lost. */
export function currentTraceparent(): string | undefined {
  if (!traced()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/**
 * Whether `work` that was begun with `traceparent` (see {@link currentTraceparent}) is traced:
 * when it has one, or when a span is active (which {@link continuing} then leaves).
 */
export function continues(traceparent: unknown): boolean {
  return typeof traceparent === 'string' || traced();
}

/**
 * `work` in a span continuing the trace `traceparent` names (the request that began it), whatever
 * trace is active here: background work is claimed in whichever context happened to wake the
 * worker. Without a `traceparent` the work runs outside any trace.
 */
export function continuing<T>(
  traceparent: unknown,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (typeof traceparent !== 'string') return context.with(ROOT_CONTEXT, work);
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent });
  // An unreadable traceparent leaves no span in `parent`: the work starts a trace of its own.
  return inSpan(name, attributes, work, { parent });
}

/**
 * `work` run once for several pieces of work, each maybe in a trace of its own (a group commit):
 * its span is a child of the first piece's span and links the others', so each request's trace
 * shows the transaction that carried its writes. Untraced pieces are left out; with none, no span.
 */
export function inGroupSpan<T>(
  pieces: readonly (SpanContext | undefined)[],
  name: string,
  attributes: Attributes,
  work: () => T,
): T {
  let first: SpanContext | undefined;
  let links: Link[] | undefined;
  for (const piece of pieces) {
    if (piece === undefined) continue;
    if (first === undefined) first = piece;
    else if (piece.spanId !== first.spanId) (links ??= []).push({ context: piece });
  }
  if (first === undefined) return work();
  return inSpan(name, attributes, work, {
    parent: trace.setSpanContext(ROOT_CONTEXT, first),
    ...(links ? { links } : {}),
  });
}

/**
 * An HTTP exchange as a CLIENT span, with the W3C `traceparent` of that span added to (a copy of)
 * `headers`, so that the server it calls continues this trace. `status` reads the exchange's HTTP
 * status from its outcome, or says why there is none (recorded as `error.type`).
 */
export function inClientSpan<T>(
  method: string,
  url: URL,
  headers: Record<string, string>,
  exchange: (headers: Record<string, string>) => Promise<T>,
  status: (outcome: T) => number | string,
): Promise<T> {
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return inSpan(
    method,
    {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      // Never the URL's credentials nor its query.
      [ATTR_URL_FULL]: `${url.origin}${url.pathname}`,
      [ATTR_SERVER_ADDRESS]: url.hostname,
      [ATTR_SERVER_PORT]: port,
    },
    async () => {
      const sent = { ...headers };
      propagation.inject(context.active(), sent);
      const outcome = await exchange(sent);
      const span = trace.getActiveSpan()!;
      const code = status(outcome);
      if (typeof code === 'number') {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, code);
        if (code >= 400) span.setAttribute(ATTR_ERROR_TYPE, String(code));
      } else span.setAttribute(ATTR_ERROR_TYPE, code);
      if (typeof code !== 'number' || code >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return outcome;
    },
    { kind: SpanKind.CLIENT },
  );
}

/**
 * Fields for every log line written inside a trace (pino's `mixin`, set only while tracing is on):
 * its trace and span ids. A new object each time: pino merges the line's fields into it.
 */
export function logTraceIds(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
