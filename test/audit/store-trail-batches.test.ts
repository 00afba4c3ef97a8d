/**
 * The store's trail is written in batches, never a commit per request: with the trail on, a create
 * costs the SQLite store the same statements and one transaction as with it off, and the records of
 * many creates are appended later in one transaction. Its buffer is bounded: once all but its
 * reserve is taken, a change waits for room and, none coming, is refused (429 Throttling) before it
 * changes anything, its refusal recorded in the reserve; past the whole buffer a record is dropped
 * and counted, and the buffer never holds more (a trail whose store is down, real SQLite).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ServiceOptions } from '../../src/service.js';
import { openSqliteStore } from '../../src/store/index.js';
import { operationEndEvent, StoreTrail } from '../../src/audit/index.js';
import { startTestService, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { isCountsSql, meterStatements, type StatementTally } from '../helpers/sqlite-meter.js';
import { scrape, total } from '../telemetry/scrape.js';

const N = 8;

/** Per create, the statements and transactions it ran, on a server with `audit` settings. */
async function creates(
  audit: ServiceOptions['audit'],
): Promise<{ each: StatementTally[]; after: StatementTally }> {
  const dataDir = tempDir('typeplane-trail-batches-');
  const meter = meterStatements(join(dataDir, 'typeplane.db'), new Set());
  const svc = await startTestService({ dataDir, pollIntervalMs: 3_600_000, ...(audit ? { audit } : {}) });
  try {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    // The first create fills caches (the type's stamp): not what each costs.
    const create = async (name: string) => {
      const answer = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
        desiredState: { Name: name, Color: 'red' },
      });
      assert.equal(answer.body?.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(answer.body));
    };
    await create('warm');
    meter.take();
    const each: StatementTally[] = [];
    for (let i = 0; i < N; i++) {
      await create(`w${i}`);
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      each.push(meter.take());
    }
    await svc.close();
    return { each, after: meter.take() };
  } finally {
    await svc.close();
    meter.stop();
  }
}

const auditWrites = (t: StatementTally) =>
  t.log.filter((sql) => /audit_records/.test(sql) && /^INSERT/.test(sql));

/** How many of the transactions in `t` wrote to a table `table` matches. */
function transactionsWriting(t: StatementTally, table: RegExp): number {
  let writing = 0;
  let written = false;
  for (const sql of t.log) {
    if (/^BEGIN/.test(sql)) written = false;
    else if (/^(INSERT|UPDATE|DELETE)/.test(sql) && table.test(sql)) written = true;
    else if (/^COMMIT/.test(sql) && written) writing++;
  }
  return writing;
}

/** Whether a statement only serves the counts (their changes applied, or data_version read for them). */
const countsOnly = (sql: string) => isCountsSql(sql) || /^(PRAGMA data_version|SAVEPOINT|RELEASE)/.test(sql);

/** The statements of `t` grouped by transaction (a statement outside any is a group of its own). */
function transactions(t: StatementTally): string[][] {
  const groups: string[][] = [];
  let open: string[] | undefined;
  for (const sql of t.log) {
    if (/^BEGIN/.test(sql)) groups.push((open = [sql]));
    else if (open) {
      open.push(sql);
      if (/^(COMMIT|ROLLBACK)/.test(sql)) open = undefined;
    } else groups.push([sql]);
  }
  return groups;
}

/**
 * A create's statements but the API token's lookup (the token is kept a second, so on a loaded
 * machine a create now and then reads it again, with the trail on or off alike) and the counts'
 * (their changes are applied in a transaction of their own when a timer says so, which on a loaded
 * machine falls inside one create's window or another's).
 */
const ownStatements = (t: StatementTally) =>
  transactions(t)
    .filter((group) => !group.filter((sql) => !/^(BEGIN|COMMIT|ROLLBACK)/.test(sql)).every(countsOnly))
    .flat()
    .filter(
      (sql) =>
        sql !== 'SELECT … FROM kv WHERE namespace = ? AND key = ?' &&
        !/^(BEGIN|COMMIT)/.test(sql) &&
        !isCountsSql(sql),
    );

/** The transactions in `t` that did more than apply the counts' changes (isCountsSql). */
function ownTransactions(t: StatementTally): number {
  let own = 0;
  let doesMore = false;
  for (const sql of t.log) {
    if (/^BEGIN/.test(sql)) doesMore = false;
    else if (/^COMMIT/.test(sql)) own += doesMore ? 1 : 0;
    else if (!countsOnly(sql)) doesMore = true;
  }
  return own;
}

