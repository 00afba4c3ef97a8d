/**
 * A type cannot be deregistered while any of its operations has not ended (409 naming one), on both
 * stores, over HTTP: its provider may already have made what only it could find and remove again.
 * Once the operation ends and its resource is deleted, deregistering works.
 */
import assert from 'node:assert/strict';
import { it, type TestContext } from 'node:test';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';
import { memoryProvider } from '../helpers/providers.js';
import type { ServiceOptions } from '../../src/service.js';

const W = encodeURIComponent(WIDGET_TYPE);

const STORES: [string, false | string, (t: TestContext) => Partial<ServiceOptions>][] = [
  ['SQLite', false, () => ({})],
  ['PostgreSQL', pgSkip, (t) => ({ database: { url: PG_URL, schema: freshSchema(t) } })],
];

for (const [store, skip, options] of STORES) {
  it(
    `${store}: deregistering a type while its create runs is 409, then allowed once it has ended`,
    { skip },
    async (t) => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const provider = memoryProvider({
        create: async (req, kept) => {
          await gate;
          kept.set(String(req.desiredState.Name), req.desiredState);
          return { status: 'SUCCESS', resourceModel: req.desiredState };
        },
      });
      const svc: TestService = await startTestService({
        ...options(t),
        providers: new Map([[WIDGET_TYPE, provider]]),
      });
      t.after(() => svc.close());
      assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
      const started = await svc.call('POST', `/v1/resources/${W}`, { desiredState: { Name: 'w1' } });
      assert.equal(started.status, 202);
      const token = started.body.progressEvent.requestToken as string;

      const refused = await svc.call('DELETE', `/v1/types/${W}`);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.errorCode, 'ResourceConflict');
      assert.match(refused.body.message, /not ended/);
      assert.equal(refused.body.details[0].requestToken, token);
      assert.equal((await svc.call('GET', `/v1/types/${W}`)).status, 200, 'the type is still registered');

      release();
      assert.equal((await settle(svc, token)).operationStatus, 'SUCCESS');
      assert.equal(provider.store.has('w1'), true);
      // Its resource still exists: the existing rule holds.
      assert.equal((await svc.call('DELETE', `/v1/types/${W}`)).status, 409);
      const deleted = await svc.call('DELETE', `/v1/resources/${W}/w1?wait=5`);
      assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS');
      assert.equal((await svc.call('DELETE', `/v1/types/${W}`)).status, 204);
    },
  );
}
