/**
 * Write-only values never reach the disk in plain text — not the SQLite file (nor its WAL), not a
 * PostgreSQL store's tables, not the logs at trace level, not any API answer — while providers are
 * still handed them whole.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { createSealer } from '../../src/secrets/index.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { WIDGET, WIDGET_TYPE, startTestService, tempDir, type Api } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { PG_URL, freshSchema, pgQuery, pgSkip } from '../helpers/postgres.js';

const LOGIN = 'Test::Vault::Login';
const NOTES = 'Test.Vault/notes';
const PASSWORD = 'pw-Zq8vK2mX7rLp';
const PASSWORD2 = 'pw2-Hy4nB9sT3wQe';
const PIN = 'pin-Jd6fR1cV5u';
const TOKEN = 'tok-Wm3kP8xN2y';
const WIDGET_SECRET = 'widget-Qa7sD4fG1h';
const WIDGET_SECRET2 = 'widget2-Lk9jH6gF3d';
const API_KEY = 'apikey-Rt5yU2iO8p';
const SECRETS = [PASSWORD, PASSWORD2, PIN, TOKEN, WIDGET_SECRET, WIDGET_SECRET2, API_KEY];

const LOGIN_SCHEMA = JSON.stringify({
  typeName: LOGIN,
  description: 'A login with secrets at several depths.',
  properties: {
    Name: { type: 'string' },
    Note: { type: 'string' },
    Password: { type: 'string' },
    Users: {
      type: 'array',
      items: {
        type: 'object',
        properties: { User: { type: 'string' }, Pin: { type: 'string' } },
        additionalProperties: false,
      },
    },
    Creds: {
      type: 'object',
      properties: { Token: { type: 'string' }, Region: { type: 'string' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  required: ['Name'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  writeOnlyProperties: ['/properties/Password', '/properties/Users/*/Pin', '/properties/Creds/Token'],
});

const NOTES_MANIFEST = [
  'namespace: Test.Vault',
  'types:',
  '  notes:',
  '    description: A note with a sensitive key.',
  '    apiVersions:',
  "      '2025-01-01':",
  '        schema:',
  '          type: object',
  '          properties:',
  '            text: { type: string }',
  '            apiKey: { type: string, x-typeplane-sensitive: true }',
  '',
].join('\n');

/** Every form a secret could take on disk or in a body. */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

function assertNoSecret(where: string, haystack: Buffer | string): void {
  const text = Buffer.isBuffer(haystack) ? haystack.toString('latin1') : haystack;
  for (const secret of SECRETS)
    for (const form of forms(secret))
      assert.ok(
        !text.includes(form),
        `${where} holds ${secret} (as ${form === secret ? 'plain text' : form})`,
      );
}

/** Every row of every table of a PostgreSQL store's schema, as text. */
async function postgresRows(schema: string): Promise<string> {
  const tables = await pgQuery<{ table_name: string }>(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
    [schema],
  );
  assert.ok(tables.length >= 5, `the store's tables: ${tables.map((t) => t.table_name).join(', ')}`);
  const rows: string[] = [];
  for (const { table_name } of tables)
    for (const row of await pgQuery<{ row: string }>(
      `SELECT t::text AS row FROM ${schema}."${table_name}" t`,
    ))
      rows.push(row.row);
  return rows.join('\n');
}

/**
 * Keeps every version of every row the store writes from now on: a trigger on each table of `schema`
 * copies each inserted or updated row, as text, into a table of `audit`. A value written in plain
 * text and replaced later (the final rows alone would not show it) is kept there. Returns how to read
 * them, after checking that every table of the store still carries the trigger.
 */
