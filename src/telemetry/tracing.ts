/**
 * @module Traces: OpenTelemetry's Node SDK exporting spans over OTLP/HTTP, started when the
 * standard `OTEL_*` environment variables ask for it, and then only. Off (the default), none of the
 * SDK is loaded: the spans' code (`spans.ts`) runs against `@opentelemetry/api`'s no-op, in which no
 * span is ever active, and makes none.
 *
 * @example
 * // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 typeplane serve …
 * const tracing = await startTracing(process.env, log); // undefined when off
 * await tracing?.shutdown(); // exports what is left
 */
import { readFile } from 'node:fs/promises';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';

/** Environment variables, as `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What the environment asks for: traces exported over OTLP or not; `unsupported` names exporters asked for that Typeplane has not. */
export interface TracingChoice {
  on: boolean;
  unsupported?: string;
}

/**
 * Read as the specification says: `OTEL_SDK_DISABLED=true` turns everything off; otherwise
 * `OTEL_TRACES_EXPORTER` names the exporters (`otlp`, `none`; others are not built in), and when it
 * is unset an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `…_TRACES_ENDPOINT`) turns them on.
 * Nothing set: off, unlike the specification's default, so that a server exports nowhere unasked.
 */
export function tracingChoice(env: Environment): TracingChoice {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { on: false };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  if (exporters.length === 0)
    return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      ? { on: true }
      : { on: false };
  if (exporters.includes('none')) return { on: false };
  const others = exporters.filter((e) => e !== 'otlp');
  return {
    on: exporters.includes('otlp'),
    ...(others.length > 0 ? { unsupported: others.join(', ') } : {}),
  };
}

export interface Tracing {
  /** Exports the spans still buffered and stops: called as the server closes. */
  shutdown(): Promise<void>;
}

/** Where the SDK's own complaints go (an unreachable collector, a bad variable): the service's log. */
export interface TracingLog {
  warn(message: string): void;
}

/**
 * Starts the SDK when `env` asks for traces (see {@link tracingChoice}), registering it as the
 * API's global tracer provider, context manager (AsyncLocalStorage) and W3C trace-context
 * propagator; undefined otherwise. Spans are batched (`OTEL_BSP_*`) and sampled (`OTEL_TRACES_SAMPLER`,
 * parent-based by default: a caller's sampled flag is honoured) as the SDK reads them; the
 * exporter's endpoint, headers and timeout come from `OTEL_EXPORTER_OTLP_*`. The resource is
 * `service.name` (`OTEL_SERVICE_NAME`, default `typeplane`), `service.version` and
 * `OTEL_RESOURCE_ATTRIBUTES`.
 */
export async function startTracing(env: Environment, log: TracingLog): Promise<Tracing | undefined> {
  const choice = tracingChoice(env);
  if (choice.unsupported)
    log.warn(
      `OTEL_TRACES_EXPORTER names ${choice.unsupported}, which Typeplane has not (it exports traces over OTLP/HTTP: otlp)`,
    );
  if (!choice.on) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol !== 'http/json')
    log.warn(`traces are sent as OTLP/HTTP with JSON bodies (http/json), not ${protocol}`);
  const [sdk, { OTLPTraceExporter }, resources, { W3CTraceContextPropagator }, semconv, pkg] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
      import('@opentelemetry/semantic-conventions'),
      readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ]);
  diag.setLogger(diagnostics(log), DiagLogLevel.WARN);
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        [semconv.ATTR_SERVICE_NAME]: 'typeplane',
        [semconv.ATTR_SERVICE_VERSION]: (JSON.parse(pkg) as { version: string }).version,
      }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read last: they win.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Only the trace context crosses to providers: a caller's baggage is not passed on to them.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return {
    async shutdown() {
      await provider.shutdown();
    },
  };
}

/** The SDK's diagnostics (export failures above all) as warnings in the service's log. */
function diagnostics(log: TracingLog): DiagLogger {
  const say = (message: string, ...args: unknown[]) =>
    log.warn(
      `traces: ${[message, ...args.map((a) => (a instanceof Error ? a.message : String(a)))].join(' ')}`,
    );
  return { error: say, warn: say, info: () => {}, debug: () => {}, verbose: () => {} };
}
