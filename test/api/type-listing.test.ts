/**
 * `GET /v1/types` lists each type's default version as it is now: a listing after a new version, a
 * default moved back, or a type removed shows the change at once, though listings reuse what they
 * read before.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

const TYPE = 'Test::Listing::Thing';
const schema = (description: string, extra: Record<string, unknown> = {}) => ({
  typeName: TYPE,
  description,
  properties: { Name: { type: 'string' }, ...extra },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  required: ['Name'],
});

async function listed(): Promise<{ typeName: string; version: string; description: string } | undefined> {
  const res = await svc.call('GET', '/v1/types');
  assert.equal(res.status, 200);
  return res.body.types.find((t: { typeName: string }) => t.typeName === TYPE);
}

test('a listing follows new versions, a moved default and removal at once', async () => {
  assert.equal((await svc.call('POST', '/v1/types', schema('First.'))).status, 201);
  assert.deepEqual(
    { ...(await listed()) },
    { ...(await listed()), typeName: TYPE, version: '1', description: 'First.' },
  );

  const second = schema('Second.', { Color: { type: 'string' } });
  assert.equal((await svc.call('POST', '/v1/types', second)).status, 201);
  assert.equal((await listed())?.version, '2');
  assert.equal((await listed())?.description, 'Second.');

  const moved = await svc.call('PUT', `/v1/types/${encodeURIComponent(TYPE)}/default-version`, {
    version: '1',
  });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  assert.equal((await listed())?.version, '1');
  assert.equal((await listed())?.description, 'First.');

  assert.equal((await svc.call('DELETE', `/v1/types/${encodeURIComponent(TYPE)}`)).status, 204);
  assert.equal(await listed(), undefined);
});
