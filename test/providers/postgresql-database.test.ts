/**
 * The PostgreSQL provider through the real HTTP API, against the real server on 127.0.0.1:5432
 * (TYPEPLANE_TEST_POSTGRES_URL overrides it): every claim is checked on the server itself with a
 * separate `pg` connection. Skips, saying why, when no server answers.
 *
 * The server trusts loopback connections, so logging in proves the role's LOGIN right but not its
 * password; the password is checked against the SCRAM secret the server stored (pg_authid).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import {
  createPostgresProvider,
  DATABASE_TYPE,
  MANIFEST_TYPE,
} from '../../src/providers/postgresql/index.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import type { ProviderDefinition } from '../../src/providers/sdk.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { PG_URL, pgSkip } from '../helpers/postgres.js';

const ADMIN_URL = PG_URL;
const hex = randomBytes(4).toString('hex');
/** Everything this run creates starts with one of these (manifest names allow '-' but not '_'). */
const RUN = `tp_test_${hex}`;
const MANIFEST_RUN = `tp-test-${hex}`;
/** The provider works in a scope of its own, so suites running at the same time do not see these databases. */
const SCOPE = `tp-test-${hex}`;

const skip = pgSkip;
const reachable = !pgSkip;

const T = encodeURIComponent(DATABASE_TYPE);
const M = encodeURIComponent(MANIFEST_TYPE);
let svc: TestService;
let admin: pg.Client;
let provider: ProviderDefinition;
/** Every API answer of this file, to prove no password ever left the server. */
const answers: string[] = [];
const passwords = new Set<string>();

const secret = (label: string) => {
  const value = `${label}-${randomBytes(9).toString('base64url')}`;
  passwords.add(value);
  return value;
};

async function call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await svc.call(method, path, body, headers);
  answers.push(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

before(async () => {
  if (!reachable) return;
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  provider = createPostgresProvider({ url: ADMIN_URL, scope: SCOPE });
  svc = await startTestService({
    providers: new Map([
      [DATABASE_TYPE, provider],
      [MANIFEST_TYPE, provider],
    ]),
  });
  const schema = await call(
    'POST',
    '/v1/types',
    readFileSync(new URL('../../examples/typeplane-postgresql-database.json', import.meta.url), 'utf8'),
  );
  assert.equal(schema.status, 201, JSON.stringify(schema.body));
  const manifest = await call(
    'POST',
    '/v1/types',
    readFileSync(new URL('../../examples/postgresDatabases.yaml', import.meta.url), 'utf8'),
    { 'content-type': 'application/yaml' },
  );
  assert.equal(manifest.status, 201, JSON.stringify(manifest.body));
});

after(async () => {
  if (!reachable) return;
  await svc?.close();
  await provider?.close?.();
  // Whatever this run made is dropped, even when a test failed half-way.
  const like = [`${RUN.replace(/_/g, '\\_')}%`, `${MANIFEST_RUN}%`];
  const dbs = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2`,
    like,
  );
  for (const { datname } of dbs.rows)
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
  const roles = await admin.query<{ rolname: string }>(
    `SELECT rolname FROM pg_roles WHERE rolname LIKE $1 OR rolname LIKE $2`,
    like,
  );
  for (const { rolname } of roles.rows)
    await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(rolname)}`);
  await admin.end();
});

// ---- What the server says --------------------------------------------------------------------

async function database(name: string) {
  const { rows } = await admin.query<{ limit: number; owner: string; comment: string | null }>(
    `SELECT datconnlimit AS limit, pg_get_userbyid(datdba) AS owner, shobj_description(oid, 'pg_database') AS comment
       FROM pg_database WHERE datname = $1`,
    [name],
  );
  return rows[0];
}

async function role(name: string) {
  const { rows } = await admin.query<{ login: boolean; limit: number; secret: string | null }>(
    `SELECT rolcanlogin AS login, rolconnlimit AS limit, rolpassword AS secret FROM pg_authid WHERE rolname = $1`,
    [name],
  );
  return rows[0];
}

/** Whether the role's stored SCRAM-SHA-256 secret was made from this password. */
async function hasPassword(name: string, password: string): Promise<boolean> {
  const stored = (await role(name))?.secret;
  const m = stored ? /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(stored) : null;
  if (!m) return false;
  const salted = pbkdf2Sync(password, Buffer.from(m[2]!, 'base64'), Number(m[1]), 32, 'sha256');
  const storedKey = createHash('sha256')
    .update(createHmac('sha256', salted).update('Client Key').digest())
    .digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return storedKey === m[3] && serverKey === m[4];
}

