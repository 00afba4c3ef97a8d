/**
 * GET /metrics over real HTTP: an admin or monitor token reads it (a monitor token nothing else), a
 * writer or reader is refused (403), a caller without a token too (401); `serve --no-metrics` serves
 * none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api, startTestService } from '../helpers/service.js';
import { scrape } from './scrape.js';

test('admin and monitor tokens read /metrics; a monitor token reads nothing else; writers, readers and no token are refused', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  const tokenOf = async (role: string) => {
    const created = await svc.call('POST', '/v1/tokens', { role });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return api(svc.url, created.body.token as string);
  };
  const monitor = await tokenOf('monitor');
  const writer = await tokenOf('writer');
  const reader = await tokenOf('reader');

  assert.ok((await scrape(svc)).families.has('http_server_request_duration_seconds_count'));
  assert.ok((await scrape(monitor)).families.has('process_cpu_seconds_total'));
  for (const path of ['/v1/types', '/v1/requests', '/v1/tokens']) {
    const refused = await monitor.call('GET', path);
    assert.equal(refused.status, 403, path);
    assert.equal(refused.body.errorCode, 'AccessDenied');
  }
  for (const other of [writer, reader]) {
    const refused = await other.call('GET', '/metrics');
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /cannot read the metrics/);
  }
  assert.equal((await api(svc.url).call('GET', '/metrics')).status, 401);
  // A monitor token reaches no type: scoping one is refused.
  const scoped = await svc.call('POST', '/v1/tokens', { role: 'monitor', types: ['AWS::*'] });
  assert.equal(scoped.status, 400);
});

test('with metrics off, /metrics is not served', async (t) => {
  const svc = await startTestService({ metrics: false });
  t.after(() => svc.close());
  assert.equal((await svc.call('GET', '/metrics')).status, 404);
});
