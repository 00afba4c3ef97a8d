/**
 * Every route but /healthz needs `Authorization: Bearer <token>`: without one, with a malformed one
 * or with an unknown token the answer is 401 InvalidCredentials with a `WWW-Authenticate: Bearer`
 * challenge, before the route runs (and before its body is read).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateToken } from '../../src/auth/index.js';
import { WIDGET, WIDGET_TYPE, api, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const T = encodeURIComponent(WIDGET_TYPE);

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  assert.equal(
    (await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState: { Name: 'kept' } })).status,
    202,
  );
});
after(() => svc.close());

/** One route of every family and method, including an unknown route. */
const ROUTES: [string, string, unknown?][] = [
  ['GET', '/v1/types'],
  ['POST', '/v1/types', WIDGET],
  ['GET', `/v1/types/${T}`],
  ['DELETE', `/v1/types/${T}`],
  ['GET', `/v1/resources/${T}`],
  ['POST', `/v1/resources/${T}`, { desiredState: { Name: 'nope' } }],
  ['GET', `/v1/resources/${T}/kept`],
  ['PATCH', `/v1/resources/${T}/kept`, { patchDocument: [] }],
  ['PUT', `/v1/resources/${T}/kept`, { desiredState: { Name: 'kept' } }],
  ['DELETE', `/v1/resources/${T}/kept`],
  ['GET', `/v1/resources/${T}/kept/references`],
  ['GET', '/v1/requests'],
  ['GET', '/v1/requests/00000000-0000-4000-8000-000000000000'],
  ['POST', '/v1/requests/00000000-0000-4000-8000-000000000000/cancel'],
  ['GET', '/v1/tokens'],
  ['POST', '/v1/tokens', { role: 'admin' }],
  ['DELETE', '/v1/tokens/whatever'],
  ['GET', '/v1/no-such-route'],
];

/** Headers that must not pass, given the real admin token. */
function badCredentials(token: string): [string, Record<string, string>][] {
  const nearMiss = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
  return [
    ['no header', {}],
    ['an empty header', { authorization: '' }],
    ['another scheme', { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }],
    ['Bearer without a token', { authorization: 'Bearer' }],
    ['Bearer with two words', { authorization: `Bearer ${token} extra` }],
    ['the token without Bearer', { authorization: token }],
    ['an unknown token', { authorization: `Bearer ${generateToken()}` }],
    ['the token with its last character changed', { authorization: `Bearer ${nearMiss}` }],
  ];
}

test('without a valid token every route family answers 401 InvalidCredentials with a Bearer challenge', async () => {
  const anonymous = api(svc.url);
  for (const [label, headers] of badCredentials(svc.token)) {
    for (const [method, path, body] of ROUTES) {
      const res = await anonymous.call(method, path, body, headers);
      const where = `${label}: ${method} ${path}`;
      assert.equal(res.status, 401, `${where} → ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.errorCode, 'InvalidCredentials', where);
      assert.equal(typeof res.body.message, 'string', where);
      assert.deepEqual(res.body.details, [], where);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="typeplane"/, where);
      assert.ok(!JSON.stringify(res.body).includes(svc.token), `${where}: the answer never echoes a token`);
    }
  }
  // Nothing above reached a route: the type and its resource are untouched.
  assert.equal((await svc.call('GET', `/v1/resources/${T}/kept`)).status, 200);
  assert.equal((await svc.call('GET', `/v1/resources/${T}/nope`)).status, 404);
});

test('the 401 message says how to get a token; a bad token is marked invalid_token', async () => {
  const none = await api(svc.url).call('GET', '/v1/types');
  assert.match(none.body.message, /Authorization: Bearer/);
  assert.match(none.body.message, /typeplane serve/);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="typeplane"');
  const unknown = await api(svc.url, generateToken()).call('GET', '/v1/types');
  assert.equal(unknown.headers.get('www-authenticate'), 'Bearer realm="typeplane", error="invalid_token"');
  assert.match(unknown.body.message, /unknown or revoked/);
});

test('/healthz needs no token; the scheme name is case-insensitive', async () => {
  const health = await api(svc.url).call('GET', '/healthz');
  assert.equal(health.status, 200);
  assert.deepEqual(health.body, { status: 'ok' });
  const lower = await api(svc.url).call('GET', '/v1/types', undefined, {
    authorization: `bearer ${svc.token}`,
  });
  assert.equal(lower.status, 200);
});

test('a valid token on an unknown route gets 404, not 401', async () => {
  const res = await svc.call('GET', '/v1/no-such-route');
  assert.equal(res.status, 404);
  assert.equal(res.body.errorCode, 'NotFound');
});
