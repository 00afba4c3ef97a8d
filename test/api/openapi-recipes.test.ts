/**
 * The recipe and environment routes answer as GET /v1/openapi.json says: each answer's status is one
 * the document lists for its operation, and its body is valid by the schema given for that status
 * (JSON Schema 2020-12, the document's components in reach) — the views a scoped token gets (a
 * recipe without its types, drift and upgrade changes without the types it does not reach) included.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { api, settle, startTestService, type Api, type TestService } from '../helpers/service.js';
import { RECIPE, registerSampleTypes, SAMPLE_TYPE } from '../recipes/fixtures.js';

// ajv-formats is CommonJS; under `nodenext` its default import is `module.exports`, whose `default` is the plugin.
const addFormats = addFormatsModule.default;

let s: TestService;
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const enc = encodeURIComponent;
const TYPE = enc(SAMPLE_TYPE);

before(async () => {
  s = await startTestService();
  await registerSampleTypes(s);
  doc = (await s.call('GET', '/v1/openapi.json')).body;
});
after(() => s.close());

/**
 * Call `method path` as `caller` and check the answer against the document's `route` (its path key):
 * the status is listed, and the body fits that status's schema. Answers the body.
 */
async function documented(
  caller: Api,
  method: string,
  route: string,
  path: string,
  status: number,
  body?: unknown,
): Promise<any> {
  const answer = await caller.call(method, path, body);
  assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
  const operation = doc.paths[route]?.[method.toLowerCase()];
  assert.ok(operation, `${method} ${route} is in the document`);
  let response = operation.responses[String(status)];
  assert.ok(response, `${method} ${route} lists ${status}`);
  if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
  const schema = response.content?.['application/json']?.schema;
  if (schema === undefined) {
    assert.equal(answer.body, undefined, `${method} ${route} ${status} has no body`);
    return answer.body;
  }
  const validate = ajv.compile({ ...schema, components: doc.components });
  assert.ok(
    validate(answer.body),
    `${method} ${path} ${status} fits the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer.body)}`,
  );
  return answer.body;
}

test('environments: create, list, show and delete answer as the document says', async () => {
  const made = await documented(s, 'POST', '/v1/environments', '/v1/environments', 201, {
    name: 'staging',
    description: 'before production',
  });
  assert.equal(made.name, 'staging');
  const listed = await documented(s, 'GET', '/v1/environments', '/v1/environments', 200);
  assert.deepEqual(listed.environments.map((e: { name: string }) => e.name).sort(), ['default', 'staging']);
  await documented(s, 'POST', '/v1/environments', '/v1/environments', 409, { name: 'staging' });
  await documented(s, 'GET', '/v1/environments/{name}', '/v1/environments/staging', 200);
  await documented(s, 'DELETE', '/v1/environments/{name}', '/v1/environments/staging', 204);
  await documented(s, 'GET', '/v1/environments/{name}', '/v1/environments/staging', 404);
});

