/**
 * The end of an asynchronous operation is recorded (stage OperationComplete) as the requester's, by
 * the server that ends it — here not the one that began it: operations begun on one server (answered
 * 202 and recorded then) end on the next one started on the same store, one succeeding, one cancelled
 * there by another token, and each end names the original requester, its request token, type,
 * identifier, terminal status and error code. An operation that fails at once (a delete of nothing)
 * gets its end recorded too. Over real HTTP, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ServiceOptions } from '../../src/service.js';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { memoryProvider } from '../helpers/providers.js';
import { api, settle, startTestService, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { recordsIn, trailUntil } from './helpers.js';

const W = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;

/** Creates take a step and come back a second later; `held` is never ready (until cancelled). */
const provider = () =>
  memoryProvider({
    create: (req, store) => {
      const name = String(req.desiredState.Name);
      if (name === 'held') return { status: 'IN_PROGRESS', callbackDelaySeconds: 3600 };
      if (!req.callbackContext)
        return { status: 'IN_PROGRESS', callbackContext: { step: 1 }, callbackDelaySeconds: 1 };
      store.set(name, req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });

async function endsAcrossServers(t: TestContext, database?: ServiceOptions['database']) {
  const dataDir = tempDir('typeplane-audit-ends-');
  const log = join(dataDir, 'audit.log');
  const shared: Partial<ServiceOptions> = {
    dataDir,
    ...(database ? { database } : {}),
    secretKey: randomBytes(32).toString('base64'),
    adminToken: randomBytes(32).toString('base64url'),
    providers: new Map([[WIDGET_TYPE, provider()]]),
    audit: { store: true, log, batch: { maxWaitMs: 20 } },
  };
  const first = await startTestService(shared);
  let firstOpen = true;
  t.after(() => (firstOpen ? first.close() : undefined));
  assert.equal((await first.call('POST', '/v1/types', WIDGET)).status, 201);
  const made = await first.call('POST', '/v1/tokens', { role: 'writer', description: 'ci deploys' });
  const writer = api(first.url, made.body.token);
  const begun = async (method: string, path: string, body?: unknown) => {
    const answer = await writer.call(method, path, body);
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    return answer.body.progressEvent;
  };
  const w1 = await begun('POST', W, { desiredState: { Name: 'w1' } });
  const held = await begun('POST', W, { desiredState: { Name: 'held' } });
  const ghost = await begun('DELETE', `${W}/ghost`);
  assert.equal(w1.operationStatus, 'IN_PROGRESS');
  assert.equal(ghost.operationStatus, 'FAILED');
  // Stopped before either ends: they stay in the store for the next server to take up.
  await first.close();
  firstOpen = false;

  const second = await startTestService(shared);
  t.after(() => second.close());
  const cancelled = await second.call('POST', `/v1/requests/${held.requestToken}/cancel`);
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.equal((await settle(second, w1.requestToken)).operationStatus, 'SUCCESS');
  assert.equal((await settle(second, held.requestToken)).operationStatus, 'CANCEL_COMPLETE');

  const ends = (records: any[]) => records.filter((r) => r.stage === 'OperationComplete');
  const records = await trailUntil(second, (r) => ends(r).length >= 3);
  const endOf = (token: string) => {
    const found = ends(records).filter((r) => r.objectRef.requestToken === token);
    assert.equal(found.length, 1, `one end recorded for ${token}`);
    return found[0];
  };
  const asker = { tokenId: made.body.id, description: 'ci deploys' };
  const success = endOf(w1.requestToken);
  assert.deepEqual(
    {
      verb: success.verb,
      user: success.user,
      objectRef: success.objectRef,
      responseStatus: success.responseStatus,
      requestURI: success.requestURI,
      sourceIPs: success.sourceIPs,
    },
    {
      verb: 'create',
      user: asker,
      objectRef: {
        resource: 'resources',
        typeName: WIDGET_TYPE,
        identifier: 'w1',
        requestToken: w1.requestToken,
      },
      responseStatus: { code: 200, operationStatus: 'SUCCESS' },
      requestURI: `/v1/requests/${w1.requestToken}`,
      sourceIPs: [],
    },
  );
  // Its request was recorded when answered, by the first server; its end later, by the second.
  const request = records.find(
    (r) => r.stage === 'ResponseComplete' && r.objectRef.requestToken === w1.requestToken,
  );
  assert.equal(request.responseStatus.code, 202);
  assert.ok(request.sequence < success.sequence);
  assert.equal(success.requestReceivedTimestamp, w1.eventTime);
  assert.ok(success.stageTimestamp > success.requestReceivedTimestamp);

  // Cancelled by the admin on the second server: still the writer's operation.
  const cancel = endOf(held.requestToken);
  assert.deepEqual(cancel.user, asker);
  assert.deepEqual(cancel.responseStatus, { code: 200, operationStatus: 'CANCEL_COMPLETE' });
  const failed = endOf(ghost.requestToken);
  assert.equal(failed.verb, 'delete');
  assert.deepEqual(failed.user, asker);
  assert.deepEqual(failed.objectRef.identifier, 'ghost');
  assert.deepEqual(failed.responseStatus, { code: 404, operationStatus: 'FAILED', errorCode: 'NotFound' });

  // The log file holds the same ends: the first server's (ghost) and the second's.
  const logged = recordsIn(log).filter((r) => r.stage === 'OperationComplete');
  assert.deepEqual(
    logged.map((r) => r.objectRef.requestToken).sort(),
    [w1.requestToken, held.requestToken, ghost.requestToken].sort(),
  );
}

test('an operation that ends on another server is recorded as its requester’s [sqlite]', (t) =>
  endsAcrossServers(t));

test(
  'an operation that ends on another server is recorded as its requester’s [postgresql]',
  { skip: pgSkip },
  (t) => endsAcrossServers(t, { url: PG_URL, schema: freshSchema(t, 'tp_audit_ends') }),
);