async function captureRowVersions(schema: string, audit: string): Promise<() => Promise<string>> {
  await pgQuery(`CREATE SCHEMA ${audit}`);
  await pgQuery(
    `CREATE TABLE ${audit}.versions (table_name text NOT NULL, op text NOT NULL, row text NOT NULL)`,
  );
  await pgQuery(`CREATE FUNCTION ${audit}.capture() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ${audit}.versions VALUES (TG_TABLE_NAME, TG_OP, row_to_json(NEW)::text);
      RETURN NEW;
    END $$`);
  const tables = async () =>
    (
      await pgQuery<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
        [schema],
      )
    ).map((t) => t.table_name);
  const captured = await tables();
  assert.ok(captured.length >= 5, `the store's tables: ${captured.join(', ')}`);
  for (const table of captured)
    await pgQuery(
      `CREATE TRIGGER capture_versions AFTER INSERT OR UPDATE ON ${schema}."${table}" FOR EACH ROW EXECUTE FUNCTION ${audit}.capture()`,
    );
  return async () => {
    assert.deepEqual(
      (await tables()).sort(),
      [...captured].sort(),
      'no table was created after the triggers',
    );
    const versions = await pgQuery<{ table_name: string; op: string; row: string }>(
      `SELECT table_name, op, row FROM ${audit}.versions`,
    );
    return versions.map((v) => `${v.table_name} ${v.op} ${v.row}`).join('\n');
  };
}

test('write-only values are sealed at rest and never answered or logged, yet providers get them [sqlite]', (t) =>
  sealedAtRest(t, 'sqlite'));
test(
  'write-only values are sealed at rest and never answered or logged, yet providers get them [postgresql]',
  { skip: pgSkip },
  (t) => sealedAtRest(t, 'postgresql'),
);

