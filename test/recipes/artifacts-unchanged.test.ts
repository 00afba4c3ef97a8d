/**
 * A recipe is implementation, not API: the Bicep, JSON Schema and OpenAPI artifacts of the sample
 * type are byte for byte the same before a recipe is registered for it, after, and once an instance
 * exists.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { exchange } from '../../src/cli/exchange.js';
import { BICEP_FILES } from '../../src/codegen/artifact.js';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { RECIPE, registerSampleTypes, SAMPLE_MANIFEST, SAMPLE_TYPE } from './fixtures.js';

let s: TestService;
const NAMESPACE = 'MyCompany.Resources';

before(async () => {
  s = await startTestService();
  await registerSampleTypes(s);
});
after(() => s.close());

/** The raw text of an artifact, as a client downloads it. */
async function raw(path: string): Promise<string> {
  const answer = await exchange('GET', new URL(s.url + path), { authorization: `Bearer ${s.token}` });
  assert.equal(answer.status, 200, `${path}: ${answer.text}`);
  return answer.text;
}

/** Every artifact that shows the sample type, by path. */
async function artifacts(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of BICEP_FILES) {
    const path = `/v1/artifacts/bicep/${NAMESPACE}/${file}`;
    out.set(path, await raw(path));
  }
  const listed = (await s.call('GET', '/v1/artifacts/json-schema')).body.schemas as { url: string }[];
  for (const { url } of listed) out.set(url, await raw(url));
  out.set('/v1/openapi.json', await raw('/v1/openapi.json'));
  return out;
}

test('the Bicep, JSON Schema and OpenAPI artifacts of a type are the same bytes before and after a recipe is registered for it and an instance made', async () => {
  const before = await artifacts();
  const schemaPath = [...before.keys()].find(
    (p) => p.includes('json-schema/') && p.includes('postgresDatabases'),
  );
  assert.ok(schemaPath, `the sample type has a JSON Schema: ${[...before.keys()].join(', ')}`);
  assert.match(before.get(schemaPath)!, /"size"/);
  assert.match(before.get(`/v1/artifacts/bicep/${NAMESPACE}/types.json`)!, /postgresDatabases/);
  assert.match(before.get('/v1/openapi.json')!, /postgresDatabases/);

  const reg = await s.call('POST', '/v1/recipes', {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  assert.deepEqual(await artifacts(), before, 'registering a recipe changed an artifact');

  const made = await s.call('POST', `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}`, {
    desiredState: { name: 'orders', size: 'L' },
  });
  assert.equal(made.status, 202, JSON.stringify(made.body));
  assert.equal((await settle(s, made.body.progressEvent.requestToken, 20_000)).operationStatus, 'SUCCESS');
  assert.deepEqual(await artifacts(), before, 'an instance made by the recipe changed an artifact');

  // The comparison sees a change of the API: another type in the namespace changes its Bicep.
  const other = SAMPLE_MANIFEST.replace('postgresDatabases:', 'redisCaches:');
  assert.equal(
    (await s.call('POST', '/v1/types', other, { 'content-type': 'application/yaml' })).status,
    201,
  );
  const changed = await artifacts();
  assert.notEqual(
    changed.get(`/v1/artifacts/bicep/${NAMESPACE}/types.json`),
    before.get(`/v1/artifacts/bicep/${NAMESPACE}/types.json`),
  );
});
