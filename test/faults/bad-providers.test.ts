/**
 * Provider faults, end to end through a real server: providers that hang (in process and over HTTP),
 * crash (the provider process exits mid-request, the connection is reset) or answer garbage (not
 * JSON, not a ProgressEvent, too large, a slow drip that never ends). Each operation must fail with
 * its documented code within the type's timeout, while a healthy type served by the state provider
 * keeps answering creates and reads without waiting on them.
 *
 * The codes (the remote client's mapping is unit-tested in test/providers/remote-protocol.test.ts;
 * here they are checked through the engine, a real HTTP server and a provider process):
 *   in-process handler that never settles   → NotStabilized, at the type's timeout
 *   remote provider that never answers      → HandlerInternalFailure, at the client's timeoutMs
 *                                             (a create is not sent again: it may have been delivered)
 *   remote answer dripping forever          → HandlerInternalFailure, at the client's timeoutMs
 *   connection reset / provider process died mid-request → NetworkFailure
 *   provider process down (nothing listening)           → NetworkFailure, after the client's retries
 *   not JSON, not a ProgressEvent, too large            → HandlerInternalFailure
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createRemoteProvider } from '../../src/providers/remote/index.js';
import type { Provider } from '../../src/handler/types.js';
import { WIDGET, WIDGET_TYPE, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { TS_NODE } from '../helpers/typescript.js';
import { authHeaders, fetchJson, quantile, sleep } from './helpers.js';

/** A "minute" of handler timeouts: the default 120 minutes become 1.8 s. */
const MINUTE_MS = 15;
const TYPE_TIMEOUT_MS = 120 * MINUTE_MS;
/** The remote client's per-call timeout. */
const REMOTE_TIMEOUT_MS = 800;
/** Slack for a terminal status to be recorded and seen by polling, on a busy 2-core machine. */
const SLACK_MS = 1500;

const HANG = 'Test::Faults::Hang';
const REMOTE = 'Test::Faults::Remote';

const thing = (typeName: string) =>
  JSON.stringify({
    typeName,
    description: 'A resource whose provider misbehaves.',
    properties: { Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,40}$' }, Note: { type: 'string' } },
    additionalProperties: false,
    required: ['Name'],
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  });

const children = new Set<ChildProcess>();
const services: TestService[] = [];
after(async () => {
  await Promise.all(services.map((s) => s.close(100)));
  for (const child of children) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The misbehaving provider in its own process, on `port`. */
async function startProviderProcess(port: number): Promise<ChildProcess> {
  const script = fileURLToPath(new URL('./fixtures/misbehaving-provider.ts', import.meta.url));
  const child = spawn(process.execPath, [...TS_NODE, script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PORT: String(port) },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`provider process exited with ${code}`)));
  });
  return child;
}

interface Setup {
  svc: TestService;
  port: number;
  provider: ChildProcess;
  /** Create one resource and follow it to its end: the final event and how long that took. */
  create(type: string, name: string): Promise<{ event: any; ms: number }>;
}

