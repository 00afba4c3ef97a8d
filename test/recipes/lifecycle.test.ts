/**
 * A recipe-backed type over real HTTP: the Radius design's sample type gets a recipe, and creating,
 * reading, updating, listing and deleting an instance make, show, change and remove the resources
 * the recipe makes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { BOX, BOX_TYPE, LOGIN, LOGIN_TYPE, RECIPE, SAMPLE_MANIFEST, SAMPLE_TYPE } from './fixtures.js';

let s: TestService;
const enc = encodeURIComponent;

before(async () => {
  s = await startTestService();
  for (const doc of [BOX, LOGIN, SAMPLE_MANIFEST]) {
    const r = await s.call('POST', '/v1/types', doc, {
      'content-type': doc.startsWith('{') ? 'application/json' : 'application/yaml',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
});
after(() => s.close());

test('registering a recipe for the sample type, then creating an instance, makes its resources and fills status.binding', async () => {
  const reg = await s.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  assert.equal(reg.body.recipe.version, 1);
  assert.deepEqual(reg.body.recipe.types.sort(), [BOX_TYPE, LOGIN_TYPE].sort());

  const created = await s.call('POST', `/v1/resources/${enc(SAMPLE_TYPE)}`, {
    desiredState: { name: 'orders', size: 'L' },
  });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const done = await settle(s, created.body.progressEvent.requestToken, 20_000);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));

  const read = await s.call('GET', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const props = read.body.resourceDescription?.properties ?? read.body.properties;
  assert.equal(props.status.binding.hostname, 'default.db.internal');
  assert.equal(props.status.binding.username, 'orders_user');
  assert.equal(props.status.binding.secret, 'orders_db/password');
  assert.deepEqual(props.status.recipe, {
    templateKind: 'cloudformation',
    templatePath: 'recipe.yaml',
    templateVersion: '1',
  });

  const db = await s.call('GET', `/v1/resources/${enc(BOX_TYPE)}/orders_db`);
  assert.equal(db.status, 200, JSON.stringify(db.body));
});

test('a deleted recipe makes no new instance, leaves the instances it made working, and registered again numbers on', async () => {
  const path = `/v1/recipes/default/${enc(SAMPLE_TYPE)}/default`;
  assert.equal((await s.call('DELETE', path)).status, 204);
  assert.equal((await s.call('DELETE', path)).status, 404, 'deleted once');
  assert.equal((await s.call('GET', path)).status, 404);

  const refused = await s.call('POST', `/v1/resources/${enc(SAMPLE_TYPE)}`, {
    desiredState: { name: 'later', size: 'S' },
  });
  const failed = await settle(s, refused.body.progressEvent.requestToken, 20_000);
  assert.equal(failed.operationStatus, 'FAILED');
  assert.equal(failed.errorCode, 'InvalidRequest');
  assert.match(
    failed.statusMessage,
    /environment default has no recipe default for MyCompany\.Resources\/postgresDatabases/,
  );

  // The instance version 1 made keeps working: an update runs the version it has.
  const patched = await s.call('PATCH', `/v1/resources/${enc(SAMPLE_TYPE)}/orders`, {
    patchDocument: [{ op: 'replace', path: '/size', value: 'XL' }],
  });
  assert.equal(patched.status, 202, JSON.stringify(patched.body));
  assert.equal((await settle(s, patched.body.progressEvent.requestToken, 20_000)).operationStatus, 'SUCCESS');

  const again = await s.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  assert.equal(again.status, 201, JSON.stringify(again.body));
  assert.equal(again.body.recipe.version, 2, 'numbered on from where it was, never over version 1');
  const v1 = await s.call('GET', `${path}?version=1`);
  assert.equal(v1.status, 200, 'version 1 is still there');
});
