/**
 * /v1/artifacts and /v1/openapi.json serve what is registered: each answer has an ETag and a
 * conditional request with it is answered 304; registering or removing a type changes the artifacts
 * (and their ETags) at once; a token scoped to some types sees only those in every artifact.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readIndexJson } from '@azure/bicep-types';
import { api, startTestService, type TestService } from '../helpers/service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const QUEUES = readFileSync(join(root, 'examples/queues.yaml'), 'utf8');
const TOPICS = `namespace: Typeplane.Messaging
types:
  topics:
    description: A topic.
    apiVersions:
      '2025-01-01-preview':
        schema:
          type: object
          properties:
            partitions: { type: integer, minimum: 1 }
`;
const SECRET = JSON.stringify({
  typeName: 'Acme::Vault::Secret',
  description: 'A secret.',
  additionalProperties: false,
  properties: { Name: { type: 'string' }, Value: { type: 'string' } },
  writeOnlyProperties: ['/properties/Value'],
  createOnlyProperties: ['/properties/Name'],
  primaryIdentifier: ['/properties/Name'],
});

let svc: TestService;

async function register(text: string, contentType: string) {
  const res = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': contentType },
    body: text,
  });
  assert.equal(res.status, 201, await res.text());
}

before(async () => {
  svc = await startTestService();
  await register(QUEUES, 'application/yaml');
  await register(SECRET, 'application/json');
});
after(() => svc.close());

const INDEX = '/v1/artifacts/bicep/Typeplane.Messaging/index.json';

test('an artifact has an ETag; If-None-Match with it is answered 304 without a body', async () => {
  for (const path of [
    INDEX,
    '/v1/openapi.json',
    '/v1/artifacts/json-schema/manifest.json',
    '/v1/artifacts/json-schema/stack-template.json',
  ]) {
    const first = await svc.call('GET', path);
    assert.equal(first.status, 200, path);
    const etag = first.headers.get('etag');
    assert.match(etag ?? '', /^"[A-Za-z0-9_-]{32}"$/, path);
    const again = await svc.call('GET', path, undefined, { 'if-none-match': etag! });
    assert.equal(again.status, 304, path);
    assert.equal(again.body, undefined);
    const other = await svc.call('GET', path, undefined, { 'if-none-match': '"stale"' });
    assert.equal(other.status, 200, path);
    assert.deepEqual(other.body, first.body);
  }
});

test('registering and removing a type changes the artifacts and their ETags at once', async () => {
  const before = await svc.call('GET', INDEX);
  const etag = before.headers.get('etag')!;
  assert.deepEqual(Object.keys(readIndexJson(JSON.stringify(before.body)).resources), [
    'Typeplane.Messaging/queues@2025-01-01-preview',
  ]);
  const openapi = (await svc.call('GET', '/v1/openapi.json')).headers.get('etag')!;

  await register(TOPICS, 'application/yaml');
  const added = await svc.call('GET', INDEX, undefined, { 'if-none-match': etag });
  assert.equal(added.status, 200);
  assert.notEqual(added.headers.get('etag'), etag);
  assert.deepEqual(Object.keys(added.body.resources).sort(), [
    'Typeplane.Messaging/queues@2025-01-01-preview',
    'Typeplane.Messaging/topics@2025-01-01-preview',
  ]);
  const withTopics = await svc.call('GET', '/v1/openapi.json', undefined, { 'if-none-match': openapi });
  assert.equal(withTopics.status, 200);
  assert.ok(withTopics.body.components.schemas['Typeplane.Messaging.topics']);

  assert.equal(
    (await svc.call('DELETE', `/v1/types/${encodeURIComponent('Typeplane.Messaging/topics')}`)).status,
    204,
  );
  const removed = await svc.call('GET', INDEX, undefined, { 'if-none-match': added.headers.get('etag')! });
  assert.equal(removed.status, 200);
  assert.deepEqual(Object.keys(removed.body.resources), ['Typeplane.Messaging/queues@2025-01-01-preview']);
  const schema = await svc.call('GET', '/v1/artifacts/json-schema/Typeplane.Messaging.topics.json');
  assert.equal(schema.status, 404);
});

test('Bicep files of a namespace: types.json, markdown as text; unknown namespaces and files are 404', async () => {
  const types = await svc.call('GET', '/v1/artifacts/bicep/acme.vault/types.json');
  assert.equal(types.status, 200);
  assert.ok(Array.isArray(types.body));
  const md = await svc.call('GET', '/v1/artifacts/bicep/Acme.Vault/index.md');
  assert.match(md.headers.get('content-type') ?? '', /^text\/markdown/);
  assert.match(md.body, /\[default\]\(types\.md#resource-acmevaultsecretdefault\)/);
  assert.equal((await svc.call('GET', '/v1/artifacts/bicep/Nope.Nothing/index.json')).status, 404);
  assert.equal((await svc.call('GET', '/v1/artifacts/bicep/Acme.Vault/secrets.txt')).status, 404);
  const list = await svc.call('GET', '/v1/artifacts/bicep');
  assert.deepEqual(
    list.body.extensions.map((e: { namespace: string }) => e.namespace),
    ['Acme.Vault', 'Typeplane.Messaging'],
  );
});

test('a scoped reader sees only its types in every artifact', async () => {
  const made = await svc.call('POST', '/v1/tokens', { role: 'reader', types: ['Typeplane.Messaging/*'] });
  assert.equal(made.status, 201);
  const reader = api(svc.url, made.body.token);
  const openapi = await reader.call('GET', '/v1/openapi.json');
  assert.equal(openapi.status, 200);
  const text = JSON.stringify(openapi.body);
  assert.ok(text.includes('Typeplane.Messaging.queues'));
  assert.ok(!text.includes('Acme'), 'no trace of a type outside the scope');
  assert.notEqual(
    openapi.headers.get('etag'),
    (await svc.call('GET', '/v1/openapi.json')).headers.get('etag'),
  );
  assert.equal((await reader.call('GET', '/v1/artifacts/bicep/Acme.Vault/index.json')).status, 404);
  assert.equal((await reader.call('GET', '/v1/artifacts/json-schema/Acme.Vault.Secret.json')).status, 404);
  assert.equal((await reader.call('GET', '/v1/artifacts/bicep/Typeplane.Messaging/index.json')).status, 200);
  const template = await reader.call('GET', '/v1/artifacts/json-schema/stack-template.json');
  assert.deepEqual(template.body.definitions.resource.properties.Type.enum, [
    'Typeplane.Messaging/queues',
    'Typeplane.Messaging/queues@2025-01-01-preview',
  ]);
  const listed = await reader.call('GET', '/v1/artifacts/json-schema');
  assert.ok(!JSON.stringify(listed.body).includes('Acme'));
  assert.equal((await api(svc.url).call('GET', '/v1/openapi.json')).status, 401, 'a token is needed');
});
