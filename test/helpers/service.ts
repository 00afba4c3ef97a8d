/**
 * A real Typeplane server for tests: real SQLite file in a fresh temp folder, real HTTP on loopback.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { after } from 'node:test';
import { pino } from 'pino';
import { generateToken } from '../../src/auth/index.js';
import { exchange } from '../../src/cli/exchange.js';
import { startService, type Service, type ServiceOptions } from '../../src/service.js';
import { CLI } from './cli.js';
import { listeningUrl } from './listening.js';

/** An answer's headers, read as from fetch's `Headers` (only `get` is needed). */
export interface AnswerHeaders {
  get(name: string): string | null;
}

export interface Api {
  url: string;
  /** The token `call` sends as `Authorization: Bearer`, if any. */
  token?: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: AnswerHeaders }>;
}

/**
 * A caller of the API at `url`; with `token`, every call sends it (a `headers` entry overrides it).
 * Over node:http (kept-alive connections), not fetch: loading fetch costs each test process about a
 * quarter of a second of CPU.
 */
export function api(url: string, token?: string): Api {
  return {
    url,
    ...(token !== undefined ? { token } : {}),
    async call(method, path, body, extraHeaders = {}) {
      const headers: Record<string, string> =
        token !== undefined ? { authorization: `Bearer ${token}`, ...extraHeaders } : { ...extraHeaders };
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      if (payload !== undefined) headers['content-type'] ??= 'application/json';
      const answer = await exchange(method, new URL(url + path), headers, payload);
      let parsed: unknown = answer.text;
      try {
        parsed = answer.text === '' ? undefined : JSON.parse(answer.text);
      } catch {
        /* not JSON: keep the text */
      }
      const get = (name: string): string | null => {
        const value = answer.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      };
      return { status: answer.status, body: parsed, headers: { get } };
    },
  };
}

export function tempDir(prefix = 'typeplane-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export type TestService = Service &
  Api & { dataDir: string; /** The admin token `call` sends. */ token: string };

export async function startTestService(options: Partial<ServiceOptions> = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDir();
  const token = options.adminToken ?? generateToken();
  const service = await startService({
    dataDir,
    port: 0,
    logger: pino({ level: 'silent' }),
    pollIntervalMs: 100,
    ...options,
    adminToken: token,
  });
  return Object.assign(service, api(service.url, token), { dataDir, token });
}

/**
 * `typeplane serve` in a child process; resolves once it prints its listening line. Env
 * `TYPEPLANE_ADMIN_TOKEN` is a fresh random admin token unless `env` sets it (to '' for none: then
 * the first start prints one, and `token` is that one or undefined); `stdout()` is what it printed.
 */
/** Servers spawned by this file that have not exited. */
const spawned = new Set<ChildProcess>();
// Under the test runner, a server a failed test left running is stopped once the file's tests end:
// its open pipes would otherwise keep the file's process, and `npm test`, waiting for ever.
if (process.env.NODE_TEST_CONTEXT)
  after(() => {
    for (const child of spawned) child.kill('SIGKILL');
  });

export async function spawnServer(
  dataDir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; token: string; logs: () => string; stdout: () => string }> {
  const adminToken = env.TYPEPLANE_ADMIN_TOKEN ?? generateToken();
  const child = spawn(
    process.execPath,
    [...CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, TYPEPLANE_ADMIN_TOKEN: adminToken },
    },
  );
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  let logs = '';
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (logs += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  // Generous: a loaded shared machine can take many seconds to start a process under tsx. One that
  // does not start is stopped, so it cannot outlive the test.
  const url = await listeningUrl(child, 'server', () => logs, 60_000).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  const printed = /^admin token: (\S+)$/m.exec(out)?.[1];
  return { child, url, token: adminToken || printed || '', logs: () => logs, stdout: () => out };
}

/** Poll a request until terminal. */
export async function settle(client: Api, requestToken: string, timeoutMs = 10_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await client.call('GET', `/v1/requests/${requestToken}`);
    const status = body?.progressEvent?.operationStatus;
    if (status === 'SUCCESS' || status === 'FAILED' || status === 'CANCEL_COMPLETE')
      return body.progressEvent;
    if (Date.now() > until) throw new Error(`request ${requestToken} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A small resource schema for tests: Name identifies it (create-only), Size has a default, Secret is write-only. */
export const WIDGET = JSON.stringify(
  {
    typeName: 'Test::Shop::Widget',
    description: 'A widget for tests.',
    properties: {
      Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' },
      Size: { type: 'string', enum: ['S', 'M', 'L'], default: 'S' },
      Color: { type: 'string' },
      Count: { type: 'integer', minimum: 0 },
      Secret: { type: 'string' },
      Labels: { type: 'array', items: { type: 'string' } },
      Id: { type: 'string' },
    },
    additionalProperties: false,
    required: ['Name'],
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    readOnlyProperties: ['/properties/Id'],
    writeOnlyProperties: ['/properties/Secret'],
  },
  null,
  2,
);

export const WIDGET_TYPE = 'Test::Shop::Widget';
