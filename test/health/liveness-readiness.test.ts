/**
 * /livez and /readyz over real HTTP: open to callers without a token; /readyz 503 with a reason when
 * the store's schema is not the one this Typeplane knows, when PostgreSQL cannot be reached (through
 * a TCP proxy the test cuts and restores: ready again by itself), and while a stopping server drains
 * (`--shutdown-delay`: everything else still served meanwhile).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { runCli } from '../helpers/cli.js';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { api, spawnServer, startTestService, tempDir } from '../helpers/service.js';

/** Polls `path` without a token until `accept` holds (within 15 s); the last answer. */
async function until(url: string, path: string, accept: (status: number, body: any) => boolean) {
  const anonymous = api(url);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await anonymous.call('GET', path);
    if (accept(answer.status, answer.body)) return answer;
    if (Date.now() > deadline)
      assert.fail(`${path} still answered ${answer.status} ${JSON.stringify(answer.body)} after 15 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('/livez and /readyz answer callers without a token; /readyz names each check', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  const anonymous = api(svc.url);
  const live = await anonymous.call('GET', '/livez');
  assert.equal(live.status, 200);
  assert.deepEqual(live.body, { status: 'ok' });
  assert.equal((await anonymous.call('GET', '/healthz')).status, 200);
  const ready = await anonymous.call('GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, {
    status: 'ok',
    checks: [
      { name: 'store', ok: true },
      { name: 'shutdown', ok: true },
    ],
  });
  assert.equal(ready.headers.get('cache-control'), 'no-store');
  // The rest of the API still needs a token.
  assert.equal((await anonymous.call('GET', '/v1/types')).status, 401);
});

test('a SQLite store migrated past what this Typeplane knows is not ready, and ready once it is back', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  const db = new Database(join(svc.dataDir, 'typeplane.db'));
  t.after(() => db.close());
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  const refused = await until(svc.url, '/readyz', (status) => status === 503);
  assert.equal(refused.body.status, 'unavailable');
  assert.deepEqual(refused.body.checks[0], {
    name: 'store',
    ok: false,
    reason: `the store's schema is version ${MIGRATIONS.length + 1}; this Typeplane knows ${MIGRATIONS.length}`,
  });
  // Alive all the while: a probe restarting it would not help.
  assert.equal((await api(svc.url).call('GET', '/livez')).status, 200);
  db.pragma(`user_version = ${MIGRATIONS.length}`);
  await until(svc.url, '/readyz', (status) => status === 200);
});

/** A TCP proxy to PostgreSQL that the test can cut (every connection closed, nothing accepted) and restore. */
async function proxyToPostgres(t: TestContext) {
  const target = new URL(PG_URL);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  await listen();
  t.after(() => (server?.listening ? cut() : undefined));
  const url = new URL(PG_URL);
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), cut, restore: listen };
}

test(
  'a replica whose PostgreSQL is unreachable is not ready, and becomes ready again by itself',
  { skip: pgSkip },
  async (t) => {
    const proxy = await proxyToPostgres(t);
    const svc = await startTestService({
      database: { url: proxy.url, schema: freshSchema(t, 'tp_readyz') },
    });
    t.after(() => svc.close());
    await until(svc.url, '/readyz', (status) => status === 200);
    await proxy.cut();
    const refused = await until(svc.url, '/readyz', (status) => status === 503);
    const store = refused.body.checks.find((c: { name: string }) => c.name === 'store');
    assert.equal(store.ok, false);
    assert.match(store.reason, /PostgreSQL database does not answer|did not answer within/);
    // General words only: no address of the database for an anonymous caller.
    assert.doesNotMatch(JSON.stringify(refused.body), /127\.0\.0\.1|5432|postgres:\/\//);
    assert.equal((await api(svc.url).call('GET', '/livez')).status, 200);
    await proxy.restore();
    await until(svc.url, '/readyz', (status) => status === 200);
    assert.equal((await svc.call('GET', '/v1/types')).status, 200);
  },
);

test('a stopping server says it is not ready for --shutdown-delay while it still serves, then exits', async () => {
  const server = await spawnServer(tempDir(), ['--shutdown-delay', '3']);
  const authed = api(server.url, server.token);
  assert.equal((await api(server.url).call('GET', '/readyz')).status, 200);
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const draining = await until(server.url, '/readyz', (status) => status === 503);
  assert.deepEqual(
    draining.body.checks.find((c: { name: string }) => c.name === 'shutdown'),
    { name: 'shutdown', ok: false, reason: 'the server is shutting down' },
  );
  // Everything else is still served during the delay.
  assert.equal((await authed.call('GET', '/v1/types')).status, 200);
  assert.equal((await api(server.url).call('GET', '/livez')).status, 200);
  assert.equal(await exited, 0);
});

test('--shutdown-delay takes 0 to 3600 seconds', async () => {
  const run = await runCli(['serve', '--port', '0', '--data-dir', tempDir(), '--shutdown-delay', 'soon'], {
    env: { PATH: process.env.PATH ?? '' },
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--shutdown-delay must be a number of seconds/);
});
