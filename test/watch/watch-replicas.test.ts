/**
 * Two servers on one PostgreSQL database: a watch on one sees what is done through the other within a
 * second (the change log is the truth; LISTEN/NOTIFY wakes the reader), and a request watch follows
 * an operation to its end.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceOn } from '../helpers/each-store.js';
import { PG_URL, pgQuery, pgSkip } from '../helpers/postgres.js';
import { startTestService, WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { openWatch } from '../helpers/watch-client.js';

const T = encodeURIComponent(WIDGET_TYPE);

test(
  'a watch on one replica sees a change made through another within a second, also after its listening connection dropped',
  { skip: pgSkip },
  async (t) => {
    // Polls far apart: only the notification can deliver within the second.
    const secretKey = randomBytes(32).toString('base64');
    const one = await serviceOn(t, 'postgresql', { secretKey, watch: { pollMs: 5_000 } });
    const other = await startTestService({
      database: { url: PG_URL, schema: one.schema! },
      adminToken: one.token,
      secretKey,
    });
    t.after(() => other.close());
    assert.equal(
      (await one.call('POST', '/v1/types', WIDGET, { 'content-type': 'application/json' })).status,
      201,
    );
    const from = (await one.call('GET', `/v1/resources/${T}`)).body.resourceVersion as string;
    const watch = await openWatch(
      one.url,
      `/v1/resources/${T}?watch=true&resourceVersion=${from}`,
      one.token,
    );
    const requests = await openWatch(one.url, `/v1/requests?watch=true&resourceVersion=${from}`, one.token);
    // Let the first replica's reader settle on its listening connection.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const name of ['far1', 'far2', 'after-reconnect']) {
      if (name === 'after-reconnect') {
        // The listening connection is dropped (as a database restart drops it): it connects again.
        const listening = await pgQuery<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE query = $1`,
          [`LISTEN typeplane_changes_${one.schema!}`],
        );
        assert.equal(listening.length, 1);
        await pgQuery('SELECT pg_terminate_backend($1)', [listening[0]!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      }
      const made = await other.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: name } });
      assert.equal(made.body.progressEvent.operationStatus, 'SUCCESS');
      const committed = performance.now();
      const event = await watch.next((e) => e.type === 'ADDED' && e.object.identifier === name, 5_000);
      const took = performance.now() - committed;
      assert.ok(took < 1_000, `delivered ${Math.round(took)} ms after the commit`);
      assert.equal(event.object.typeName, WIDGET_TYPE);
      const request = await requests.next((e) => e.object.identifier === name, 5_000);
      assert.equal(request.object.operationStatus, 'SUCCESS');
    }
    watch.close();
    requests.close();
  },
);
