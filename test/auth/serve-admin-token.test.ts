/**
 * `typeplane serve` and its tokens, as a child process: the first start on empty data prints one
 * admin token on stdout (a later start does not); TYPEPLANE_ADMIN_TOKEN makes that token an admin
 * without printing it; plain HTTP beyond loopback needs TLS or --allow-plain-http; logs never carry
 * a token, even at trace level. Over TLS both APIs answer on the one port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { generateToken } from '../../src/auth/index.js';
import { signedHeaders } from '../helpers/cloudcontrol.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

const TLS_CERT = fileURLToPath(new URL('../fixtures/tls/test-only-cert.pem', import.meta.url));
const TLS_KEY = fileURLToPath(new URL('../fixtures/tls/test-only-key.pem', import.meta.url));

/** One request to a server on `port` serving HTTPS with the test certificate. */
function overTls(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, method, path, servername: 'localhost', ca: readFileSync(TLS_CERT), headers },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

test('the first start prints one admin token on stdout; a second start on the same data prints none', async () => {
  const dataDir = tempDir();
  const first = await spawnServer(dataDir, [], { TYPEPLANE_ADMIN_TOKEN: '' });
  let token: string;
  try {
    const lines = first.stdout().trimEnd().split('\n');
    assert.equal(lines.length, 2, first.stdout());
    assert.match(lines[0]!, /^admin token: tp_[A-Za-z0-9_-]{43}$/);
    assert.equal(lines[1], `listening on ${first.url}`);
    token = first.token;
    assert.equal(lines[0], `admin token: ${token}`);
    const tokens = await api(first.url, token).call('GET', '/v1/tokens');
    assert.equal(tokens.status, 200);
    assert.deepEqual(
      tokens.body.tokens.map((t: { role: string }) => t.role),
      ['admin'],
    );
    assert.ok(!first.logs().includes(token), 'the token is not in the logs');
  } finally {
    await stop(first.child);
  }
  const second = await spawnServer(dataDir, [], { TYPEPLANE_ADMIN_TOKEN: '' });
  try {
    assert.equal(second.stdout(), `listening on ${second.url}\n`, 'no new admin token');
    assert.equal((await api(second.url, token).call('GET', '/v1/tokens')).body.tokens.length, 1);
  } finally {
    await stop(second.child);
  }
});

test('TYPEPLANE_ADMIN_TOKEN is an admin token, stored hashed, never printed; a weak one is refused', async () => {
  const dataDir = tempDir();
  const token = generateToken();
  const server = await spawnServer(dataDir, [], { TYPEPLANE_ADMIN_TOKEN: token });
  try {
    assert.equal(server.stdout(), `listening on ${server.url}\n`);
    const created = await api(server.url, token).call('POST', '/v1/tokens', { role: 'reader' });
    assert.equal(created.status, 201, 'it can create tokens: it is an admin token');
    const listed = await api(server.url, token).call('GET', '/v1/tokens');
    assert.deepEqual(
      listed.body.tokens.map((t: { role: string; description?: string }) => [t.role, t.description]),
      [
        ['admin', 'from TYPEPLANE_ADMIN_TOKEN'],
        ['reader', undefined],
      ],
    );
  } finally {
    await stop(server.child);
  }
  await assert.rejects(spawnServer(tempDir(), [], { TYPEPLANE_ADMIN_TOKEN: 'secret' }), (e: Error) => {
    assert.match(e.message, /server exited with 1/);
    assert.match(e.message, /TYPEPLANE_ADMIN_TOKEN\) must be at least 32 characters/);
    assert.ok(!e.message.includes("'secret'"), 'the refused value is not echoed');
    return true;
  });
});

test('plain HTTP beyond loopback is refused unless --allow-plain-http; with --tls-cert/--tls-key it serves HTTPS', async () => {
  await assert.rejects(spawnServer(tempDir(), ['--host', '0.0.0.0']), (e: Error) => {
    assert.match(e.message, /server exited with 1/);
    assert.match(e.message, /refusing to serve plain HTTP on 0\.0\.0\.0/);
    assert.match(e.message, /--tls-cert and --tls-key, or --allow-plain-http/);
    return true;
  });

  const plain = await spawnServer(tempDir(), ['--host', '0.0.0.0', '--allow-plain-http']);
  try {
    assert.match(plain.url, /^http:\/\/0\.0\.0\.0:\d+$/);
    const port = new URL(plain.url).port;
    assert.equal((await api(`http://127.0.0.1:${port}`, plain.token).call('GET', '/v1/types')).status, 200);
  } finally {
    await stop(plain.child);
  }

  const tls = await spawnServer(tempDir(), [
    '--host',
    '0.0.0.0',
    '--tls-cert',
    TLS_CERT,
    '--tls-key',
    TLS_KEY,
  ]);
  try {
    assert.match(tls.url, /^https:\/\/0\.0\.0\.0:\d+$/);
    const port = Number(new URL(tls.url).port);
    const answer = await overTls(port, 'GET', '/v1/types', { authorization: `Bearer ${tls.token}` });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { types: [] });
    // The Cloud Control API on the same port: a signed POST, its body read over TLS.
    const made = await overTls(
      port,
      'POST',
      '/v1/tokens',
      { authorization: `Bearer ${tls.token}`, 'content-type': 'application/json' },
      JSON.stringify({ role: 'reader', awsKeys: true }),
    );
    assert.equal(made.status, 201, made.body);
    const keys = JSON.parse(made.body) as { accessKeyId: string; secretAccessKey: string };
    const body = JSON.stringify({ MaxResults: 5 });
    const listed = await overTls(
      port,
      'POST',
      '/',
      signedHeaders({ keys, url: `https://127.0.0.1:${port}`, operation: 'ListResourceRequests', body }),
      body,
    );
    assert.equal(listed.status, 200, listed.body);
    assert.deepEqual(JSON.parse(listed.body), { ResourceRequestStatusSummaries: [] });
    // Plain HTTP to the TLS port gets no API answer.
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
  } finally {
    await stop(tls.child);
  }
});

test('--tls-cert without --tls-key is a usage error', async () => {
  await assert.rejects(
    spawnServer(tempDir(), ['--tls-cert', TLS_CERT]),
    /server exited with 2[\s\S]*both --tls-cert and --tls-key/,
  );
});

test('tokens never reach the logs, even at trace level', async () => {
  const server = await spawnServer(tempDir(), ['--log-level', 'trace']);
  try {
    const admin = api(server.url, server.token);
    const created = await admin.call('POST', '/v1/tokens', { role: 'writer' });
    const writer = created.body.token as string;
    const unknown = generateToken();
    assert.equal((await api(server.url, writer).call('GET', '/v1/types')).status, 200);
    assert.equal((await api(server.url, unknown).call('GET', '/v1/types')).status, 401);
    assert.equal((await api(server.url, writer).call('POST', '/v1/types', '{}')).status, 403);
    await stop(server.child);
    const logs = server.logs();
    assert.match(logs, /"url":"\/v1\/tokens"/, 'requests are logged at this level');
    assert.match(logs, /"statusCode":401/);
    for (const token of [server.token, writer, unknown]) {
      assert.ok(!logs.includes(token), 'no token in the logs');
      assert.ok(!logs.includes(token.slice(3, 20)), 'nor a piece of one');
    }
    assert.ok(!server.stdout().includes(writer), 'created tokens are not printed either');
  } finally {
    await stop(server.child);
  }
});
