/**
 * The PostgreSQL provider never sends a password in plain text, whatever characters it holds: every
 * byte it sends the server passes through a recording TCP proxy, and no form of the password is
 * among them. The secret it stores is the one the server itself computes for that password (SASLprep
 * included: checked against a role the server hashed). U+0000 in a password is the caller's error
 * (InvalidRequest), not a network failure. Skips when no PostgreSQL server answers.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { createPostgresProvider, DATABASE_TYPE } from '../../src/providers/postgresql/index.js';
import { saslprep } from '../../src/providers/postgresql/saslprep.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { pgSkip } from '../helpers/postgres.js';

const ADMIN_URL = process.env.TYPEPLANE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const run = `tp_pw_${randomBytes(4).toString('hex')}`;
const T = encodeURIComponent(DATABASE_TYPE);

/** Non-ASCII: a no-break space (mapped to a space), a ligature and a full-width letter (NFKC changes both). */
const PASSWORDS = ['Pässwörd\u00A0ﬁx sécret', 'ｆullwidth-Ω-secret', 'plain-ascii-secret-1'];

let proxy: Server;
const sent: Buffer[] = [];
let svc: TestService;
let admin: pg.Client;

before(async () => {
  if (pgSkip) return;
  const target = new URL(ADMIN_URL);
  // Everything the provider sends the server is recorded on its way.
  proxy = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    client.on('data', (chunk: Buffer) => sent.push(Buffer.from(chunk)));
    client.pipe(server).pipe(client);
    const close = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', close).on('close', close);
    server.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const viaProxy = new URL(ADMIN_URL);
  viaProxy.port = String((proxy.address() as AddressInfo).port);
  svc = await startTestService({
    providerDefinitions: [createPostgresProvider({ url: viaProxy.toString() })],
  });
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
});

after(async () => {
  if (pgSkip) return;
  await svc.close();
  const dbs = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1`,
    [`${run}%`],
  );
  for (const { datname } of dbs.rows)
    await admin.query(`DROP DATABASE ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
  const roles = await admin.query<{ rolname: string }>(`SELECT rolname FROM pg_roles WHERE rolname LIKE $1`, [
    `${run}%`,
  ]);
  for (const { rolname } of roles.rows) await admin.query(`DROP ROLE ${pg.escapeIdentifier(rolname)}`);
  await admin.end();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
});

async function secretOf(role: string): Promise<{ iterations: number; salt: Buffer; storedKey: string }> {
  const { rows } = await admin.query<{ rolpassword: string }>(
    'SELECT rolpassword FROM pg_authid WHERE rolname = $1',
    [role],
  );
  const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):/.exec(rows[0]?.rolpassword ?? '');
  assert.ok(match, `${role} has a SCRAM-SHA-256 secret`);
  return { iterations: Number(match[1]), salt: Buffer.from(match[2]!, 'base64'), storedKey: match[3]! };
}

function storedKey(password: string, salt: Buffer, iterations: number): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return createHash('sha256').update(clientKey).digest('base64');
}

PASSWORDS.forEach((password, i) => {
  it(
    `password ${i + 1}: never sent in plain text, and stored as the secret the server would compute`,
    { skip: pgSkip },
    async () => {
      const name = `${run}_${i}`;
      sent.length = 0;
      const created = await svc.call('POST', `/v1/resources/${T}?wait=30`, {
        desiredState: { Name: name, Password: password },
      });
      assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
      const wire = Buffer.concat(sent);
      assert.ok(wire.includes(name), 'the proxy saw the provider’s statements');
      for (const form of new Set([password, saslprep(password), password.normalize('NFKC')]))
        assert.equal(
          wire.includes(Buffer.from(form)),
          false,
          `no plain form of the password on the wire: ${form}`,
        );

      // The server's own hash of the same password, for a role made directly: same prepared password.
      const reference = `${name}_ref`;
      await admin.query(
        `CREATE ROLE ${pg.escapeIdentifier(reference)} PASSWORD ${pg.escapeLiteral(password)}`,
      );
      const server = await secretOf(reference);
      assert.equal(
        storedKey(saslprep(password), server.salt, server.iterations),
        server.storedKey,
        'SASLprep as the server does it',
      );
      const ours = await secretOf(name);
      assert.equal(storedKey(saslprep(password), ours.salt, ours.iterations), ours.storedKey);
    },
  );
});

it('a password holding U+0000 is InvalidRequest, not NetworkFailure', { skip: pgSkip }, async () => {
  const created = await svc.call('POST', `/v1/resources/${T}?wait=30`, {
    desiredState: { Name: `${run}_nul`, Password: 'before\u0000after-secret' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'FAILED');
  assert.equal(created.body.progressEvent.errorCode, 'InvalidRequest', JSON.stringify(created.body));
  assert.match(created.body.progressEvent.statusMessage, /U\+0000/);
  assert.doesNotMatch(created.body.progressEvent.statusMessage, /after-secret/);
});