test("recipes, an instance's drift and its upgrade answer as the document says, for an admin and for a token that reaches the instance's type only", async () => {
  const recipeRoute = '/v1/recipes/{environment}/{typeName}/{name}';
  const recipePath = `/v1/recipes/default/${TYPE}/default`;
  const check = await documented(s, 'POST', '/v1/recipes/check', '/v1/recipes/check', 200, {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
  });
  assert.equal(check.valid, true, JSON.stringify(check));
  // A template that does not fit the type: 400, its details the located diagnostics.
  const unfit = await documented(s, 'POST', '/v1/recipes', '/v1/recipes', 400, {
    typeName: SAMPLE_TYPE,
    template: RECIPE.replace('context.resource.properties.size', 'context.resource.properties.colour'),
  });
  const diagnostic = ajv.compile({ ...doc.components.schemas.RecipeDiagnostic, components: doc.components });
  assert.ok(
    unfit.details.length > 0 && unfit.details.every((d: unknown) => diagnostic(d)),
    JSON.stringify(unfit),
  );

  const v1 = await documented(s, 'POST', '/v1/recipes', '/v1/recipes', 201, {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  assert.equal(v1.recipe.version, 1);
  const again = await documented(s, 'POST', '/v1/recipes', '/v1/recipes', 200, {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
    file: 'recipe.yaml',
  });
  assert.equal(again.created, false);
  await documented(s, 'GET', '/v1/recipes', `/v1/recipes?typeName=${TYPE}`, 200);
  const shown = await documented(s, 'GET', recipeRoute, `${recipePath}?version=1`, 200);
  assert.equal(shown.template, RECIPE);
  await documented(s, 'GET', recipeRoute, `${recipePath}?version=7`, 404);
  await documented(s, 'GET', '/v1/environments/{name}', '/v1/environments/default', 200);

  const created = await s.call('POST', `/v1/resources/${TYPE}`, {
    desiredState: { name: 'orders', size: 'L' },
  });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  assert.equal((await settle(s, created.body.progressEvent.requestToken, 20_000)).operationStatus, 'SUCCESS');
  const instance = `/v1/resources/${TYPE}/orders`;
  const driftRoute = '/v1/resources/{typeName}/{identifier}/drift';
  const upgradeRoute = '/v1/resources/{typeName}/{identifier}/upgrade';
  const drift = await documented(s, 'GET', driftRoute, `${instance}/drift`, 200);
  assert.equal(drift.status, 'IN_SYNC');
  await documented(s, 'POST', upgradeRoute, `${instance}/upgrade`, 400);

  const v2 = await documented(s, 'POST', '/v1/recipes', '/v1/recipes', 201, {
    typeName: SAMPLE_TYPE,
    template: RECIPE.replace('.db.internal', '.db.example'),
    file: 'recipe.yaml',
  });
  assert.equal(v2.recipe.version, 2);
  const plan = await documented(s, 'GET', upgradeRoute, `${instance}/upgrade`, 200);
  assert.deepEqual([plan.from, plan.to], [1, 2]);
  assert.ok(
    plan.changes.some((c: { type?: string }) => c.type),
    JSON.stringify(plan),
  );

  // A reader of the sample type only: the recipe without what it makes, changes and drift without types.
  const made = await s.call('POST', '/v1/tokens', { role: 'reader', types: [SAMPLE_TYPE] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const reader = api(s.url, made.body.token);
  const hidden = await documented(reader, 'GET', recipeRoute, recipePath, 200);
  assert.equal(hidden.types, undefined);
  assert.equal(hidden.template, undefined);
  const { recipes } = await documented(reader, 'GET', '/v1/recipes', '/v1/recipes', 200);
  assert.equal(recipes.length, 1);
  const narrowPlan = await documented(reader, 'GET', upgradeRoute, `${instance}/upgrade`, 200);
  assert.ok(
    narrowPlan.changes.length > 0 && narrowPlan.changes.every((c: object) => !('type' in c)),
    JSON.stringify(narrowPlan),
  );
  const narrowDrift = await documented(reader, 'GET', driftRoute, `${instance}/drift`, 200);
  assert.ok(
    narrowDrift.resources.length > 0 && narrowDrift.resources.every((r: object) => !('type' in r)),
    JSON.stringify(narrowDrift),
  );
  await documented(reader, 'POST', '/v1/recipes', '/v1/recipes', 403, {
    typeName: SAMPLE_TYPE,
    template: RECIPE,
  });

  const upgraded = await documented(s, 'POST', upgradeRoute, `${instance}/upgrade?wait=20`, 202);
  assert.equal(upgraded.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(upgraded));
  await documented(s, 'GET', driftRoute, `/v1/resources/${TYPE}/nobody/drift`, 404);
  await documented(s, 'DELETE', recipeRoute, recipePath, 204);
  await documented(s, 'GET', recipeRoute, recipePath, 404);
});
