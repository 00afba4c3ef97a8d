/**
 * What only the PostgreSQL store has: its schema (created, migrated once, refused when newer),
 * schemas that keep stores apart, and clear errors for bad settings. Skips without a server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openPostgresStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/postgresql/migrations.js';
import { PG_URL, dropSchema, freshSchema, pgQuery, pgSkip } from '../helpers/postgres.js';
import { createResource, storedType } from './fixtures.js';

test(
  'the first open creates the schema at the latest version; reopening keeps data and runs nothing again',
  { skip: pgSkip },
  async (t) => {
    const schema = freshSchema(t);
    const store = await openPostgresStore(PG_URL, { schema });
    await store.putType(storedType('Acme::Test::Thing'));
    await createResource(store, 'kept');
    await store.close();
    const version = async () =>
      (await pgQuery<{ version: number }>(`SELECT version FROM ${schema}.schema_version`)).map(
        (r) => r.version,
      );
    assert.deepEqual(await version(), [MIGRATIONS.length]);

    const reopened = await openPostgresStore(PG_URL, { schema });
    t.after(() => reopened.close());
    assert.deepEqual(await version(), [MIGRATIONS.length]);
    assert.equal((await reopened.getType('Acme::Test::Thing'))?.typeName, 'Acme::Test::Thing');
    assert.equal((await reopened.getResource('Acme::Test::Thing', 'kept'))?.identifier, 'kept');
  },
);

test('a schema written by a newer Typeplane is refused', { skip: pgSkip }, async (t) => {
  const schema = freshSchema(t);
  await (await openPostgresStore(PG_URL, { schema })).close();
  await pgQuery(`UPDATE ${schema}.schema_version SET version = $1`, [MIGRATIONS.length + 1]);
  await assert.rejects(openPostgresStore(PG_URL, { schema }), /newer than this Typeplane knows/);
});

test('stores in two schemas of one database see nothing of each other', { skip: pgSkip }, async (t) => {
  const a = await openPostgresStore(PG_URL, { schema: freshSchema(t) });
  const b = await openPostgresStore(PG_URL, { schema: freshSchema(t) });
  t.after(() => Promise.all([a.close(), b.close()]));
  await createResource(a, 'only-in-a');
  assert.equal(await b.getResource('Acme::Test::Thing', 'only-in-a'), undefined);
  assert.equal(await b.countResources('Acme::Test::Thing'), 0);
  assert.equal(await a.countResources('Acme::Test::Thing'), 1);
});

test('a role that may not create schemas uses one made for it', { skip: pgSkip }, async (t) => {
  const role = `tp_test_role_${randomBytes(4).toString('hex')}`;
  const schema = `${role}_schema`;
  await pgQuery(`CREATE ROLE ${role} LOGIN`);
  await pgQuery(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`);
  t.after(async () => {
    await dropSchema(schema);
    await pgQuery(`DROP ROLE IF EXISTS ${role}`);
  });
  const url = new URL(PG_URL);
  url.username = role;
  url.password = '';
  const store = await openPostgresStore(url.toString(), { schema });
  t.after(() => store.close());
  await createResource(store, 'by-role');
  assert.equal(await store.countResources('Acme::Test::Thing'), 1);
});

test('bad settings are refused with what is wrong, never the password', { skip: pgSkip }, async () => {
  await assert.rejects(
    openPostgresStore(PG_URL, { schema: 'Bad-Name' }),
    /schema name "Bad-Name" is not valid/,
  );
  await assert.rejects(
    openPostgresStore('postgres://someone:hunter2-secret@127.0.0.1:1/test', { connectTimeoutMs: 2000 }),
    (e: Error) => {
      assert.match(
        e.message,
        /cannot open the PostgreSQL store at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/test/,
      );
      assert.doesNotMatch(e.message, /hunter2/);
      return true;
    },
  );
});

test(
  'operations carry the same indexes as in the SQLite store; a version 1 schema is brought to them',
  { skip: pgSkip },
  async (t) => {
    const schema = freshSchema(t);
    // A store made by the first migration only, with an operation in it.
    await pgQuery(`CREATE SCHEMA ${schema}`);
    await pgQuery(
      `SET search_path TO ${schema}; ${MIGRATIONS[0]!}; CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (1)`,
    );
    await pgQuery(
      `INSERT INTO ${schema}.operations (request_token, type_name, identifier, operation, status, event_time, request_json,
         started_at, deadline_at, client_token, request_hash)
       VALUES ('r1', 'Acme::Test::Thing', 'a', 'CREATE', 'SUCCESS', $1, '{}', $1, $1, 'tok-1', 'hash-1')`,
      [new Date().toISOString()],
    );
    const store = await openPostgresStore(PG_URL, { schema });
    t.after(() => store.close());
    const indexes = (
      await pgQuery<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'operations' ORDER BY indexname`,
        [schema],
      )
    ).map((r) => r.indexname);
    assert.deepEqual(indexes, [
      'operations_active',
      'operations_active_by_requester',
      'operations_active_by_type',
      'operations_changes',
      'operations_client_token',
      'operations_one_active',
      'operations_pkey',
      'operations_request_token_key',
    ]);
    const replayed = await store.beginOperation(
      {
        requestToken: 'r2',
        typeName: 'Acme::Test::Thing',
        identifier: 'a',
        operation: 'CREATE',
        status: 'PENDING',
        eventTime: new Date().toISOString(),
        request: {},
        startedAt: new Date().toISOString(),
        deadlineAt: new Date().toISOString(),
        attempts: 0,
        clientToken: 'tok-1',
      },
      'hash-1',
    );
    assert.equal(replayed.kind === 'replayed' && replayed.operation.requestToken, 'r1');
  },
);