/** Log in as the role to its own database (the server trusts loopback: this proves LOGIN and CONNECT). */
async function logsIn(name: string, password: string): Promise<boolean> {
  const url = new URL(ADMIN_URL);
  const client = new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: name,
    password,
    database: name,
    connectionTimeoutMillis: 2000,
  });
  try {
    await client.connect();
    const { rows } = await client.query<{ who: string; db: string }>(
      'SELECT current_user AS who, current_database() AS db',
    );
    return rows[0]?.who === name && rows[0]?.db === name;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const listAll = async (path: string) => {
  const seen: string[] = [];
  const pages: number[] = [];
  let nextToken: string | null = null;
  do {
    const query: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
    const res = await call('GET', `${path}?maxResults=1${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    pages.push(res.body.resourceDescriptions.length);
    seen.push(...res.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier));
    nextToken = res.body.nextToken;
  } while (nextToken);
  return { seen, pages };
};

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const direct = (typeName: string, extra: Partial<HandlerRequest> = {}): HandlerRequest => ({
  typeName,
  desiredState: {},
  clientRequestToken: `direct-${randomBytes(4).toString('hex')}`,
  logger: quiet,
  signal: new AbortController().signal,
  ...extra,
});

// ---- Typeplane::PostgreSQL::Database -----------------------------------------------------------

test(
  'create → read → update size and password → list → delete, each checked on the server',
  { skip },
  async () => {
    const name = `${RUN}_orders`;
    const first = secret('first');
    const created = await call('POST', `/v1/resources/${T}?wait=30`, {
      desiredState: { Name: name, Size: 'M', Password: first, Tags: [{ Key: 'team', Value: 'web' }] },
    });
    const event = created.body.progressEvent;
    assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(created.body));
    assert.deepEqual(event.resourceModel, {
      Name: name,
      Size: 'M',
      Binding: { Host: '127.0.0.1', Port: 5432, Username: name },
      Tags: [{ Key: 'team', Value: 'web' }],
    });

    // The server: a database owned by a login role of the same name, both limited to M's 50.
    const db = await database(name);
    assert.equal(db?.limit, 50);
    assert.equal(db?.owner, name);
    assert.match(db?.comment ?? '', /^typeplane:managed /);
    assert.equal((await role(name))?.login, true);
    assert.equal((await role(name))?.limit, 50);
    assert.ok(await hasPassword(name, first), 'the role has the password of the model');
    assert.ok(await logsIn(name, first));

    const read = await call('GET', `/v1/resources/${T}/${name}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.properties, event.resourceModel);

    const second = secret('second');
    const updated = await call('PATCH', `/v1/resources/${T}/${name}?wait=30`, {
      patchDocument: [
        { op: 'replace', path: '/Size', value: 'XL' },
        { op: 'replace', path: '/Password', value: second },
      ],
    });
    assert.equal(updated.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(updated.body));
    assert.equal(updated.body.progressEvent.resourceModel.Size, 'XL');
    assert.equal((await database(name))?.limit, 1000);
    assert.equal((await role(name))?.limit, 1000);
    assert.ok(await hasPassword(name, second), 'the new password is set');
    assert.ok(!(await hasPassword(name, first)), 'the old password no longer is');

    // A size-only update leaves the password alone.
    const smaller = await call('PATCH', `/v1/resources/${T}/${name}?wait=30`, {
      patchDocument: [{ op: 'replace', path: '/Size', value: 'L' }],
    });
    assert.equal(smaller.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(smaller.body));
    assert.equal((await database(name))?.limit, 200);
    assert.ok(await hasPassword(name, second));

    // Read shows the server's truth: a limit changed by hand reads as the size that allows it.
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} CONNECTION LIMIT 10`);
    assert.equal((await call('GET', `/v1/resources/${T}/${name}`)).body.properties.Size, 'S');

    // The name is create-only: the engine refuses, nothing is renamed.
    const rename = await call('PATCH', `/v1/resources/${T}/${name}`, {
      patchDocument: [{ op: 'replace', path: '/Name', value: `${RUN}_renamed` }],
    });
    assert.equal(rename.status, 400);
    assert.equal(rename.body.errorCode, 'NotUpdatable');
    assert.equal(await database(`${RUN}_renamed`), undefined);

    const listed = await call('GET', `/v1/resources/${T}?maxResults=1000`);
    assert.ok(listed.body.resourceDescriptions.some((r: { identifier: string }) => r.identifier === name));

    const deleted = await call('DELETE', `/v1/resources/${T}/${name}?wait=30`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
    assert.equal(await database(name), undefined, 'the database is dropped');
    assert.equal(await role(name), undefined, 'the role is dropped');
    assert.equal((await call('GET', `/v1/resources/${T}/${name}`)).status, 404);
  },
);

test('delete ends the sessions connected to the database', { skip }, async () => {
  const name = `${RUN}_busy`;
  const password = secret('busy');
  const created = await call('POST', `/v1/resources/${T}?wait=30`, {
    desiredState: { Name: name, Password: password },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  const url = new URL(ADMIN_URL);
  const session = new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: name,
    password,
    database: name,
  });
  session.on('error', () => undefined);
  await session.connect();
  try {
    const deleted = await call('DELETE', `/v1/resources/${T}/${name}?wait=30`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
    assert.equal(await database(name), undefined);
    assert.equal(await role(name), undefined);
  } finally {
    await session.end().catch(() => undefined);
  }
});

test(
  'list pages through three databases one at a time, in the API and in the provider',
  { skip },
  async () => {
    const names = ['a', 'b', 'c'].map((s) => `${RUN}_page_${s}`);
    for (const name of names) {
      const res = await call('POST', `/v1/resources/${T}?wait=30`, {
        desiredState: { Name: name, Size: 'S', Password: secret('page') },
      });
      assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(res.body));
    }
    const api = await listAll(`/v1/resources/${T}`);
    assert.deepEqual(
      api.seen.filter((n) => n.startsWith(`${RUN}_page_`)),
      names,
    );
    assert.ok(api.pages.every((n) => n <= 1));

    // The provider's own list answers from the server: what it manages in its scope, by name.
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await provider.list(
        direct(DATABASE_TYPE, { maxResults: 1, ...(nextToken ? { nextToken } : {}) }),
      );
      assert.equal(page.status, 'SUCCESS', page.message);
      assert.ok((page.resourceModels ?? []).length <= 1);
      seen.push(...(page.resourceModels ?? []).map((m) => String(m.Name)));
      nextToken = page.nextToken ?? undefined;
      pages++;
    } while (nextToken && pages < 100);
    assert.deepEqual(
      seen.filter((n) => n.startsWith(`${RUN}_page_`)),
      names,
    );
    assert.ok(
      seen.every((n) => n.startsWith(RUN)),
      `only this run's scope is listed: ${seen.join(', ')}`,
    );

    for (const name of names) {
      const res = await call('DELETE', `/v1/resources/${T}/${name}?wait=30`);
      assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS');
    }
  },
);

