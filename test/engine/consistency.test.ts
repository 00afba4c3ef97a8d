import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkConsistency, type ConsistencyProblem } from '../../src/engine/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { WIDGET, WIDGET_TYPE, settle, startTestService } from '../helpers/service.js';

const T = encodeURIComponent(WIDGET_TYPE);

/** A store file written by a real server: three widgets, one updated, one deleted. */
async function populatedStore(): Promise<string> {
  const svc = await startTestService();
  try {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    for (const Name of ['alpha', 'beta', 'gamma']) {
      const res = await svc.call('POST', `/v1/resources/${T}`, {
        desiredState: { Name, Color: 'red', Secret: 's3cret', Labels: ['a'] },
      });
      assert.equal((await settle(svc, res.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
    }
    const update = await svc.call('PATCH', `/v1/resources/${T}/beta`, {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'blue' }],
    });
    await settle(svc, update.body.progressEvent.requestToken);
    const removal = await svc.call('DELETE', `/v1/resources/${T}/gamma`);
    await settle(svc, removal.body.progressEvent.requestToken);
  } finally {
    await svc.close();
  }
  return join(svc.dataDir, 'typeplane.db');
}

async function check(file: string): Promise<ConsistencyProblem[]> {
  const store = await openSqliteStore(file);
  try {
    return await checkConsistency(store);
  } finally {
    await store.close();
  }
}

/** Runs SQL on the file directly, as a bug or a hand edit would. */
function corrupt(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** The invariants broken, each once. */
const checks = (problems: ConsistencyProblem[]) => [...new Set(problems.map((p) => p.check))].sort();

test('a store written by the engine is consistent', async () => {
  assert.deepEqual(await check(await populatedStore()), []);
});

test('resource rows that break the schema or mismatch their identifier are reported', async () => {
  const file = await populatedStore();
  corrupt(
    file,
    `UPDATE resources SET properties_json = ? WHERE identifier = 'alpha'`,
    JSON.stringify({ Name: 'alpha', Count: 'many', Color: null }),
  );
  corrupt(
    file,
    `UPDATE resources SET properties_json = ? WHERE identifier = 'beta'`,
    JSON.stringify({ Name: 'someone-else' }),
  );
  const problems = await check(file);
  assert.deepEqual(checks(problems), ['resource-identifier', 'resource-schema']);
  const schema = problems.filter((p) => p.check === 'resource-schema');
  assert.deepEqual(schema.map((p) => [p.identifier, p.message.split(' ')[0]]).sort(), [
    ['alpha', '/Color'],
    ['alpha', '/Count'],
  ]);
  assert.equal(problems.find((p) => p.check === 'resource-identifier')!.identifier, 'beta');
});

test('a references index entry to a missing resource is reported', async () => {
  const file = await populatedStore();
  corrupt(
    file,
    `INSERT INTO resource_refs (from_type, from_id, to_type, to_id) VALUES (?, 'alpha', ?, 'gamma')`,
    WIDGET_TYPE,
    WIDGET_TYPE,
  );
  const problems = await check(file);
  assert.deepEqual(checks(problems), ['reference-dangling']);
  assert.match(problems[0]!.message, /gamma, which does not exist/);
});

test('two active operations on one resource, unknown statuses and codes, orphan operations are reported', async () => {
  const file = await populatedStore();
  const insert = (
    token: string,
    type: string,
    identifier: string,
    status: string,
    errorCode: string | null,
  ) =>
    corrupt(
      file,
      `INSERT INTO operations (request_token, type_name, identifier, operation, status, event_time, error_code,
         request_json, started_at, deadline_at)
       VALUES (?, ?, ?, 'UPDATE', ?, '2026-01-01T00:00:00.000Z', ?, '{}', '2026-01-01T00:00:00.000Z',
         '2099-01-01T00:00:00.000Z')`,
      token,
      type,
      identifier,
      status,
      errorCode,
    );
  // The store's unique index forbids the second active operation; a store without it must be caught.
  corrupt(file, 'DROP INDEX operations_one_active');
  insert('op-1', WIDGET_TYPE, 'alpha', 'IN_PROGRESS', null);
  insert('op-2', WIDGET_TYPE, 'alpha', 'PENDING', null);
  insert('op-3', WIDGET_TYPE, 'beta', 'EXPLODED', null);
  insert('op-4', WIDGET_TYPE, 'beta', 'FAILED', 'Bogus');
  insert('op-5', 'Test::Gone::Type', 'x', 'PENDING', null);
  const problems = await check(file);
  assert.deepEqual(checks(problems), [
    'operation-concurrent',
    'operation-error-code',
    'operation-status',
    'operation-type',
  ]);
  assert.match(problems.find((p) => p.check === 'operation-concurrent')!.message, /op-[12]/);
  assert.equal(problems.find((p) => p.check === 'operation-type')!.requestToken, 'op-5');
});
