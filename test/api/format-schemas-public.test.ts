/**
 * The format schemas an editor's `$schema` points at (resource-schema.json, manifest.json,
 * stack-template.json) are answered without a token: an editor sends none, and they describe
 * documents, not a tenant's types. Everything else under /v1/artifacts still needs a token and
 * shows only the types it reaches; a token given to a format schema is checked as anywhere else.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { api, startTestService, WIDGET, WIDGET_TYPE, type TestService } from '../helpers/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService();
  const res = await svc.call('POST', '/v1/types', JSON.parse(WIDGET));
  assert.equal(res.status, 201, JSON.stringify(res.body));
});
after(() => svc.close());

const FORMATS = ['resource-schema.json', 'manifest.json', 'stack-template.json'];

test('the format schemas are answered without a token, with an ETag that a conditional request matches', async () => {
  const anonymous = api(svc.url);
  for (const name of FORMATS) {
    const path = `/v1/artifacts/json-schema/${name}`;
    const res = await anonymous.call('GET', path);
    assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
    assert.match((res.body as { $schema?: string }).$schema ?? '', /json-schema\.org/, name);
    const again = await anonymous.call('GET', path, undefined, { 'if-none-match': res.headers.get('etag')! });
    assert.equal(again.status, 304, name);
  }
});

test("without a token the stack template schema names no registered type; with one it checks that type's Properties", async () => {
  const path = '/v1/artifacts/json-schema/stack-template.json';
  const anonymous = await api(svc.url).call('GET', path);
  assert.equal(anonymous.status, 200);
  assert.doesNotMatch(JSON.stringify(anonymous.body), new RegExp(WIDGET_TYPE));
  const withToken = await svc.call('GET', path);
  assert.equal(withToken.status, 200);
  assert.match(JSON.stringify(withToken.body), new RegExp(WIDGET_TYPE));
});

test("a type's schema, the listing, Bicep and OpenAPI still need a token", async () => {
  for (const path of [
    '/v1/artifacts/json-schema/Test.Shop.Widget.json',
    '/v1/artifacts/json-schema',
    '/v1/artifacts/bicep',
    '/v1/openapi.json',
  ]) {
    const res = await api(svc.url).call('GET', path);
    assert.equal(res.status, 401, path);
    assert.equal((res.body as { errorCode: string }).errorCode, 'InvalidCredentials', path);
  }
  assert.equal((await svc.call('GET', '/v1/artifacts/json-schema/Test.Shop.Widget.json')).status, 200);
});

test('a token given to a format schema is checked: an unknown one is refused 401', async () => {
  const stranger = api(svc.url, 'tp_unknownunknownunknownunknownunknownunknown00');
  assert.equal((await stranger.call('GET', '/v1/artifacts/json-schema/manifest.json')).status, 401);
});