test(
  'a database dropped by hand reads NotFound; delete then drops its role and completes as gone',
  { skip },
  async () => {
    const name = `${RUN}_byhand`;
    const created = await call('POST', `/v1/resources/${T}?wait=30`, {
      desiredState: { Name: name, Password: secret('byhand') },
    });
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
    await admin.query(`DROP DATABASE ${pg.escapeIdentifier(name)} WITH (FORCE)`);

    const read = await call('GET', `/v1/resources/${T}/${name}`);
    assert.equal(read.status, 404);
    assert.equal(read.body.errorCode, 'NotFound');

    const del = await call('DELETE', `/v1/resources/${T}/${name}?wait=30`);
    assert.equal(del.body.progressEvent.operationStatus, 'SUCCESS');
    assert.equal(await role(name), undefined, 'the role left behind is dropped too');
    const listed = await call('GET', `/v1/resources/${T}?maxResults=1000`);
    assert.ok(!listed.body.resourceDescriptions.some((r: { identifier: string }) => r.identifier === name));
  },
);

test('creating an existing database is AlreadyExists and leaves it as it was', { skip }, async () => {
  const name = `${RUN}_twice`;
  const password = secret('twice');
  const first = await call('POST', `/v1/resources/${T}?wait=30`, {
    desiredState: { Name: name, Size: 'L', Password: password },
  });
  assert.equal(first.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(first.body));
  const again = await call('POST', `/v1/resources/${T}?wait=30`, {
    desiredState: { Name: name, Size: 'S', Password: secret('intruder') },
  });
  assert.equal(again.body.progressEvent.operationStatus, 'FAILED');
  assert.equal(again.body.progressEvent.errorCode, 'AlreadyExists');
  assert.equal((await database(name))?.limit, 200);
  assert.ok(await hasPassword(name, password));

  // A database Typeplane did not make: AlreadyExists for create, not there for read, untouched.
  const foreign = `${RUN}_foreign`;
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(foreign)}`);
  const clash = await call('POST', `/v1/resources/${T}?wait=30`, {
    desiredState: { Name: foreign, Password: secret('foreign') },
  });
  assert.equal(clash.body.progressEvent.errorCode, 'AlreadyExists');
  const direct_ = await provider.read(direct(DATABASE_TYPE, { desiredState: { Name: foreign } }));
  assert.equal(direct_.errorCode, 'NotFound');
  assert.equal((await database(foreign))?.owner, new URL(ADMIN_URL).username || 'postgres');
  assert.equal(await role(foreign), undefined, 'no role was made for it');

  assert.equal(
    (await call('DELETE', `/v1/resources/${T}/${name}?wait=30`)).body.progressEvent.operationStatus,
    'SUCCESS',
  );
});

test('hostile names are refused by the schema and, behind it, by the provider', { skip }, async () => {
  const hostile = [
    `x"; DROP DATABASE test; --`,
    `Robert'); DROP ROLE postgres; --`,
    `${RUN}" OWNER postgres`,
    'UPPER',
    'a b',
    '',
    'x'.repeat(64),
    `${RUN}\u0000`,
  ];
  for (const name of hostile) {
    const res = await call('POST', `/v1/resources/${T}`, {
      desiredState: { Name: name, Password: secret('hostile') },
    });
    assert.equal(res.status, 400, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.errorCode, 'InvalidRequest');
  }
  for (const name of [`a"; DROP DATABASE test; --`, 'a_b', '-a', 'a;b']) {
    const res = await call('POST', `/v1/resources/${M}`, {
      desiredState: { name, password: secret('hostile') },
    });
    assert.equal(res.status, 400, `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`);
  }
  // Straight to the provider, past the schema: every handler refuses before any SQL.
  for (const name of hostile) {
    for (const action of ['create', 'read', 'update', 'delete'] as const) {
      const event = await provider[action](
        direct(DATABASE_TYPE, { desiredState: { Name: name, Size: 'S', Password: secret('hostile') } }),
      );
      assert.equal(event.status, 'FAILED');
      assert.equal(event.errorCode, 'InvalidRequest', `${action} ${JSON.stringify(name)}: ${event.message}`);
    }
  }
  assert.equal((await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'test'`)).rowCount, 1);
  assert.equal((await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = 'postgres'`)).rowCount, 1);
  assert.equal(
    (await admin.query(`SELECT 1 FROM pg_database WHERE datname LIKE '%;%' OR datname LIKE '%"%'`)).rowCount,
    0,
  );
});

