/**
 * Type configuration over HTTP on both stores: set by an admin, validated against the schema's
 * typeConfiguration, readable by admins only, handed to every handler invocation, required before a
 * type that requires it is served, sealed at rest (absent in plain text from the store) and never
 * logged, not even when a provider quotes it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { stringify as toYaml } from 'yaml';
import { eachStoreService } from '../helpers/each-store.js';
import { pgQuery } from '../helpers/postgres.js';
import { memoryProvider } from '../helpers/providers.js';
import type { TestService } from '../helpers/service.js';

const TYPE = 'Test::Configured::Widget';
const T = encodeURIComponent(TYPE);
const API_KEY = 'sk-live-7f3a9c1e5b2d4f60';

const SCHEMA = JSON.stringify(
  {
    typeName: TYPE,
    description: 'A widget whose provider needs an API key.',
    properties: { Name: { type: 'string' }, Size: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
    typeConfiguration: {
      properties: {
        ApiKey: { type: 'string', minLength: 12 },
        Region: { type: 'string', enum: ['eu', 'us'], default: 'eu' },
      },
      required: ['ApiKey'],
      additionalProperties: false,
    },
  },
  null,
  2,
);

let logs = '';
let provider = memoryProvider();

function setup() {
  logs = '';
  provider = memoryProvider({
    // A provider that quotes its configuration in an error: the message must not carry it on.
    update: (req) => ({
      status: 'FAILED',
      errorCode: 'InvalidCredentials',
      message: `key ${String(req.typeConfiguration?.ApiKey)} was refused`,
    }),
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  return { providers: new Map([[TYPE, provider]]), logger: pino({ level: 'trace' }, sink) };
}

async function asRole(svc: TestService, role: 'writer' | 'reader') {
  const made = await svc.call('POST', '/v1/tokens', { role });
  return (method: string, body?: unknown) =>
    fetch(`${svc.url}/v1/types/${T}/configuration`, {
      method,
      headers: { authorization: `Bearer ${made.body.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

eachStoreService(
  'a configuration is validated, admin-only, required, handed to every handler, and never stored or logged in clear',
  async (svc, _t, kind) => {
    assert.equal((await svc.call('POST', '/v1/types', SCHEMA)).status, 201);

    // Until it is set, the type answers every operation with InvalidTypeConfiguration.
    const early = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'w1' } });
    assert.equal(early.status, 400);
    assert.equal(early.body.errorCode, 'InvalidTypeConfiguration');
    assert.match(early.body.message, /typeplane type configure Test::Configured::Widget/);
    assert.equal((await svc.call('GET', `/v1/types/${T}/configuration`)).status, 404);

    const short = await svc.call('PUT', `/v1/types/${T}/configuration`, { ApiKey: 'sk-short-1' });
    assert.equal(short.status, 400);
    assert.deepEqual(
      short.body.details.map((d: { pointer: string }) => d.pointer),
      ['/ApiKey'],
    );
    assert.ok(!JSON.stringify(short.body).includes('sk-short-1'), 'a refusal does not echo the value');
    const extra = await svc.call('PUT', `/v1/types/${T}/configuration`, { ApiKey: API_KEY, Other: 1 });
    assert.equal(extra.status, 400);

    const writer = await asRole(svc, 'writer');
    const reader = await asRole(svc, 'reader');
    assert.equal((await writer('PUT', { ApiKey: API_KEY })).status, 403);
    const set = await svc.call('PUT', `/v1/types/${T}/configuration`, { ApiKey: API_KEY });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.configured, true);
    assert.ok(!JSON.stringify(set.body).includes(API_KEY));
    const shown = await svc.call('GET', `/v1/types/${T}/configuration`);
    assert.deepEqual(shown.body.configuration, { ApiKey: API_KEY, Region: 'eu' }, 'defaults applied');
    assert.equal((await writer('GET')).status, 403);
    assert.equal((await reader('GET')).status, 403);

    // Every handler invocation gets it.
    const created = await svc.call('POST', `/v1/resources/${T}?wait=10`, { desiredState: { Name: 'w1' } });
    assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
    assert.equal((await svc.call('GET', `/v1/resources/${T}/w1`)).status, 200);
    const refused = await svc.call('PATCH', `/v1/resources/${T}/w1?wait=10`, {
      patchDocument: [{ op: 'add', path: '/Size', value: 'L' }],
    });
    assert.equal(refused.body.progressEvent.operationStatus, 'FAILED');
    assert.equal(refused.body.progressEvent.statusMessage, 'key *** was refused');
    const deleted = await svc.call('DELETE', `/v1/resources/${T}/w1?wait=10`);
    assert.equal(deleted.body.progressEvent.operationStatus, 'SUCCESS');
    assert.deepEqual(
      provider.calls.map((c) => [c.action, c.req.typeConfiguration]),
      ['create', 'read', 'update', 'delete'].map((a) => [a, { ApiKey: API_KEY, Region: 'eu' }]),
    );

    // At rest it is sealed whole; nothing logged it.
    if (kind === 'sqlite') {
      const files = readdirSync(svc.dataDir).filter((f) => f.startsWith('typeplane.db'));
      assert.ok(files.length >= 1);
      for (const f of files) assert.ok(!readFileSync(join(svc.dataDir, f)).includes(API_KEY), f);
    } else {
      const schema = svc.schema!;
      const sealed = await pgQuery<{ value_json: string }>(
        `SELECT value_json FROM ${schema}.kv WHERE namespace = 'typeplane:type-configuration'`,
      );
      assert.equal(sealed.length, 1);
      assert.match(sealed[0]!.value_json, /"sealed":/);
      for (const table of ['kv', 'operations', 'resources', 'types']) {
        const all = await pgQuery<{ dump: string | null }>(
          `SELECT string_agg(t::text, ' ') AS dump FROM (SELECT * FROM ${schema}.${table}) t`,
        );
        assert.ok(!(all[0]!.dump ?? '').includes(API_KEY), table);
      }
    }
    assert.ok(logs.length > 0, 'the server logged');
    assert.ok(!logs.includes(API_KEY), 'no log line holds the key');
  },
  setup,
);

eachStoreService(
  'a type that takes no configuration refuses one; deregistering a type drops its configuration',
  async (svc) => {
    const plain = JSON.parse(SCHEMA) as Record<string, unknown>;
    delete plain.typeConfiguration;
    plain.typeName = 'Test::Configured::Plain';
    await svc.call('POST', '/v1/types', JSON.stringify(plain));
    const none = await svc.call(
      'PUT',
      `/v1/types/${encodeURIComponent('Test::Configured::Plain')}/configuration`,
      {
        ApiKey: API_KEY,
      },
    );
    assert.equal(none.status, 400);
    assert.match(none.body.message, /takes no configuration/);

    await svc.call('POST', '/v1/types', SCHEMA);
    assert.equal((await svc.call('PUT', `/v1/types/${T}/configuration`, { ApiKey: API_KEY })).status, 200);
    assert.equal((await svc.call('DELETE', `/v1/types/${T}`)).status, 204);
    await svc.call('POST', '/v1/types', SCHEMA);
    assert.equal((await svc.call('GET', `/v1/types/${T}/configuration`)).status, 404);
    const early = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'w1' } });
    assert.equal(early.body.errorCode, 'InvalidTypeConfiguration');
  },
);

eachStoreService('a manifest type declares its configuration with x-typeplane-configuration', async (svc) => {
  const manifest = toYaml({
    namespace: 'Test.Configured',
    types: {
      queues: {
        description: 'A queue.',
        'x-typeplane-configuration': {
          properties: { endpoint: { type: 'string', format: 'uri' } },
          required: ['endpoint'],
        },
        apiVersions: {
          '2025-01-01': { schema: { type: 'object', properties: { size: { type: 'string' } } } },
        },
      },
    },
  });
  const registered = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/yaml' },
    body: manifest,
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const Q = encodeURIComponent('Test.Configured/queues');
  assert.equal(
    (await svc.call('POST', `/v1/resources/${Q}`, { desiredState: { name: 'q1' } })).body.errorCode,
    'InvalidTypeConfiguration',
  );
  assert.equal(
    (await svc.call('PUT', `/v1/types/${Q}/configuration`, { endpoint: 'not a uri' })).status,
    400,
  );
  assert.equal(
    (await svc.call('PUT', `/v1/types/${Q}/configuration`, { endpoint: 'https://queues.example' })).status,
    200,
  );
  const created = await svc.call('POST', `/v1/resources/${Q}?wait=10`, { desiredState: { name: 'q1' } });
  assert.equal(created.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(created.body));
});