async function sealedAtRest(t: TestContext, kind: 'sqlite' | 'postgresql'): Promise<void> {
  const schema = kind === 'postgresql' ? freshSchema(t, 'tp_secrets') : undefined;
  const audit = kind === 'postgresql' ? freshSchema(t, 'tp_secrets_audit') : undefined;
  const dataDir = tempDir();
  const logFile = join(dataDir, 'server.log');
  const logger = pino({ level: 'trace' }, pino.destination({ dest: logFile, sync: true }));
  const login = memoryProvider({
    // One IN_PROGRESS step whose callback context and progress model carry the secret.
    create: (req, store) => {
      if (!req.callbackContext)
        return {
          status: 'IN_PROGRESS',
          callbackContext: { password: req.desiredState.Password, step: 1 },
          callbackDelaySeconds: 0,
          message: `creating with ${String(req.desiredState.Password)}`,
          resourceModel: req.desiredState,
        };
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState }; // echoes the secrets
    },
    update: (req, store) => {
      if (req.desiredState.Note === 'fail')
        return {
          status: 'FAILED',
          errorCode: 'InvalidCredentials',
          message: `password ${String(req.desiredState.Password)} was refused`,
        };
      if (req.desiredState.Note === 'throw')
        throw new Error(`cannot connect as ${String((req.desiredState.Creds as any).Token)}`);
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const svc = await startTestService({
    dataDir,
    logger,
    providers: new Map([[LOGIN, login]]),
    ...(schema ? { database: { url: PG_URL, schema } } : {}),
  });
  // The store's tables exist once it is open; nothing has been written with a secret yet.
  const rowVersions = schema && audit ? await captureRowVersions(schema, audit) : undefined;
  const bodies: string[] = [];
  const call: Api['call'] = async (method, path, body, headers) => {
    const answer = await svc.call(method, path, body, headers);
    bodies.push(JSON.stringify(answer.body));
    return answer;
  };
  const waitDone = async (path: string, method: string, body: unknown) => {
    const answer = await call(method, path, body);
    assert.ok(answer.status < 300, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    return answer.body.progressEvent;
  };
  const L = `/v1/resources/${encodeURIComponent(LOGIN)}`;
  let walSeen = false;
  try {
    assert.equal((await call('POST', '/v1/types', LOGIN_SCHEMA)).status, 201);
    assert.equal((await call('POST', '/v1/types', WIDGET)).status, 201);
    const manifest = await call('POST', '/v1/types', NOTES_MANIFEST, { 'content-type': 'application/yaml' });
    assert.equal(manifest.status, 201, JSON.stringify(manifest.body));

    // Create through one IN_PROGRESS step.
    const desired = {
      Name: 'a',
      Password: PASSWORD,
      Users: [{ User: 'u1', Pin: PIN }, { User: 'u2' }],
      Creds: { Token: TOKEN, Region: 'eu' },
    };
    const created = await waitDone(`${L}?wait=10`, 'POST', { desiredState: desired, clientToken: 'login-a' });
    assert.equal(created.operationStatus, 'SUCCESS', JSON.stringify(created));
    const replay = await waitDone(`${L}?wait=10`, 'POST', { desiredState: desired, clientToken: 'login-a' });
    assert.equal(
      replay.requestToken,
      created.requestToken,
      'the same request replays under its client token',
    );
    const creates = login.calls.filter((c) => c.action === 'create').map((c) => c.req);
    assert.equal(creates.length, 2);
    assert.deepEqual(creates[0]!.desiredState, desired, 'the provider is handed every secret');
    assert.deepEqual(creates[1]!.callbackContext, { password: PASSWORD, step: 1 }, 'its own context, opened');
    assert.deepEqual(creates[1]!.desiredState, desired);

    // A patch of a write-only value, then of another property: the whole desired state goes each time.
    const patched = await waitDone(`${L}/a?wait=10`, 'PATCH', {
      patchDocument: [{ op: 'replace', path: '/Password', value: PASSWORD2 }],
    });
    assert.equal(patched.operationStatus, 'SUCCESS', JSON.stringify(patched));
    const noted = await waitDone(`${L}/a?wait=10`, 'PATCH', {
      patchDocument: [{ op: 'add', path: '/Note', value: 'hello' }],
    });
    assert.equal(noted.operationStatus, 'SUCCESS');
    const updates = login.calls.filter((c) => c.action === 'update').map((c) => c.req);
    assert.equal(updates[0]!.desiredState.Password, PASSWORD2);
    assert.equal(updates[0]!.previousState!.Password, PASSWORD);
    assert.deepEqual(updates[1]!.desiredState, { ...desired, Password: PASSWORD2, Note: 'hello' });
    assert.deepEqual(updates[1]!.previousState, { ...desired, Password: PASSWORD2 });

    // Failures that quote the secrets: masked in what is kept, answered and logged.
    const failed = await waitDone(`${L}/a?wait=10`, 'PATCH', {
      patchDocument: [{ op: 'replace', path: '/Note', value: 'fail' }],
    });
    assert.equal(failed.errorCode, 'InvalidCredentials');
    assert.equal(failed.statusMessage, 'password *** was refused');
    const thrown = await waitDone(`${L}/a?wait=10`, 'PATCH', {
      patchDocument: [{ op: 'replace', path: '/Note', value: 'throw' }],
    });
    assert.equal(thrown.errorCode, 'HandlerInternalFailure');
    assert.match(thrown.statusMessage, /cannot connect as \*\*\*/);

    // A patch can set write-only values but not read them: no copying one where reads show it, no guessing.
    for (const operation of [
      { op: 'copy', from: '/Password', path: '/Note' },
      { op: 'move', from: '/Creds', path: '/Note' },
      { op: 'copy', from: '/Users/0/Pin', path: '/Note' },
      { op: 'test', path: '/Password', value: PASSWORD2 },
      { op: 'test', path: '/Users', value: [] },
    ]) {
      const refused = await call('PATCH', `${L}/a`, { patchDocument: [operation] });
      assert.equal(refused.status, 400, JSON.stringify(operation));
      assert.match(refused.body.message, /a patch cannot read write-only values/);
    }

    // Reads and lists show the rest of the model only.
    const read = await call('GET', `${L}/a`);
    assert.deepEqual(read.body.properties, {
      Name: 'a',
      Note: 'hello',
      Users: [{ User: 'u1' }, { User: 'u2' }],
      Creds: { Region: 'eu' },
    });
    const readReq = login.calls.filter((c) => c.action === 'read').at(-1)!.req as HandlerRequest;
    assert.equal(readReq.desiredState.Password, PASSWORD2, 'a read handler is handed the recorded model');
    const list = await call('GET', L);
    assert.deepEqual(list.body.resourceDescriptions[0].properties, read.body.properties);

    // The state provider's types: the record is all there is.
    const W = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
    const w = await waitDone(`${W}?wait=10`, 'POST', { desiredState: { Name: 'w1', Secret: WIDGET_SECRET } });
    assert.equal(w.operationStatus, 'SUCCESS');
    const w2 = await waitDone(`${W}/w1?wait=10`, 'PATCH', {
      patchDocument: [{ op: 'replace', path: '/Secret', value: WIDGET_SECRET2 }],
    });
    assert.equal(w2.operationStatus, 'SUCCESS');
    const w3 = await waitDone(`${W}/w1?wait=10`, 'PATCH', {
      patchDocument: [{ op: 'add', path: '/Color', value: 'red' }],
    });
    assert.equal(w3.operationStatus, 'SUCCESS');
    await call('GET', `${W}/w1`);
    await call('GET', W);
    const N = `/v1/resources/${encodeURIComponent(NOTES)}`;
    const n = await waitDone(`${N}?wait=10`, 'POST', {
      desiredState: { name: 'n1', text: 't', apiKey: API_KEY },
    });
    assert.equal(n.operationStatus, 'SUCCESS', JSON.stringify(n));
    const note = await call('GET', `${N}/n1`);
    assert.deepEqual(note.body.properties, { name: 'n1', text: 't' }, JSON.stringify(note.body));

    // Every request, listed and one by one.
    const requests = await call('GET', '/v1/requests?maxResults=100');
    assert.ok(requests.body.progressEvents.length >= 9);
    for (const event of requests.body.progressEvents) await call('GET', `/v1/requests/${event.requestToken}`);

    // The engine keeps the secrets, sealed: they open with the key file.
    const sealer = createSealer(
      Buffer.from(readFileSync(join(dataDir, 'secret.key'), 'utf8').trim(), 'base64'),
    );
    const { openResource } = await import('../../src/engine/sealing.js');
    const widget = (await svc.store.getResource(WIDGET_TYPE, 'w1'))!;
    assert.equal(widget.properties.Secret, undefined);
    assert.deepEqual(openResource(sealer, widget), {
      Name: 'w1',
      Size: 'S',
      Secret: WIDGET_SECRET2,
      Color: 'red',
    });

    // Delete hands the provider the whole recorded model too.
    const deleted = await waitDone(`${L}/a?wait=10`, 'DELETE', undefined);
    assert.equal(deleted.operationStatus, 'SUCCESS');
    assert.equal(login.calls.filter((c) => c.action === 'delete')[0]!.req.desiredState.Password, PASSWORD2);

    // The store as it is while running: the WAL holds the latest writes.
    if (schema) {
      const rows = await postgresRows(schema);
      assert.ok(rows.includes('w1') && rows.length > 1000, 'the rows were read');
      assertNoSecret(`PostgreSQL schema ${schema} (running)`, rows);
    }
    for (const suffix of ['', '-wal', '-shm']) {
      if (schema) break;
      const file = join(dataDir, `typeplane.db${suffix}`);
      if (!existsSync(file)) continue;
      if (suffix === '-wal') walSeen = readFileSync(file).length > 0;
      assertNoSecret(`typeplane.db${suffix} (running)`, readFileSync(file));
    }
  } finally {
    await svc.close();
  }
  if (schema) {
    assert.ok(!existsSync(join(dataDir, 'typeplane.db')), 'the PostgreSQL store writes no SQLite file');
    assertNoSecret(`PostgreSQL schema ${schema}`, await postgresRows(schema));
    // Every version of every row, not only those left at the end.
    const versions = await rowVersions!();
    for (const table of ['resources', 'operations'])
      assert.ok(
        versions.includes(`${table} INSERT`) && versions.includes(`${table} UPDATE`),
        `${table}: inserts and updates were captured`,
      );
    assert.ok(versions.includes('"w1"'), 'the captured rows hold the models written');
    assertNoSecret(`a version of a row written to PostgreSQL schema ${schema}`, versions);
  } else {
    assert.ok(walSeen, 'the WAL was looked at while it held data');
    const db = new Database(join(dataDir, 'typeplane.db'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    for (const suffix of ['', '-wal', '-shm']) {
      const file = join(dataDir, `typeplane.db${suffix}`);
      if (existsSync(file)) assertNoSecret(`typeplane.db${suffix}`, readFileSync(file));
    }
  }
  const logs = readFileSync(logFile, 'utf8');
  assert.ok(logs.includes('"reqId"'), 'request logs were written');
  assert.ok(
    logs.split('\n').some((line) => line.includes('handler threw') && line.includes('cannot connect as ***')),
    'the thrown error was logged, masked',
  );
  assertNoSecret('the log', logs);
  assert.ok(bodies.length > 20);
  for (const body of bodies) assertNoSecret('an API answer', body);
}
