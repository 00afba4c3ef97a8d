/**
 * An operation keeps its request (the desired state, up to 1 MB) only while its handlers may still
 * be called: once it has ended it keeps its outcome, for the client token's seven days, and not a
 * second copy of what was asked. Read from the SQLite file itself.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { WIDGET, WIDGET_TYPE, settle, startTestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';

test('an ended operation keeps its outcome and client token, not its request; a running one keeps its request', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const provider = memoryProvider({
    create: async (req, store) => {
      if (req.desiredState.Name === 'held') await gate;
      const key = String(req.desiredState.Name);
      if (store.has(key)) return { status: 'FAILED', errorCode: 'AlreadyExists' };
      store.set(key, req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  const svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  after(() => {
    release();
    return svc.close();
  });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const db = new Database(join(svc.dataDir, 'typeplane.db'), { readonly: true });
  after(() => db.close());
  const row = (token: string) =>
    db
      .prepare<[string], { request_json: string; resource_model_json: string | null; status: string }>(
        'SELECT request_json, resource_model_json, status FROM operations WHERE request_token = ?',
      )
      .get(token)!;

  const T = encodeURIComponent(WIDGET_TYPE);
  const big = 'c'.repeat(200_000);
  const body = { desiredState: { Name: 'big', Color: big }, clientToken: 'ct-big' };
  const created = await svc.call('POST', `/v1/resources/${T}`, body);
  const token = created.body.progressEvent.requestToken as string;
  assert.equal((await settle(svc, token)).operationStatus, 'SUCCESS');
  const ended = row(token);
  assert.equal(ended.request_json, '{}');
  assert.ok(ended.resource_model_json!.includes(big), 'the outcome is kept');
  const event = await svc.call('GET', `/v1/requests/${token}`);
  assert.equal(event.body.progressEvent.resourceModel.Color, big);

  // The client token still answers as before: the same request replays, another is refused.
  const replayed = await svc.call('POST', `/v1/resources/${T}`, body);
  assert.equal(replayed.body.progressEvent.requestToken, token);
  const other = await svc.call('POST', `/v1/resources/${T}`, { ...body, desiredState: { Name: 'big' } });
  assert.equal(other.status, 400);
  assert.match(other.body.message, /clientToken/);

  // A failed one too.
  const again = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'big', Color: big } });
  const failed = await settle(svc, again.body.progressEvent.requestToken);
  assert.equal(failed.operationStatus, 'FAILED');
  assert.equal(row(again.body.progressEvent.requestToken).request_json, '{}');

  // While its handler runs, an operation keeps its request (a restart would call the handler again).
  const held = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'held', Color: big } });
  const heldToken = held.body.progressEvent.requestToken as string;
  const running = row(heldToken);
  assert.notEqual(running.request_json, '{}');
  assert.ok(running.request_json.length > 200_000);
  release();
  assert.equal((await settle(svc, heldToken)).operationStatus, 'SUCCESS');
  assert.equal(row(heldToken).request_json, '{}');
});