test('a create gets no audit commit of its own: the records are appended in one batch', async () => {
  const off = await creates(undefined);
  // A batch is written at most every minute here: every record waits for the close.
  const on = await creates({ store: true, batch: { maxWaitMs: 60_000 } });
  for (let i = 0; i < N; i++) {
    assert.equal(
      auditWrites(on.each[i]!).length,
      0,
      `create ${i} wrote to the trail: ${on.each[i]!.log.join(' | ')}`,
    );
    assert.deepEqual(
      ownStatements(on.each[i]!),
      ownStatements(off.each[i]!),
      `create ${i}: ${on.each[i]!.log.join(' | ')}`,
    );
    assert.equal(ownTransactions(on.each[i]!), ownTransactions(off.each[i]!));
    assert.equal(ownTransactions(on.each[i]!), 1, `create ${i}: ${on.each[i]!.log.join(' | ')}`);
  }
  // The type's registration, the warm-up create and the N measured ones (each its request and its
  // operation's end): one transaction for all.
  assert.equal(auditWrites(on.after).length, 2 * N + 3, on.after.log.join(' | '));
  // (The close also applies the resource counts' changes, in a transaction of their own.)
  assert.equal(transactionsWriting(on.after, /audit_records/), 1, on.after.log.join(' | '));
});

test('a full buffer holds changes back and refuses them before they run; past it a record is dropped and counted', async () => {
  const svc = await startTestService({
    audit: { store: true, batch: { maxWaitMs: 60_000, bufferSize: 4, reserve: 2, admitTimeoutMs: 300 } },
  });
  try {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const first = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
      desiredState: { Name: 'a' },
    });
    assert.equal(first.status, 202);
    // Three records wait in the buffer (the create's request and its operation's end are two): the
    // next change is held, then refused, and is not made.
    const refused = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
      desiredState: { Name: 'b' },
    });
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.errorCode, 'Throttling');
    assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/b`)).status, 404);
    // Reads are not held.
    assert.equal((await svc.call('GET', `/v1/resources/${WIDGET_TYPE}/a`)).status, 200);
    // The buffer is full now (four records): the next refusal's record is dropped, and counted.
    const again = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
      desiredState: { Name: 'c' },
    });
    assert.equal(again.status, 429);
    const metrics = await scrape(svc);
    assert.equal(total(metrics, 'typeplane_audit_records_dropped_total'), 1);
  } finally {
    await svc.close();
  }
  // Every record, the refusal's included, was stored on close.
  const store = await openSqliteStore(join(svc.dataDir, 'typeplane.db'));
  const stored = await store.listAuditRecords({}, { limit: 10 }).finally(() => store.close());
  assert.deepEqual(
    stored.items.map((r) => JSON.parse(r).responseStatus.code),
    [429, 202, 200, 201],
  );
});

test('the buffer never holds more than its size: past it a record is dropped and counted, the rest stored', async () => {
  const store = await openSqliteStore(join(tempDir('typeplane-trail-full-'), 'typeplane.db'));
  let down = true;
  const errors: string[] = [];
  const trail = new StoreTrail({
    store: {
      appendAuditRecords: (entries, link) =>
        down ? Promise.reject(new Error('the store is down')) : store.appendAuditRecords(entries, link),
      listAuditRecords: (filter, options) => store.listAuditRecords(filter, options),
      expireAuditRecords: (before) => store.expireAuditRecords(before),
    },
    key: Buffer.alloc(32, 7),
    maxWaitMs: 5,
    bufferSize: 10,
    admitTimeoutMs: 50,
    onError: (e) => errors.push(String(e)),
  });
  try {
    // A tenth of the buffer is kept for what is under way: changes wait from the ninth record on.
    for (let i = 0; i < 8; i++) trail.append(operationEnd(i));
    assert.equal(trail.admit(), undefined, 'room for a change');
    trail.append(operationEnd(8));
    await assert.rejects(trail.admit()!, /the audit trail is behind/);
    // Ends of operations in flight keep coming while the store is down: the buffer stops at 10.
    for (let i = 9; i < 30; i++) trail.append(operationEnd(i));
    assert.equal(trail.waiting, 10);
    assert.equal(trail.dropped, 20);
    assert.ok(
      errors.some((e) => /buffer is full \(10 records .*dropped, 1 so far/.test(e)),
      errors.join('\n'),
    );
    down = false;
    await trail.close();
    const stored = await store.listAuditRecords({}, { limit: 100 });
    assert.deepEqual(
      stored.items.map((r) => JSON.parse(r).objectRef.requestToken).reverse(),
      Array.from({ length: 10 }, (_, i) => `op-${i}`),
      'the first ten, in order; none of those dropped',
    );
  } finally {
    await store.close();
  }
});

/** The record of the `i`th operation's end. */
function operationEnd(i: number) {
  return operationEndEvent(
    {
      typeName: WIDGET_TYPE,
      operation: 'CREATE',
      status: 'SUCCESS',
      requestToken: `op-${i}`,
      startedAt: new Date().toISOString(),
      eventTime: new Date().toISOString(),
    },
    'Metadata',
  );
}
