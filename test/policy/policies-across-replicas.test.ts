/**
 * Two replicas over one PostgreSQL store: a policy registered on one is in force there at once and on
 * the other within about a second (it reads the policies' generation stamp at most once a second),
 * and a deleted one stops being so the same way.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { api, startTestService, WIDGET, WIDGET_TYPE, type Api } from '../helpers/service.js';

const NO_RED = {
  name: 'no-red',
  match: { types: ['*'], operations: ['CREATE'] },
  validations: [{ expression: "!has(object.Color) || object.Color != 'red'" }],
  action: 'Deny',
};

/** The status a red create gets, polled until it is `want` (within `ms`). */
async function until(client: Api, want: number, ms: number): Promise<number> {
  const started = Date.now();
  for (let i = 0; ; i++) {
    const r = await client.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
      desiredState: { Name: `r${Date.now()}-${i}`, Color: 'red' },
    });
    if (r.status === want) return Date.now() - started;
    assert.ok(Date.now() - started < ms, `still ${r.status} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a policy is in force on every replica within about a second', { skip: pgSkip }, async (t) => {
  const schema = freshSchema(t, 'tp_policy');
  const secretKey = randomBytes(32).toString('base64');
  const a = await startTestService({ database: { url: PG_URL, schema }, secretKey });
  t.after(() => a.close());
  const b = await startTestService({ database: { url: PG_URL, schema }, secretKey, adminToken: a.token });
  t.after(() => b.close());
  const onB = api(b.url, a.token);
  assert.equal((await a.call('POST', '/v1/types', WIDGET)).status, 201);
  assert.equal((await until(onB, 202, 3000)) >= 0, true, 'no policy yet: created');
  assert.equal((await a.call('POST', '/v1/policies', NO_RED)).status, 201);
  const atOnce = await a.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
    desiredState: { Name: 'x1', Color: 'red' },
  });
  assert.equal(atOnce.status, 403, 'in force at once where it was registered');
  assert.ok((await until(onB, 403, 2500)) <= 2000, 'in force on the other replica within a second or so');
  assert.equal((await onB.call('DELETE', '/v1/policies/no-red')).status, 204);
  assert.ok((await until(a, 202, 2500)) <= 2000);
});
