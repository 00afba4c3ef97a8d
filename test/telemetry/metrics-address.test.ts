/**
 * `serve --metrics-address`: a listener of its own, over real HTTP, that answers GET /metrics without
 * a token and nothing else, while the API's /metrics still wants one; a bare port binds loopback.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMetricsAddress } from '../../src/cli/metrics-address.js';
import { api, startTestService } from '../helpers/service.js';
import { scrape, total } from './scrape.js';

test('the metrics listener serves GET /metrics without a token, and nothing else', async (t) => {
  const svc = await startTestService({ metricsAddress: { host: '127.0.0.1', port: 0 } });
  t.after(() => svc.close());
  assert.match(svc.metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.notEqual(svc.metricsUrl, svc.url);
  await svc.call('GET', '/v1/types');
  const open = api(svc.metricsUrl!);
  const s = await scrape(open);
  assert.ok(total(s, 'http_server_request_duration_seconds_count', { http_route: '/v1/types' }) >= 1);
  assert.ok(s.families.has('typeplane_store_transaction_duration_seconds_count'));
  for (const path of ['/v1/types', '/healthz', '/', '/metricsx'])
    assert.equal((await open.call('GET', path)).status, 404, path);
  assert.equal((await open.call('POST', '/metrics', {})).status, 405);
  // The API's own /metrics still asks for a token.
  assert.equal((await api(svc.url).call('GET', '/metrics')).status, 401);
  await svc.close();
  await assert.rejects(fetch(`${svc.metricsUrl}/metrics`));
});

test('a metrics address with metrics off is refused', async () => {
  await assert.rejects(
    startTestService({ metrics: false, metricsAddress: { host: '127.0.0.1', port: 0 } }),
    /a metrics address needs the metrics/,
  );
});

test('--metrics-address: a bare port binds loopback; another host only when named', () => {
  assert.deepEqual(parseMetricsAddress('9464'), { host: '127.0.0.1', port: 9464 });
  assert.deepEqual(parseMetricsAddress('0.0.0.0:9464'), { host: '0.0.0.0', port: 9464 });
  assert.deepEqual(parseMetricsAddress('localhost:0'), { host: 'localhost', port: 0 });
  assert.deepEqual(parseMetricsAddress('[::1]:9464'), { host: '::1', port: 9464 });
  for (const wrong of ['', 'host', ':9464', '70000', '1.2.3.4:', 'a b:1', '::1:9464'])
    assert.equal(typeof parseMetricsAddress(wrong), 'string', wrong);
});