async function setup(): Promise<Setup> {
  const port = await freePort();
  const provider = await startProviderProcess(port);
  const remote = createRemoteProvider({
    name: 'misbehaving',
    url: `http://127.0.0.1:${port}/`,
    types: [REMOTE],
    timeoutMs: REMOTE_TIMEOUT_MS,
    retries: 2,
    retryDelayMs: 50,
  });
  const hanging = memoryProvider({ create: () => new Promise(() => undefined) }, 'hanging');
  const svc = await startTestService({
    minuteMs: MINUTE_MS,
    providers: new Map<string, Provider>([
      [HANG, hanging],
      [REMOTE, remote],
    ]),
  });
  services.push(svc);
  for (const doc of [WIDGET, thing(HANG), thing(REMOTE)]) {
    const res = await svc.call('POST', '/v1/types', doc, authHeaders(svc));
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  const create = async (type: string, name: string) => {
    const started = performance.now();
    const res = await fetchJson(
      svc.url,
      'POST',
      `/v1/resources/${encodeURIComponent(type)}?wait=10`,
      { desiredState: { Name: name } },
      authHeaders(svc),
    );
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return { event: res.body.progressEvent, ms: performance.now() - started };
  };
  return { svc, port, provider, create };
}

/** Creates and reads of the healthy type in a loop until stopped; their latencies. */
function healthyTraffic(s: Setup) {
  const latencies: number[] = [];
  const failures: string[] = [];
  let stop = false;
  const loop = (async () => {
    for (let i = 0; !stop; i++) {
      const { event, ms } = await s.create(WIDGET_TYPE, `h${i}`);
      latencies.push(ms);
      if (event.operationStatus !== 'SUCCESS') failures.push(`create h${i}: ${JSON.stringify(event)}`);
      const t = performance.now();
      const read = await fetchJson(
        s.svc.url,
        'GET',
        `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}/h${i}`,
        undefined,
        authHeaders(s.svc),
      );
      latencies.push(performance.now() - t);
      if (read.status !== 200) failures.push(`read h${i}: ${read.status}`);
      await sleep(5);
    }
  })();
  return {
    async stop() {
      stop = true;
      await loop;
      latencies.sort((a, b) => a - b);
      return { latencies, failures };
    },
  };
}

test(
  'hanging, crashing and garbage-answering providers fail with their codes in time; a healthy type keeps answering',
  { timeout: 60_000 },
  async (t) => {
    const s = await setup();
    const healthy = healthyTraffic(s);
    await sleep(100);

    const cases: { type: string; name: string; code: string; within: number }[] = [
      { type: HANG, name: 'hang-in-process', code: 'NotStabilized', within: TYPE_TIMEOUT_MS },
      { type: REMOTE, name: 'hang-remote', code: 'HandlerInternalFailure', within: REMOTE_TIMEOUT_MS },
      { type: REMOTE, name: 'drip-remote', code: 'HandlerInternalFailure', within: REMOTE_TIMEOUT_MS },
      { type: REMOTE, name: 'reset-remote', code: 'NetworkFailure', within: 0 },
      { type: REMOTE, name: 'garbage-remote', code: 'HandlerInternalFailure', within: 0 },
      { type: REMOTE, name: 'shape-remote', code: 'HandlerInternalFailure', within: 0 },
      { type: REMOTE, name: 'huge-remote', code: 'HandlerInternalFailure', within: 0 },
    ];
    // All at once, several of each, while the healthy traffic runs.
    const results = await Promise.all(
      cases.flatMap((c) =>
        [1, 2, 3].map(async (n) => ({ c, n, ...(await s.create(c.type, `${c.name}-${n}`)) })),
      ),
    );
    const wrong = results
      .filter(
        ({ c, event, ms }) =>
          event.operationStatus !== 'FAILED' || event.errorCode !== c.code || ms > c.within + SLACK_MS,
      )
      .map(
        ({ c, n, event, ms }) =>
          `${c.name}-${n}: ${event.operationStatus} ${event.errorCode} after ${Math.round(ms)} ms (${event.statusMessage})`,
      );
    assert.deepEqual(wrong, [], 'each fails with its code within its time');
    for (const { c, event } of results) {
      // The message names the provider, so an operator knows where to look.
      if (c.type === REMOTE) assert.match(event.statusMessage, /misbehaving/);
      const read = await fetchJson(
        s.svc.url,
        'GET',
        `/v1/resources/${encodeURIComponent(c.type)}/${event.identifier}`,
        undefined,
        authHeaders(s.svc),
      );
      assert.equal(read.status, 404, `a failed create leaves no resource: ${event.identifier}`);
    }
    t.diagnostic(
      results
        .filter((r) => r.n === 1)
        .map((r) => `${r.c.name}: ${r.event.errorCode} in ${Math.round(r.ms)} ms`)
        .join('; '),
    );

    const { latencies, failures } = await healthy.stop();
    assert.deepEqual(failures, []);
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    const max = latencies[latencies.length - 1]!;
    t.diagnostic(
      `healthy type meanwhile: ${latencies.length} calls, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
    assert.ok(latencies.length >= 20, 'the healthy type kept being called');
    // Below the shortest timeout above (what a call held up by a broken provider would wait at least).
    assert.ok(max < REMOTE_TIMEOUT_MS, `healthy calls were held up: max ${max.toFixed(1)} ms`);
  },
);

test(
  'a provider process that dies mid-request: NetworkFailure, then NetworkFailure while it is down, then it works again after a restart',
  { timeout: 60_000 },
  async (t) => {
    const s = await setup();
    const healthy = healthyTraffic(s);
    const exited = new Promise((resolve) => s.provider.once('exit', resolve));
    const died = await s.create(REMOTE, 'exit-mid-request');
    assert.equal(await exited, 3, 'the provider process exited');
    assert.equal(died.event.operationStatus, 'FAILED');
    assert.equal(died.event.errorCode, 'NetworkFailure', died.event.statusMessage);
    assert.match(
      died.event.statusMessage,
      /not sent again/,
      'a create that may have been delivered is not repeated',
    );

    const down = await s.create(REMOTE, 'ok-while-down');
    assert.equal(down.event.errorCode, 'NetworkFailure', down.event.statusMessage);
    assert.match(down.event.statusMessage, /could not be reached.*after 3 attempts/);
    assert.ok(down.ms < TYPE_TIMEOUT_MS + SLACK_MS, `${down.ms} ms`);

    await startProviderProcess(s.port);
    const back = await s.create(REMOTE, 'ok-after-restart');
    assert.equal(back.event.operationStatus, 'SUCCESS', JSON.stringify(back.event));
    const read = await fetchJson(
      s.svc.url,
      'GET',
      `/v1/resources/${encodeURIComponent(REMOTE)}/ok-after-restart`,
      undefined,
      authHeaders(s.svc),
    );
    assert.equal(read.status, 200);

    const { latencies, failures } = await healthy.stop();
    assert.deepEqual(failures, []);
    const max = latencies[latencies.length - 1]!;
    t.diagnostic(
      `healthy type meanwhile: ${latencies.length} calls, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
    assert.ok(max < REMOTE_TIMEOUT_MS, `healthy calls were held up: max ${max.toFixed(1)} ms`);
  },
);

/**
 * More hung operations than the engine runs at once (64 handler invocations per process): the
 * queued ones wait for a slot, but a type served by the state provider needs none (its operations
 * complete in one transaction), so it keeps answering at once.
 */
test(
  'more hung operations than the engine runs at once do not hold up a healthy type',
  { timeout: 60_000 },
  async (t) => {
    const s = await setup();
    // The engine runs at most 64 handler invocations at once per process; fill every slot and more.
    const hung = Array.from({ length: 100 }, (_, i) => s.create(HANG, `hang-many-${i}`));
    await sleep(200);
    const healthy = healthyTraffic(s);
    await sleep(1000);
    const { latencies, failures } = await healthy.stop();
    const outcomes = await Promise.all(hung);
    const late = outcomes.filter(
      (o) => o.event.errorCode !== 'NotStabilized' || o.ms > TYPE_TIMEOUT_MS * 2 + SLACK_MS,
    );
    assert.deepEqual(
      late.map(
        (o) =>
          `${o.event.identifier}: ${o.event.operationStatus} ${o.event.errorCode ?? ''} after ${Math.round(o.ms)} ms`,
      ),
      [],
      'every hung create ends NotStabilized, the ones queued behind the first 64 included',
    );
    assert.deepEqual(failures, []);
    const max = latencies[latencies.length - 1]!;
    t.diagnostic(
      `healthy type while 100 creates hung: ${latencies.length} calls, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
    assert.ok(
      max < TYPE_TIMEOUT_MS / 2,
      `healthy calls waited for hung ones to time out: max ${max.toFixed(1)} ms`,
    );
  },
);
