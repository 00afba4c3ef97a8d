/**
 * The PostgreSQL provider against the real server on 127.0.0.1:5432, through the real HTTP API.
 * Skips (with the reason) when no server answers there; `.ci/run` starts one.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  createPostgresProvider,
  DATABASE_TYPE,
  MANIFEST_TYPE,
} from '../../src/providers/postgresql/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { PG_URL, pgSkip } from '../helpers/postgres.js';

const ADMIN_URL = PG_URL;
const hex = randomBytes(4).toString('hex');
const run = `tp_test_${hex}`;
/** Manifest names allow letters, digits and '-', no '_'. */
const manifestRun = `tptest${hex}`;
const skip = pgSkip;
const reachable = !pgSkip;

let svc: TestService;
let admin: pg.Client;
const T = encodeURIComponent(DATABASE_TYPE);
const M = encodeURIComponent(MANIFEST_TYPE);

before(async () => {
  if (!reachable) return;
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  svc = await startTestService({ providerDefinitions: [createPostgresProvider({ url: ADMIN_URL })] });
});

after(async () => {
  if (!reachable) return;
  await svc.close();
  // Whatever this run made, gone even when a test failed.
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2`,
    [`${run}%`, `${manifestRun}%`],
  );
  for (const { datname } of rows)
    await admin.query(`DROP DATABASE ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
  const roles = await admin.query<{ rolname: string }>(
    `SELECT rolname FROM pg_roles WHERE rolname LIKE $1 OR rolname LIKE $2`,
    [`${run}%`, `${manifestRun}%`],
  );
  for (const { rolname } of roles.rows) await admin.query(`DROP ROLE ${pg.escapeIdentifier(rolname)}`);
  await admin.end();
});

const limitOf = async (name: string) =>
  (
    await admin.query<{ datconnlimit: number }>('SELECT datconnlimit FROM pg_database WHERE datname = $1', [
      name,
    ])
  ).rows[0]?.datconnlimit;

const canLogIn = async (name: string, password: string) => {
  const url = new URL(ADMIN_URL);
  const client = new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    user: name,
    password,
    database: name,
  });
  try {
    await client.connect();
    const { rows } = await client.query<{ current_user: string }>('SELECT current_user');
    return rows[0]?.current_user === name;
  } finally {
    await client.end().catch(() => undefined);
  }
};