// ---- Typeplane.Data/postgresDatabases ---------------------------------------------------------

test('the manifest type end to end: PUT creates, read, PATCH, delete', { skip }, async () => {
  const name = `${MANIFEST_RUN}-orders`;
  const password = secret('manifest');
  const created = await call('PUT', `/v1/resources/${M}/${name}?wait=30`, {
    desiredState: { size: 'L', password },
  });
  const event = created.body.progressEvent;
  assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  assert.deepEqual(event.resourceModel, {
    name,
    size: 'L',
    status: { binding: { host: '127.0.0.1', port: 5432, username: name } },
  });
  assert.equal((await database(name))?.limit, 200);
  assert.equal((await database(name))?.owner, name);
  assert.ok(await hasPassword(name, password));
  assert.ok(await logsIn(name, password));

  const read = await call('GET', `/v1/resources/${M}/${name}`);
  assert.deepEqual(read.body.properties, event.resourceModel);

  const next = secret('manifest-next');
  const updated = await call('PATCH', `/v1/resources/${M}/${name}?wait=30`, {
    patchDocument: [
      { op: 'replace', path: '/size', value: 'M' },
      { op: 'replace', path: '/password', value: next },
    ],
  });
  assert.equal(updated.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(updated.body));
  assert.equal((await database(name))?.limit, 50);
  assert.equal((await role(name))?.limit, 50);
  assert.ok(await hasPassword(name, next));

  // The same database is not the other type's.
  const other = await provider.read(direct(DATABASE_TYPE, { desiredState: { Name: name } }));
  assert.equal(other.errorCode, 'InvalidRequest', 'a manifest name with "-" is no Database name');

  const deleted = await call('DELETE', `/v1/resources/${M}/${name}?wait=30`);
  assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(deleted.body));
  assert.equal(await database(name), undefined);
  assert.equal(await role(name), undefined);
});

// ---- Passwords -------------------------------------------------------------------------------

test('no API answer of this file carried a password', { skip }, async () => {
  // Every operation's recorded event as well.
  await call('GET', '/v1/requests?maxResults=1000');
  assert.ok(
    passwords.size > 10 && answers.length > 30,
    `${passwords.size} passwords, ${answers.length} answers`,
  );
  for (const answer of answers)
    for (const password of passwords)
      assert.ok(!answer.includes(password), `a password in: ${answer.slice(0, 200)}`);
});
