/**
 * A token created with type globs sees only those types: lists (types, requests) leave the others
 * out, and naming another type (a resource route, a type route, a request of another type) is
 * 403 AccessDenied.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  WIDGET,
  WIDGET_TYPE,
  api,
  startTestService,
  type Api,
  type TestService,
} from '../helpers/service.js';

const GADGET_TYPE = 'Test::Shop::Gadget';
const OTHER_TYPE = 'Test::Garden::Hose';
const W = encodeURIComponent(WIDGET_TYPE);
const G = encodeURIComponent(GADGET_TYPE);
const H = encodeURIComponent(OTHER_TYPE);

let svc: TestService;
let scoped: Api; // writer on Test::Shop::W* and Test::Garden::*
let otherRequest: string; // a request on the gadget type

before(async () => {
  svc = await startTestService();
  for (const name of [WIDGET_TYPE, GADGET_TYPE, OTHER_TYPE])
    assert.equal((await svc.call('POST', '/v1/types', WIDGET.replace(WIDGET_TYPE, name))).status, 201);
  for (const t of [W, G, H]) {
    const res = await svc.call('POST', `/v1/resources/${t}?wait=5`, { desiredState: { Name: 'one' } });
    assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS');
    if (t === G) otherRequest = res.body.progressEvent.requestToken;
  }
  const created = await svc.call('POST', '/v1/tokens', {
    role: 'writer',
    types: ['Test::Shop::W*', 'Test::Garden::*'],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.types, ['Test::Shop::W*', 'Test::Garden::*']);
  scoped = api(svc.url, created.body.token);
});
after(() => svc.close());

test('a scoped token lists only the types its globs reach', async () => {
  const all = await svc.call('GET', '/v1/types');
  assert.equal(all.body.types.length, 3);
  const res = await scoped.call('GET', '/v1/types');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.types.map((t: { typeName: string }) => t.typeName).sort(), [
    OTHER_TYPE,
    WIDGET_TYPE,
  ]);
});

test('a scoped token works with its types and gets 403 AccessDenied on any other', async () => {
  assert.equal((await scoped.call('GET', `/v1/types/${W}`)).status, 200);
  assert.equal((await scoped.call('GET', `/v1/resources/${W}`)).body.resourceDescriptions.length, 1);
  assert.equal((await scoped.call('GET', `/v1/resources/${H}/one`)).status, 200);
  const created = await scoped.call('POST', `/v1/resources/${W}?wait=5`, { desiredState: { Name: 'two' } });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');

  const outside: [string, string, unknown?][] = [
    ['GET', `/v1/types/${G}`],
    ['GET', `/v1/resources/${G}`],
    ['GET', `/v1/resources/${G}/one`],
    ['GET', `/v1/resources/${G}/one/references`],
    ['POST', `/v1/resources/${G}`, { desiredState: { Name: 'two' } }],
    ['PATCH', `/v1/resources/${G}/one`, { patchDocument: [{ op: 'add', path: '/Color', value: 'red' }] }],
    ['PUT', `/v1/resources/${G}/one`, { desiredState: { Name: 'one', Color: 'red' } }],
    ['DELETE', `/v1/resources/${G}/one`],
    ['GET', `/v1/requests/${otherRequest}`],
    ['POST', `/v1/requests/${otherRequest}/cancel`],
    // Not registered, and still outside the globs: the answer does not tell whether it exists.
    ['GET', '/v1/types/Test%3A%3AShop%3A%3AUnknown'],
  ];
  for (const [method, path, body] of outside) {
    const res = await scoped.call(method, path, body);
    assert.equal(res.status, 403, `${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    assert.equal(res.body.errorCode, 'AccessDenied');
    assert.match(res.body.message, /scoped to other types/);
    // The request routes named a request token only: the refusal says nothing of its type.
    if (path.startsWith('/v1/requests/')) assert.doesNotMatch(JSON.stringify(res.body), /Gadget/);
  }
  const gadget = await svc.call('GET', `/v1/resources/${G}/one`);
  assert.equal(gadget.body.properties.Color, undefined, 'nothing changed on the other type');
  assert.equal((await svc.call('GET', `/v1/resources/${G}/two`)).status, 404);
});

test('a scoped token lists only requests on its types', async () => {
  const all = await svc.call('GET', '/v1/requests?maxResults=100');
  const allTypes = new Set(all.body.progressEvents.map((e: { typeName: string }) => e.typeName));
  assert.ok(allTypes.has(GADGET_TYPE), 'the admin sees requests on every type');
  const res = await scoped.call('GET', '/v1/requests?maxResults=100');
  assert.equal(res.status, 200);
  const seen = new Set(res.body.progressEvents.map((e: { typeName: string }) => e.typeName));
  assert.deepEqual([...seen].sort(), [OTHER_TYPE, WIDGET_TYPE]);
  assert.equal(
    res.body.progressEvents.length,
    all.body.progressEvents.filter((e: { typeName: string }) => e.typeName !== GADGET_TYPE).length,
  );
});

test('a scoped reader is scoped the same way; admin tokens cannot be scoped; bad globs are refused', async () => {
  const reader = await svc.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Shop::Gadget'] });
  assert.equal(reader.status, 201);
  const r = api(svc.url, reader.body.token);
  assert.deepEqual(
    (await r.call('GET', '/v1/types')).body.types.map((t: { typeName: string }) => t.typeName),
    [GADGET_TYPE],
  );
  assert.equal((await r.call('GET', `/v1/resources/${W}`)).status, 403);

  const refused: unknown[] = [
    { role: 'admin', types: ['Test::*'] },
    { role: 'writer', types: [] },
    { role: 'writer', types: ['Test::(Shop)'] },
    { role: 'writer', types: [42] },
    { role: 'root' },
    { role: 'reader', secret: 'x' },
  ];
  for (const body of refused) {
    const res = await svc.call('POST', '/v1/tokens', body);
    assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.status}`);
    assert.equal(res.body.errorCode, 'InvalidRequest');
  }
});
