/**
 * Queue depth, lease takeovers and the store's metrics over real HTTP, on each store: operations due
 * (waiting for a handler slot) and in progress (running, or waiting out a callback delay) by type; an
 * operation whose lease ran out under a worker that is gone counted as taken over; write
 * transactions timed; SQLite's WAL size and checkpoints, PostgreSQL's pool.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { eachStoreService } from '../helpers/each-store.js';
import { memoryProvider } from '../helpers/providers.js';
import { settle, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { promtoolMissing, promtoolProblems, scrape, total } from './scrape.js';

const T = encodeURIComponent(WIDGET_TYPE);
const type = { type_name: WIDGET_TYPE };

let release: () => void = () => undefined;
let held: Promise<void> = Promise.resolve();
let provider: ReturnType<typeof memoryProvider> | undefined;
/** The names the provider's create was called with. */
const calls = () => (provider?.calls ?? []).map((c) => String(c.req.desiredState.Name));

eachStoreService(
  'operations due and in progress, lease takeovers and store transactions are measured',
  async (svc, t, kind) => {
    held = new Promise<void>((resolve) => (release = resolve));
    t.after(() => release());
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const create = async (name: string) => {
      const answer = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: name } });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      return answer.body.progressEvent.requestToken as string;
    };
    const status = async (token: string) =>
      (await svc.call('GET', `/v1/requests/${token}`)).body.progressEvent.operationStatus as string;
    // One waits out a callback delay of an hour; one holds the only handler slot; one is due behind it.
    const waiting = await create('wait-1');
    while (!calls().includes('wait-1') || svc.engine.running().size > 0) await sleep(20);
    await create('hold-1');
    while ((svc.engine.running().get(WIDGET_TYPE) ?? 0) === 0) await sleep(20);
    const due = await create('due-1');
    // And one begun by a worker that is gone, its lease run out.
    const now = new Date();
    const gone = {
      requestToken: `taken-over-${kind}`,
      typeName: WIDGET_TYPE,
      identifier: 'taken-1',
      operation: 'CREATE' as const,
      status: 'IN_PROGRESS' as const,
      eventTime: now.toISOString(),
      request: { desiredState: { Name: 'taken-1' } },
      startedAt: now.toISOString(),
      deadlineAt: new Date(now.getTime() + 3_600_000).toISOString(),
      attempts: 0,
    };
    const begun = await svc.store.beginOperation(gone, undefined, {
      owner: 'worker-gone',
      until: new Date(now.getTime() - 1_000),
    });
    assert.equal(begun.kind, 'started');
    assert.equal(await status(waiting), 'IN_PROGRESS');

    const s = await scrape(svc);
    assert.equal(total(s, 'typeplane_operations_due', type), 2, 'due-1 and the one taken over');
    assert.equal(total(s, 'typeplane_operations_in_progress', type), 2, 'wait-1 and hold-1');
    assert.equal(total(s, 'typeplane_lease_takeovers_total', type), 0);
    assert.ok(total(s, 'typeplane_store_transaction_duration_seconds_count') > 0);
    assert.ok(total(s, 'typeplane_store_transaction_duration_seconds_sum') > 0);
    if (kind === 'sqlite') {
      assert.ok(total(s, 'typeplane_sqlite_wal_bytes') > 0);
      assert.ok(s.families.has('typeplane_sqlite_checkpoints_total'));
      assert.ok(!s.families.has('typeplane_postgresql_pool_connections'));
    } else {
      const used = total(s, 'typeplane_postgresql_pool_connections', { state: 'used' });
      const idle = total(s, 'typeplane_postgresql_pool_connections', { state: 'idle' });
      assert.ok(used + idle >= 1, `used ${used}, idle ${idle}`);
      const waiting = total(s, 'typeplane_postgresql_pool_pending_requests');
      assert.ok(Number.isInteger(waiting) && waiting >= 0, `waiting ${waiting} (used ${used}, idle ${idle})`);
      assert.ok(!s.families.has('typeplane_sqlite_wal_bytes'));
    }
    if (promtoolMissing) t.diagnostic(`promtool check skipped: ${promtoolMissing}`);
    else assert.equal(promtoolProblems(s.text), '');

    // The slot frees: the due one runs, and the one left behind is taken over.
    release();
    assert.equal((await settle(svc, due)).operationStatus, 'SUCCESS');
    assert.equal((await settle(svc, gone.requestToken)).operationStatus, 'SUCCESS');
    assert.equal(total(await scrape(svc), 'typeplane_lease_takeovers_total', type), 1);
  },
  () => ({
    operationConcurrency: { total: 1, perType: 1 },
    providers: new Map([
      [
        WIDGET_TYPE,
        (provider = memoryProvider({
          create: async (request) => {
            const name = String(request.desiredState.Name);
            if (name.startsWith('wait'))
              return { status: 'IN_PROGRESS', callbackDelaySeconds: 3_600, callbackContext: { n: 1 } };
            if (name.startsWith('hold')) await held;
            return { status: 'SUCCESS', resourceModel: request.desiredState };
          },
        })),
      ],
    ]),
  }),
);
