/**
 * Replicas over one store: two `typeplane serve` processes share one SQLite file. A replica that
 * stalls mid-operation (here: SIGSTOP, as a long GC pause or a frozen VM would) loses its lease; the
 * other replica takes the operation over and finishes it. When the stalled one wakes up with its
 * handler's (now stale) answer, that answer must not be recorded over newer work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, tempDir } from '../helpers/service.js';
import { TS_NODE } from '../helpers/typescript.js';
import { authHeaders, fetchJson, sleep, stopServer } from './helpers.js';

const TYPE = 'Test::Faults::Slow';
const T = encodeURIComponent(TYPE);
const SLOW_MS = 2000;

async function startProvider(): Promise<{ child: ChildProcess; url: string }> {
  const script = fileURLToPath(new URL('./fixtures/misbehaving-provider.ts', import.meta.url));
  const child = spawn(process.execPath, [...TS_NODE, script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PORT: '0', SLOW_MS: String(SLOW_MS) },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`provider exited with ${code}`)));
  });
  return { child, url };
}

test(
  'a replica that lost its lease mid-update does not overwrite the update that came after',
  { timeout: 60_000 },
  async (t) => {
    const provider = await startProvider();
    const dir = tempDir('typeplane-fencing-');
    const config = join(dir, 'typeplane.config.yaml');
    writeFileSync(
      config,
      `providers:\n  - url: ${provider.url}\n    name: slow-remote\n    types: [${JSON.stringify(TYPE)}]\n`,
    );
    const env = { TYPEPLANE_ADMIN_TOKEN: randomBytes(32).toString('base64url') };
    const args = ['--config', config, '--lease', '1'];
    const dataDir = join(dir, 'data');
    const a = await spawnServer(dataDir, args, env);
    const b = await spawnServer(dataDir, args, env);
    const call = (server: typeof a, method: string, path: string, body?: unknown) =>
      fetchJson(server.url, method, path, body, authHeaders(server));
    try {
      const schema = {
        typeName: TYPE,
        description: 'A resource whose provider takes its time.',
        properties: { Name: { type: 'string' }, Note: { type: 'string' } },
        additionalProperties: false,
        required: ['Name'],
        primaryIdentifier: ['/properties/Name'],
        createOnlyProperties: ['/properties/Name'],
      };
      assert.equal((await call(a, 'POST', '/v1/types', schema)).status, 201);
      const created = await call(a, 'POST', `/v1/resources/${T}?wait=20`, {
        desiredState: { Name: 'slow-r', Note: 'v0' },
      });
      assert.equal(created.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(created.body));

      // Replica A starts update 1 and stalls while the provider works on it.
      const u1 = await call(a, 'PATCH', `/v1/resources/${T}/slow-r`, {
        patchDocument: [{ op: 'replace', path: '/Note', value: 'v1' }],
      });
      assert.equal(u1.status, 202, JSON.stringify(u1.body));
      await sleep(200);
      a.child.kill('SIGSTOP');

      // Replica B takes update 1 over once A's lease runs out and finishes it; then update 2 runs.
      const until = Date.now() + 20_000;
      let u1Event;
      do {
        await sleep(100);
        u1Event = (await call(b, 'GET', `/v1/requests/${u1.body.progressEvent.requestToken}`)).body
          .progressEvent;
      } while (u1Event.operationStatus !== 'SUCCESS' && Date.now() < until);
      assert.equal(u1Event.operationStatus, 'SUCCESS', 'replica B finished update 1');
      const u2 = await call(b, 'PATCH', `/v1/resources/${T}/slow-r?wait=20`, {
        patchDocument: [{ op: 'replace', path: '/Note', value: 'v2' }],
      });
      assert.equal(u2.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(u2.body));

      // A wakes up, with the provider's answer to its own update 1 waiting in its socket, and must
      // drop it: its step ends on the store's fence (logged), not by writing over update 2.
      a.child.kill('SIGCONT');
      const u1Token = u1.body.progressEvent.requestToken as string;
      const dropped = () =>
        a
          .logs()
          .split('\n')
          .some((line) => line.includes('operation moved on') && line.includes(u1Token));
      const wakeUntil = Date.now() + 20_000;
      while (!dropped() && Date.now() < wakeUntil) await sleep(50);
      assert.ok(dropped(), `replica A dropped its stale step of update 1:\n${a.logs()}`);
      const held = (await fetchJson(provider.url.replace(/\/$/, ''), 'GET', '/held')).body;
      const read = await call(b, 'GET', `/v1/resources/${T}/slow-r`);
      const u1After = (await call(b, 'GET', `/v1/requests/${u1.body.progressEvent.requestToken}`)).body
        .progressEvent;
      t.diagnostic(
        `provider holds Note=${held['slow-r']?.Note}; index says Note=${read.body.properties?.Note}; update 1 is ${u1After.operationStatus}`,
      );
      assert.equal(held['slow-r']?.Note, 'v2', 'the provider holds update 2');
      assert.equal(read.body.properties?.Note, 'v2', 'update 2 is not lost to the stale replica');
    } finally {
      a.child.kill('SIGCONT');
      await stopServer(a);
      await stopServer(b);
      provider.child.kill('SIGKILL');
    }
  },
);
