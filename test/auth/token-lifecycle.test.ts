/**
 * Tokens through the admin API: created (shown once), listed without secrets, revoked (then 401);
 * the store keeps only their SHA-256, never the token.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

test('create shows the token once; list shows ids, roles and scopes but no secret; revoke makes it 401', async () => {
  const created = await svc.call('POST', '/v1/tokens', {
    role: 'reader',
    types: ['AWS::S3::*'],
    description: 'dashboards',
  });
  assert.equal(created.status, 201);
  const { token, id } = created.body;
  assert.match(token, /^tp_[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
  assert.deepEqual(Object.keys(created.body).sort(), [
    'createdAt',
    'description',
    'id',
    'role',
    'token',
    'types',
  ]);
  assert.equal(created.body.role, 'reader');

  const reader = api(svc.url, token);
  assert.equal((await reader.call('GET', '/v1/types')).status, 200);

  const list = await svc.call('GET', '/v1/tokens');
  assert.equal(list.status, 200);
  const listed = list.body.tokens.find((t: { id: string }) => t.id === id);
  assert.deepEqual(listed, {
    id,
    role: 'reader',
    types: ['AWS::S3::*'],
    description: 'dashboards',
    createdAt: created.body.createdAt,
  });
  assert.ok(
    list.body.tokens.some((t: { role: string }) => t.role === 'admin'),
    'the admin token is listed',
  );
  const text = JSON.stringify(list.body);
  assert.ok(!text.includes(token) && !text.includes(svc.token), 'no secret in the list');
  assert.ok(!/"token"/.test(text));

  assert.equal((await svc.call('DELETE', `/v1/tokens/${id}`)).status, 204);
  const after = await reader.call('GET', '/v1/types');
  assert.equal(after.status, 401);
  assert.equal(after.body.errorCode, 'InvalidCredentials');
  assert.ok(!(await svc.call('GET', '/v1/tokens')).body.tokens.some((t: { id: string }) => t.id === id));
  const again = await svc.call('DELETE', `/v1/tokens/${id}`);
  assert.equal(again.status, 404);
  assert.equal(again.body.errorCode, 'NotFound');
});

test('two creates give two different tokens', async () => {
  const [a, b] = await Promise.all([
    svc.call('POST', '/v1/tokens', { role: 'writer' }),
    svc.call('POST', '/v1/tokens', { role: 'writer' }),
  ]);
  assert.notEqual(a.body.token, b.body.token);
  assert.notEqual(a.body.id, b.body.id);
});

test('the SQLite files hold the SHA-256 of each token, never the token', async () => {
  const created = await svc.call('POST', '/v1/tokens', { role: 'admin', description: 'hash check' });
  const tokens = [svc.token, created.body.token as string];
  // Close to flush the WAL, then read every file of the store.
  await svc.close();
  const files = readdirSync(svc.dataDir).map((f) => join(svc.dataDir, f));
  const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
  for (const token of tokens) {
    assert.equal(bytes.indexOf(token), -1, 'the token is not stored');
    assert.equal(bytes.indexOf(token.slice(3, 30)), -1, 'nor a piece of it');
    const hash = createHash('sha256').update(token).digest('hex');
    assert.notEqual(bytes.indexOf(hash), -1, 'its hash is the lookup key');
  }
  // Restarted on the same data, the tokens still work.
  const restarted = await startTestService({ dataDir: svc.dataDir, adminToken: svc.token });
  try {
    assert.equal((await api(restarted.url, created.body.token).call('GET', '/v1/tokens')).status, 200);
  } finally {
    await restarted.close();
  }
});
