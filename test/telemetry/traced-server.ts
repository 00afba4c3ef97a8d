/**
 * Traces in tests: a real OTLP/HTTP receiver (a node:http server taking POST /v1/traces, JSON bodies)
 * that keeps every span a server exports, an HTTP provider (the remote protocol) that notes the
 * traceparent of each call, and a `typeplane serve` in a child process exporting to the one and
 * calling the other. The spans are checked as a tree (see {@link tree}).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { generateToken } from '../../src/auth/index.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

export const TYPE = 'Test::Trace::Thing';
const THING = JSON.stringify({
  typeName: TYPE,
  description: 'A thing its HTTP provider keeps nowhere.',
  properties: { Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' }, Size: { type: 'string' } },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  handlers: { create: { permissions: [] }, read: { permissions: [] }, delete: { permissions: [] } },
});

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  links?: { traceId: string; spanId: string }[];
}

/** A real OTLP/HTTP receiver: every span of every POST /v1/traces, as the exporter sent it (JSON). */
export async function receiver(): Promise<{
  url: string;
  spans: OtlpSpan[];
  posts: () => number;
  server: Server;
}> {
  const spans: OtlpSpan[] = [];
  let posts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts++;
      assert.equal(req.method, 'POST');
      assert.equal(req.url, '/v1/traces');
      assert.match(String(req.headers['content-type']), /^application\/json/);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: OtlpSpan['attributes'] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        assert.equal(
          attribute({ attributes: rs.resource.attributes } as OtlpSpan, 'service.name'),
          'typeplane',
        );
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, posts: () => posts, server };
}

/** What the provider answers a call, when not the default (see {@link provider}); undefined: the default. */
export type Answer = (action: string, name: unknown) => Record<string, unknown> | undefined;

/**
 * An HTTP provider (the remote protocol) that notes the traceparent of each call and, unless `answer`
 * says otherwise, makes whatever it is asked to (SUCCESS with the model asked for) and deletes anything.
 */
export async function provider(answer: Answer = () => undefined): Promise<{
  url: string;
  calls: { action: string; headers: IncomingHttpHeaders }[];
  server: Server;
}> {
  const calls: { action: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        action: string;
        requestData: { resourceProperties: Record<string, unknown> };
      };
      calls.push({ action: m.action, headers: req.headers });
      const event =
        answer(m.action, m.requestData.resourceProperties?.Name) ??
        (m.action === 'CREATE' || m.action === 'READ'
          ? { status: 'SUCCESS', resourceModel: m.requestData.resourceProperties }
          : { status: 'SUCCESS' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(event));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, calls, server };
}

export function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  return value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
}

export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A caller's W3C traceparent, sampled, in a new trace: its trace id and the header. */
export function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** A config file: things made by `providerUrl`. */
export function thingConfig(providerUrl: string): string {
  const dir = tempDir();
  const typeFile = join(dir, 'thing.json');
  writeFileSync(typeFile, THING);
  const config = join(dir, 'typeplane.config.yaml');
  writeFileSync(
    config,
    `types: [${JSON.stringify(typeFile)}]\nproviders:\n  - url: ${JSON.stringify(providerUrl)}\n    types: [${JSON.stringify(TYPE)}]\n`,
  );
  return config;
}

/** The environment that sends a server's spans to `otlp`, at once (not after the default 5 s). */
export function exportingTo(otlp: { url: string }): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50' };
}

/**
 * A receiver, an HTTP provider (answering as `answer` says) and a server exporting to the one and
 * calling the other, with `env` and `args` added; `start` starts another on the same data, with the
 * same admin token.
 */
export async function setUp(
  t: TestContext,
  env: Record<string, string>,
  options: { answer?: Answer; args?: string[] } = {},
) {
  const otlp = await receiver();
  const remote = await provider(options.answer);
  t.after(() => {
    otlp.server.close();
    remote.server.close();
  });
  const config = thingConfig(remote.url);
  const dataDir = join(tempDir(), 'data');
  const token = generateToken();
  const start = () =>
    spawnServer(dataDir, ['--config', config, '--log-level', 'info', ...(options.args ?? [])], {
      ...exportingTo(otlp),
      TYPEPLANE_ADMIN_TOKEN: token,
      ...env,
    });
  const server = await start();
  return { otlp, remote, server, client: api(server.url, server.token), start };
}

/** Stops the server the way an operator does, so that it exports what it still holds. */
export async function stop(child: import('node:child_process').ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** The spans as a tree: a span's parent and children, by span id. */
export function tree(spans: readonly OtlpSpan[]) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return {
    parentOf: (s: OtlpSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined),
    childrenOf: (s: OtlpSpan) => spans.filter((c) => c.parentSpanId === s.spanId),
  };
}

/** The names of `spans`, for an assertion's message. */
export function names(spans: readonly OtlpSpan[]): string {
  return JSON.stringify(spans.map((s) => s.name));
}

/**
 * A create at `path` under a caller's trace, answered SUCCESS at once; then the server stopped (so
 * that it exports what it holds) and the trace's spans as a tree, from the span that continues the
 * caller's.
 */
export async function tracedCreate(
  setup: {
    otlp: { spans: OtlpSpan[] };
    server: { child: import('node:child_process').ChildProcess };
    client: ReturnType<typeof api>;
  },
  path: string,
  desiredState: Record<string, unknown>,
) {
  const caller = callerTrace();
  const created = await setup.client.call(
    'POST',
    path,
    { desiredState },
    { traceparent: caller.traceparent },
  );
  assert.equal(created.status, 202, JSON.stringify(created.body));
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  await stop(setup.server.child);
  const spans = setup.otlp.spans.filter((s) => s.traceId === caller.traceId);
  const { childrenOf } = tree(spans);
  const root = spans.find((s) => s.parentSpanId === caller.spanId);
  assert.ok(root, `no span continues the caller's: ${names(spans)}`);
  return { spans, childrenOf, root };
}
