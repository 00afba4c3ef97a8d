/**
 * A writer scoped to one team's types, over real HTTP: references to another team's types are
 * AccessDenied whatever the target, a delete refused for referrers names none the caller cannot see,
 * client tokens are each caller's own; and what a request alone shows about an identifier is decided
 * at once (a change to it, a '|' in a compound part, a part left out, a non-NFC spelling).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { api, startTestService, type Api, type TestService } from '../helpers/service.js';

const enc = encodeURIComponent;
const SECRET = 'Sc::Bb::Secret';
const APP = 'Sc::Aa::App';
const OTHER_APP = 'Sc::Bb::App';
const PAIR = 'Sc::Aa::Pair';
const NOTE = 'Sc::Aa::Note';

const schema = (typeName: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    typeName,
    description: `${typeName} for tests.`,
    properties,
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    ...extra,
  });
const refersToSecret = {
  Name: { type: 'string' },
  Secret: { type: 'string', relationshipRef: { typeName: SECRET, propertyPath: '/properties/Name' } },
};

let svc: TestService;
let teamA: Api;
let teamB: Api;

before(async () => {
  svc = await startTestService();
  const docs = [
    schema(SECRET, { Name: { type: 'string' }, Value: { type: 'string' } }),
    schema(APP, refersToSecret),
    schema(OTHER_APP, refersToSecret),
    JSON.stringify({
      typeName: PAIR,
      description: 'Identified by region and key.',
      properties: { Region: { type: 'string' }, Key: { type: 'string' }, Value: { type: 'string' } },
      additionalProperties: false,
      required: ['Region', 'Key'],
      primaryIdentifier: ['/properties/Region', '/properties/Key'],
      createOnlyProperties: ['/properties/Region', '/properties/Key'],
    }),
    // Not create-only, not required: the identifier the issue saw patched and left out.
    JSON.stringify({
      typeName: NOTE,
      description: 'Identified by a key that is not create-only.',
      properties: { Key: { type: 'string' }, Text: { type: 'string' } },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Key'],
    }),
  ];
  for (const doc of docs) assert.equal((await svc.call('POST', '/v1/types', doc)).status, 201);
  const made = async (types: string[]) => {
    const res = await svc.call('POST', '/v1/tokens', { role: 'writer', types });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return api(svc.url, res.body.token as string);
  };
  teamA = await made(['Sc::Aa::*']);
  teamB = await made(['Sc::Bb::*']);
  const secret = await teamB.call('POST', `/v1/resources/${enc(SECRET)}?wait=5`, {
    desiredState: { Name: 'db-password', Value: 'hunter2' },
  });
  assert.equal(secret.body.progressEvent.operationStatus, 'SUCCESS');
});
after(() => svc.close());

test('a reference to a type outside the token is AccessDenied whether or not the target exists', async () => {
  const answers = [];
  for (const name of ['db-password', 'no-such-secret']) {
    const res = await teamA.call('POST', `/v1/resources/${enc(APP)}?wait=5`, {
      desiredState: { Name: `app-${name}`, Secret: name },
    });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.errorCode, 'AccessDenied');
    assert.deepEqual(
      res.body.details.map((d: { pointer: string }) => d.pointer),
      ['/properties/Secret'],
    );
    answers.push(JSON.stringify(res.body).replace(/no-such-secret|db-password/g, 'X'));
  }
  // The two answers are the same: existence is not revealed.
  assert.equal(answers[0], answers[1]);
  // Nothing was pinned: its owner deletes it freely (after checking a PATCH cannot pin it either).
  const plain = await teamA.call('POST', `/v1/resources/${enc(APP)}?wait=5`, {
    desiredState: { Name: 'plain' },
  });
  assert.equal(plain.body.progressEvent.operationStatus, 'SUCCESS');
  const patched = await teamA.call('PATCH', `/v1/resources/${enc(APP)}/plain?wait=5`, {
    patchDocument: [{ op: 'add', path: '/Secret', value: 'db-password' }],
  });
  assert.equal(patched.status, 403, JSON.stringify(patched.body));
  const put = await teamA.call('PUT', `/v1/resources/${enc(APP)}/plain?wait=5`, {
    desiredState: { Name: 'plain', Secret: 'db-password' },
  });
  assert.equal(put.status, 403, JSON.stringify(put.body));
  assert.deepEqual(
    (await svc.call('GET', `/v1/resources/${enc(SECRET)}/db-password/references`)).body.referencedBy,
    [],
  );
});

test('a delete refused for referrers names only the referrers the caller can see', async () => {
  const pin = await svc.call('POST', `/v1/resources/${enc(APP)}?wait=5`, {
    desiredState: { Name: 'admin-pinned', Secret: 'db-password' },
  });
  assert.equal(pin.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(pin.body));
  const refused = await teamB.call('DELETE', `/v1/resources/${enc(SECRET)}/db-password`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.errorCode, 'ResourceConflict');
  assert.doesNotMatch(JSON.stringify(refused.body), /admin-pinned|Sc::Aa/);
  assert.match(refused.body.message, /types this token cannot see/);
  // The admin sees every type, and is told which resource it is.
  const admin = await svc.call('DELETE', `/v1/resources/${enc(SECRET)}/db-password`);
  assert.equal(admin.status, 409);
  assert.match(admin.body.message, /Sc::Aa::App admin-pinned/);
  assert.equal((await svc.call('DELETE', `/v1/resources/${enc(APP)}/admin-pinned?wait=5`)).status, 202);
});

test("client tokens are each caller's own: another's is neither replayed nor echoed", async () => {
  const token = 'deploy-42';
  const b = await teamB.call('POST', `/v1/resources/${enc(OTHER_APP)}?wait=5`, {
    desiredState: { Name: 'b-app' },
    clientToken: token,
  });
  assert.equal(b.status, 202);
  const bRequest = b.body.progressEvent.requestToken as string;
  // The same token from team A, another type and body: a request of its own.
  const a = await teamA.call('POST', `/v1/resources/${enc(APP)}?wait=5`, {
    desiredState: { Name: 'a-app' },
    clientToken: token,
  });
  assert.equal(a.status, 202, JSON.stringify(a.body));
  assert.equal(a.body.progressEvent.operationStatus, 'SUCCESS');
  assert.notEqual(a.body.progressEvent.requestToken, bRequest);
  // Team A repeating it replays its own; sending it with another body is refused without B's token.
  const again = await teamA.call('POST', `/v1/resources/${enc(APP)}`, {
    desiredState: { Name: 'a-app' },
    clientToken: token,
  });
  assert.equal(again.body.progressEvent.requestToken, a.body.progressEvent.requestToken);
  const clash = await teamA.call('POST', `/v1/resources/${enc(APP)}`, {
    desiredState: { Name: 'a-other' },
    clientToken: token,
  });
  assert.equal(clash.status, 400);
  assert.match(clash.body.message, /already used/);
  assert.ok(!JSON.stringify(clash.body).includes(bRequest), "B's request token is not shown to A");
  // Team B's retry still replays B's operation.
  const bAgain = await teamB.call('POST', `/v1/resources/${enc(OTHER_APP)}`, {
    desiredState: { Name: 'b-app' },
    clientToken: token,
  });
  assert.equal(bAgain.body.progressEvent.requestToken, bRequest);
});

test('a change to any primary-identifier value is NotUpdatable, create-only or not', async () => {
  const created = await teamA.call('POST', `/v1/resources/${enc(NOTE)}?wait=5`, {
    desiredState: { Key: 'k1', Text: 'one' },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
  const patch = await teamA.call('PATCH', `/v1/resources/${enc(NOTE)}/k1?wait=5`, {
    patchDocument: [{ op: 'replace', path: '/Key', value: 'k2' }],
  });
  assert.equal(patch.status, 400, JSON.stringify(patch.body));
  assert.equal(patch.body.errorCode, 'NotUpdatable');
  assert.deepEqual(
    patch.body.details.map((d: { pointer: string }) => d.pointer),
    ['/properties/Key'],
  );
  for (const patchDocument of [
    [{ op: 'remove', path: '/Key' }],
    [{ op: 'move', from: '/Key', path: '/Text' }],
  ]) {
    const res = await teamA.call('PATCH', `/v1/resources/${enc(NOTE)}/k1?wait=5`, { patchDocument });
    assert.equal(res.body.errorCode, 'NotUpdatable', JSON.stringify(res.body));
  }
  // The record is still keyed k1 and holds k1; k2 can be created as a resource of its own.
  assert.equal((await teamA.call('GET', `/v1/resources/${enc(NOTE)}/k1`)).body.properties.Key, 'k1');
  assert.equal((await teamA.call('GET', `/v1/resources/${enc(NOTE)}/k2`)).status, 404);
  const text = await teamA.call('PATCH', `/v1/resources/${enc(NOTE)}/k1?wait=5`, {
    patchDocument: [{ op: 'replace', path: '/Text', value: 'two' }],
  });
  assert.equal(text.body.progressEvent.operationStatus, 'SUCCESS');
});

test('what the input shows about the identifier is a 400 at once, naming the member', async () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    [PAIR, { Region: 'eu|us', Key: 'k' }, '/properties/Region', /cannot hold '\|'/],
    [PAIR, { Region: 'eu', Key: 'a|b' }, '/properties/Key', /cannot hold '\|'/],
    [NOTE, { Text: 'no key' }, '/properties/Key', /give it/],
  ];
  for (const [type, desiredState, pointer, message] of cases) {
    const res = await teamA.call('POST', `/v1/resources/${enc(type)}?wait=5`, { desiredState });
    assert.equal(res.status, 400, `${JSON.stringify(desiredState)}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.errorCode, 'InvalidRequest');
    assert.deepEqual(
      res.body.details.map((d: { pointer: string }) => d.pointer),
      [pointer],
    );
    assert.match(res.body.message, message);
  }
  const failed = await svc.call('GET', '/v1/requests?status=FAILED&maxResults=100');
  assert.deepEqual(failed.body.progressEvents, [], 'no operation began and failed');
});

test('identifiers are NFC: an NFD spelling is refused rather than a second look-alike resource', async () => {
  const nfc = 'caf\u00e9';
  const nfd = 'cafe\u0301';
  const created = await teamA.call('POST', `/v1/resources/${enc(NOTE)}?wait=5`, {
    desiredState: { Key: nfc },
  });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS');
  for (const [method, path, body] of [
    ['POST', `/v1/resources/${enc(NOTE)}?wait=5`, { desiredState: { Key: nfd } }],
    ['PUT', `/v1/resources/${enc(NOTE)}/${enc(nfd)}?wait=5`, { desiredState: { Text: 'x' } }],
  ] as const) {
    const res = await teamA.call(method, path, body);
    assert.equal(res.status, 400, `${method}: ${JSON.stringify(res.body)}`);
    assert.match(res.body.message, /normalization form C/);
  }
  const list = await teamA.call('GET', `/v1/resources/${enc(NOTE)}`);
  const keys = list.body.resourceDescriptions.map((d: { identifier: string }) => d.identifier);
  assert.ok(keys.includes(nfc));
  assert.ok(!keys.includes(nfd));
});
