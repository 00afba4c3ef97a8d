/**
 * The CLI over TLS: --ca-file (or TYPEPLANE_CA_FILE) trusts a private CA, and a call that fails
 * says what happened — a certificate from a CA the CLI does not trust, a self-signed one, an expired
 * one, one for another host, an https:// endpoint that speaks plain HTTP or an http:// one that
 * speaks HTTPS — instead of asking whether 'typeplane serve' runs. Certificates are made with
 * openssl for the test; the server is a real `typeplane serve --tls-cert --tls-key`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/cli/client.js';
import { exits, runCli } from '../helpers/cli.js';
import { spawnServer, tempDir } from '../helpers/service.js';

const SELF_SIGNED = fileURLToPath(new URL('../fixtures/tls/test-only-cert.pem', import.meta.url));
const SELF_SIGNED_KEY = fileURLToPath(new URL('../fixtures/tls/test-only-key.pem', import.meta.url));

const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const skip = openssl ? false : 'openssl is not installed';

const dir = tempDir('typeplane-tls-');
const file = (name: string) => join(dir, name);

/** A private CA, and server certificates it signs: for 127.0.0.1, expired, and for another host. */
function makeCertificates(): void {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test CA');
  run('req', ...ec, '-keyout', 'key.pem', '-out', 'server.csr', '-subj', '/CN=typeplane');
  const sign = (out: string, days: string, names: string) => {
    writeFileSync(file(`${out}.ext`), `subjectAltName=${names}\n`);
    run(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-out',
      out,
      '-days',
      days,
      '-extfile',
      `${out}.ext`,
    );
  };
  sign('server.pem', '2', 'IP:127.0.0.1');
  sign('expired.pem', '-1', 'IP:127.0.0.1');
  sign('other-host.pem', '2', 'DNS:other.example');
}

let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
const helpers: Server[] = [];

before(async () => {
  if (!openssl) return;
  makeCertificates();
  server = await spawnServer(tempDir(), ['--tls-cert', file('server.pem'), '--tls-key', file('key.pem')]);
});
after(async () => {
  server?.child.kill('SIGTERM');
  await Promise.all(helpers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A listening server on loopback; its endpoint with `scheme`. */
async function listen(s: Server, scheme: 'http' | 'https'): Promise<string> {
  helpers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
const httpsWith = (cert: string, key: string) =>
  listen(
    createHttpsServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_q, r) => r.end('{}')),
    'https',
  );

/** The message a call through the CLI's client fails with. */
async function failure(endpoint: string, caFile?: string): Promise<string> {
  const error = await new Client(endpoint, undefined, caFile).call('GET', '/v1/types').then(
    () => assert.fail('the call succeeded'),
    (e: Error) => e,
  );
  return error.message;
}

test(
  'a server whose CA the CLI does not trust: the error says to pass --ca-file; --ca-file or TYPEPLANE_CA_FILE makes it work',
  { skip },
  async () => {
    const { url, token } = server!;
    const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
    const args = ['type', 'list', '--endpoint', url, '--token', token];
    const [untrusted, withFlag, withEnv] = await Promise.all([
      runCli(args, { env }),
      runCli([...args, '--ca-file', file('ca.pem')], { env }),
      runCli(args, { env: { ...env, TYPEPLANE_CA_FILE: file('ca.pem') } }),
    ]);
    exits(untrusted, 1);
    assert.match(
      untrusted.stderr,
      /TlsFailure: cannot talk to https:\/\/127\.0\.0\.1:\d+: the server's certificate is signed by a CA this CLI does not trust.*--ca-file <file> \(or TYPEPLANE_CA_FILE\)/,
    );
    assert.doesNotMatch(untrusted.stderr, /is 'typeplane serve' running/);
    exits(withFlag, 0);
    exits(withEnv, 0);
  },
);

test("a self-signed, an expired and another host's certificate are each named", { skip }, async () => {
  const selfSigned = await httpsWith(SELF_SIGNED, SELF_SIGNED_KEY);
  assert.match(await failure(selfSigned), /the server's certificate is self-signed: pass --ca-file/);
  assert.match(
    await failure(selfSigned, file('ca.pem')),
    /self-signed and not signed by the CA in .*ca\.pem/,
  );
  const expired = await httpsWith(file('expired.pem'), file('key.pem'));
  assert.match(await failure(expired, file('ca.pem')), /the server's certificate has expired/);
  const otherHost = await httpsWith(file('other-host.pem'), file('key.pem'));
  assert.match(
    await failure(otherHost, file('ca.pem')),
    /is not for 127\.0\.0\.1 \(it names DNS:other\.example\)/,
  );
});

test(
  'https:// to a plain HTTP server says to use http://; http:// to an HTTPS server says to use https://',
  { skip },
  async () => {
    const plain = await listen(
      createHttpServer((_q, r) => r.end('{}')),
      'http',
    );
    const asHttps = plain.replace(/^http:/, 'https:');
    assert.match(
      await failure(asHttps),
      new RegExp(`this endpoint speaks plain HTTP, not HTTPS: use ${plain}$`),
    );
    const asHttp = server!.url.replace(/^https:/, 'http:');
    assert.match(
      await failure(asHttp),
      new RegExp(`this endpoint speaks HTTPS, not plain HTTP: use ${server!.url}$`),
    );
  },
);

test('--ca-file that is no PEM certificate, or missing, is a usage error (exit 2)', { skip }, async () => {
  writeFileSync(file('not-a-cert.txt'), 'hello\n');
  const run = await runCli(['type', 'list', '--endpoint', server!.url, '--ca-file', file('not-a-cert.txt')], {
    env: { PATH: process.env.PATH ?? '' },
  });
  exits(run, 2);
  assert.match(run.stderr, /holds no PEM certificate/);
  assert.throws(
    () => new Client(server!.url, undefined, file('missing.pem')),
    /no such file: .*missing\.pem/,
  );
});
