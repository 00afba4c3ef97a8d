/**
 * How the server serves the web console's files (no browser): open to callers without a token, a
 * strict Content-Security-Policy on every answer, immutable caching for hashed assets only, nothing
 * but the build's own files (paths that climb out are not served), and without a build (running from
 * the sources before any `npm run build`) a 404 that says to run it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { api, startTestService, type TestService } from '../helpers/service.js';

const BUILT = fileURLToPath(new URL('../../dist/console/', import.meta.url));

let s: TestService;
const anonymous = () => api(s.url);

before(async () => {
  s = await startTestService();
});
after(() => s.close());

test('the page and its assets answer without a token, each with the policy; only hashed assets are immutable', async () => {
  if (!existsSync(`${BUILT}index.html`)) {
    // From the sources before any build: the page says what to do.
    const answer = await anonymous().call('GET', '/console');
    assert.equal(answer.status, 404);
    assert.match(answer.body.message, /npm run build/);
    assert.match(answer.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    return;
  }
  for (const path of ['/console', '/console/']) {
    const page = await anonymous().call('GET', path);
    assert.equal(page.status, 200, path);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
    ])
      assert.ok(csp.includes(directive), `${directive} in ${csp}`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(String(page.body), /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  }
  const script = readdirSync(`${BUILT}assets`).find((f) => f.endsWith('.js'))!;
  const answer = await anonymous().call('GET', `/console/assets/${script}`);
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
});

test('nothing outside the build is served, however the path is spelled', async () => {
  for (const path of [
    '/console/nothing.js',
    '/console/../package.json',
    '/console/%2e%2e/package.json',
    '/console/assets/%2e%2e%2f%2e%2e%2fcli%2fmain.js',
    '/console/..%2f..%2fpackage.json',
    '/console/%2fetc%2fpasswd',
  ]) {
    const answer = await anonymous().call('GET', path);
    // 401: a path resolved out of /console needs a token, as every API route does.
    assert.ok([400, 401, 404].includes(answer.status), `${path}: ${answer.status}`);
    assert.doesNotMatch(JSON.stringify(answer.body ?? ''), /"name": ?"typeplane"|root:/);
  }
});