test(
  'create makes a real database and login role sized by its connection limit; read, update, delete follow the server',
  { skip },
  async () => {
    const name = `${run}_orders`;
    const created = await svc.call('POST', `/v1/resources/${T}?wait=30`, {
      desiredState: {
        Name: name,
        Size: 'M',
        Password: 'correct-horse-battery',
        Tags: [{ Key: 'team', Value: 'web' }],
      },
    });
    assert.equal(created.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(created.body));
    assert.equal(await limitOf(name), 50);
    assert.ok(await canLogIn(name, 'correct-horse-battery'));
    const model = created.body.progressEvent.resourceModel;
    assert.deepEqual(model.Binding, { Host: '127.0.0.1', Port: 5432, Username: name });
    assert.deepEqual(model.Tags, [{ Key: 'team', Value: 'web' }]);

    const read = await svc.call('GET', `/v1/resources/${T}/${name}`);
    assert.equal(read.body.properties.Size, 'M');
    assert.equal(read.body.properties.Password, undefined);

    const updated = await svc.call('PATCH', `/v1/resources/${T}/${name}?wait=30`, {
      patchDocument: [
        { op: 'replace', path: '/Size', value: 'XL' },
        { op: 'replace', path: '/Password', value: 'another-long-secret' },
      ],
    });
    assert.equal(updated.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(updated.body));
    assert.equal(await limitOf(name), 1000);
    assert.ok(await canLogIn(name, 'another-long-secret'));

    const again = await svc.call('POST', `/v1/resources/${T}?wait=30`, {
      desiredState: { Name: name, Password: 'x'.repeat(12) },
    });
    assert.equal(again.body.progressEvent.errorCode, 'AlreadyExists');

    const deleted = await svc.call('DELETE', `/v1/resources/${T}/${name}?wait=30`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS');
    assert.equal(await limitOf(name), undefined, 'database dropped');
    assert.equal(
      (await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount,
      0,
      'role dropped',
    );
    for (const body of [created.body, read.body, updated.body])
      assert.ok(!JSON.stringify(body).includes('correct-horse'));
  },
);

test(
  'a database dropped by hand is NotFound on read; a delete completes as gone and the index follows',
  { skip },
  async () => {
    const name = `${run}_byhand`;
    const created = await svc.call('POST', `/v1/resources/${T}?wait=30`, {
      desiredState: { Name: name, Password: 'p'.repeat(16) },
    });
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
    await admin.query(`DROP DATABASE ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    const read = await svc.call('GET', `/v1/resources/${T}/${name}`);
    assert.equal(read.status, 404);
    const del = await svc.call('DELETE', `/v1/resources/${T}/${name}?wait=30`);
    assert.equal(del.body.progressEvent.operationStatus, 'SUCCESS');
    assert.equal(
      (await svc.call('GET', `/v1/resources/${T}?maxResults=1000`)).body.resourceDescriptions.some(
        (r: { identifier: string }) => r.identifier === name,
      ),
      false,
    );
  },
);

test(
  'the manifest type provisions the same way, and lists page through what the provider manages',
  { skip },
  async () => {
    const names = ['a', 'b', 'c'].map((s) => `${manifestRun}-m${s}`);
    for (const name of names) {
      const res = await svc.call('POST', `/v1/resources/${M}?wait=30`, {
        desiredState: { name, size: 'L', password: 'manifest-secret-1' },
      });
      assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(res.body));
      assert.deepEqual(res.body.progressEvent.resourceModel.status, {
        binding: { host: '127.0.0.1', port: 5432, username: name },
      });
      assert.equal(await limitOf(name), 200);
    }
    const provider = createPostgresProvider({ url: ADMIN_URL });
    try {
      const seen: string[] = [];
      let nextToken: string | undefined;
      do {
        const page = await provider.list({
          typeName: MANIFEST_TYPE,
          desiredState: {},
          clientRequestToken: 'list',
          maxResults: 1,
          ...(nextToken ? { nextToken } : {}),
          logger: { debug() {}, info() {}, warn() {}, error() {} },
          signal: new AbortController().signal,
        });
        assert.equal(page.status, 'SUCCESS');
        seen.push(...(page.resourceModels ?? []).map((m) => String(m.name)));
        nextToken = page.nextToken ?? undefined;
      } while (nextToken);
      assert.deepEqual(
        seen.filter((n) => n.startsWith(manifestRun)),
        names,
      );
    } finally {
      await provider.close?.();
    }
  },
);

test('hostile names never reach SQL', { skip }, async () => {
  const provider = createPostgresProvider({ url: ADMIN_URL });
  try {
    const event = await provider.create({
      typeName: DATABASE_TYPE,
      desiredState: { Name: `${run}"; DROP DATABASE postgres; --`, Password: 'x'.repeat(12) },
      clientRequestToken: 'hostile',
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      signal: new AbortController().signal,
    });
    assert.equal(event.errorCode, 'InvalidRequest');
    assert.ok((await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'postgres'`)).rowCount === 1);
    const api = await svc.call('POST', `/v1/resources/${T}`, {
      desiredState: { Name: 'Robert"); DROP', Password: 'x'.repeat(12) },
    });
    assert.equal(api.status, 400, 'the schema pattern refuses it before the provider');
  } finally {
    await provider.close?.();
  }
});

test('without a url the provider answers InvalidTypeConfiguration', async () => {
  const event = await createPostgresProvider().read({
    typeName: DATABASE_TYPE,
    desiredState: { Name: 'x' },
    clientRequestToken: 't',
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    signal: new AbortController().signal,
  });
  assert.equal(event.errorCode, 'InvalidTypeConfiguration');
});
