/**
 * Fairness over real HTTP (a server process, a saturating tenant in a process of its own): a writer
 * token running 32 clients creating as fast as they can beside a quiet writer token creating one
 * resource every 20 ms, each scoped to its own type. The quiet token's requests all succeed and stay
 * fast (a generous bound: `npm run bench:fairness` measures it precisely); the noisy one, over its
 * share (4 seats, 8 waiting at most here), is answered 429 Throttling with Retry-After; the metrics
 * count its refusals under its token's id, never the token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { api, spawnServer, tempDir } from '../helpers/service.js';
import { widgetSchema } from '../helpers/widget-schema.js';

const NOISY = 'Fairness::Noisy::Widget';
const QUIET = 'Fairness::Quiet::Widget';
const LOAD = fileURLToPath(new URL('../helpers/noisy-load.mjs', import.meta.url));

function runLoad(url: string, token: string, path: string, clients: number, seconds: number) {
  const child = spawn(process.execPath, [LOAD, url, token, path, String(clients), String(seconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise<{ statuses: Record<string, number>; retryAfter: string[]; throttled?: string }>(
    (resolve, reject) =>
      // 'close', not 'exit': the figures may still be unread when the child exits.
      child.once('close', (code) =>
        code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}: ${out}`)),
      ),
  );
}

test('a noisy token over its share gets 429 with Retry-After while a quiet token keeps its pace', async (t) => {
  const server = await spawnServer(tempDir(), ['--fairness-seats', '4', '--fairness-queue-length', '8']);
  try {
    const admin = api(server.url, server.token);
    for (const typeName of [NOISY, QUIET])
      assert.equal((await admin.call('POST', '/v1/types', widgetSchema(typeName))).status, 201);
    const tokenFor = async (typeName: string) => {
      const created = await admin.call('POST', '/v1/tokens', { role: 'writer', types: [typeName] });
      assert.equal(created.status, 201);
      return created.body as { token: string; id: string };
    };
    const noisy = await tokenFor(NOISY);
    const quiet = api(server.url, (await tokenFor(QUIET)).token);
    const load = runLoad(server.url, noisy.token, `/v1/resources/${NOISY}`, 32, 4);
    // The noisy tenant is at full pace before the quiet one starts measuring.
    await new Promise((r) => setTimeout(r, 1000));
    const latencies: number[] = [];
    const failures: string[] = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      const answer = await quiet.call('POST', `/v1/resources/${QUIET}`, { desiredState: { Name: `q${i}` } });
      latencies.push(performance.now() - started);
      if (answer.status !== 202) failures.push(`${answer.status} ${JSON.stringify(answer.body)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const result = await load;
    assert.deepEqual(failures, [], 'every quiet request succeeds');
    latencies.sort((a, b) => a - b);
    const p99 = latencies[98]!;
    t.diagnostic(
      `quiet p50 ${latencies[50]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; noisy ${JSON.stringify(result.statuses)}`,
    );
    // Generous: a busy shared machine; without fairness the quiet tenant waits behind all 32 clients.
    assert.ok(p99 < 1000, `quiet p99 ${p99.toFixed(1)} ms (p50 ${latencies[50]!.toFixed(1)} ms)`);
    assert.ok(
      (result.statuses['202'] ?? 0) > 100,
      `the noisy tenant is served too: ${JSON.stringify(result)}`,
    );
    assert.ok((result.statuses['429'] ?? 0) > 0, `the noisy tenant is throttled: ${JSON.stringify(result)}`);
    assert.deepEqual(result.retryAfter, ['1']);
    const throttled = JSON.parse(result.throttled!) as { errorCode: string; message: string };
    assert.equal(throttled.errorCode, 'Throttling');
    assert.match(throttled.message, /requests waiting/);
    const metrics = await admin.call('GET', '/metrics');
    const text = String(metrics.body);
    assert.match(
      text,
      new RegExp(
        `typeplane_fairness_rejected_requests_total\\{priority_level="workload",flow="${noisy.id}",reason="queue-full"\\} [1-9]`,
      ),
    );
    assert.ok(!text.includes(noisy.token), 'the metrics never name a token');
    // Probes are exempt: answered even while the workload level is full.
    assert.equal((await api(server.url).call('GET', '/healthz')).status, 200);
  } finally {
    server.child.kill('SIGKILL');
  }
});
