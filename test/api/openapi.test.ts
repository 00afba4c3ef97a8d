/**
 * GET /v1/openapi.json: an OpenAPI 3.1 document of the live API. It is valid by swagger-parser; it
 * names every route the server has and each registered type's own paths and schemas (read-only and
 * write-only marked); a client generated from it with openapi-typescript type-checks (and a call with
 * a wrongly typed member does not), and that client, run with openapi-fetch, works against the server
 * (resources and stacks alike).
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startTestService, type TestService } from '../helpers/service.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = import.meta.resolve('tsx');
const execFileAsync = promisify(execFile);

const SECRET = JSON.stringify({
  typeName: 'Acme::Vault::Secret',
  description: 'A secret.',
  additionalProperties: false,
  definitions: {
    Rotation: { type: 'object', additionalProperties: false, properties: { Days: { type: 'integer' } } },
  },
  properties: {
    Name: { type: 'string', description: 'The name.' },
    Value: { type: 'string' },
    Arn: { type: 'string' },
    Rotation: { $ref: '#/definitions/Rotation' },
  },
  required: ['Name'],
  readOnlyProperties: ['/properties/Arn'],
  writeOnlyProperties: ['/properties/Value'],
  createOnlyProperties: ['/properties/Name'],
  primaryIdentifier: ['/properties/Name'],
});

let svc: TestService;
let doc: any;
/** The server's routes as `method /path` (OpenAPI's `{param}` form), told by its onRoute hook. */
const routes = new Set<string>();

before(async () => {
  svc = await startTestService({
    onRoute: (route) => {
      for (const method of [route.method].flat()) {
        // HEAD (made for each GET) and OPTIONS duplicate routes the document states already.
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        // The Cloud Control front door speaks the AWS JSON 1.0 protocol, not this JSON API; it is
        // documented in docs/api.md ("The AWS Cloud Control API").
        if (method === 'POST' && route.url === '/') continue;
        // The web console's files are pages for people, not API (docs/console.md).
        if (route.url === '/console' || route.url.startsWith('/console/')) continue;
        routes.add(`${method.toLowerCase()} ${route.url.replace(/:([^/]+)/g, '{$1}')}`);
      }
    },
  });
  assert.equal((await svc.call('POST', '/v1/types', SECRET)).status, 201);
  const queues = readFileSync(join(root, 'examples/queues.yaml'), 'utf8');
  const reg = await fetch(`${svc.url}/v1/types`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/yaml' },
    body: queues,
  });
  assert.equal(reg.status, 201);
  const res = await svc.call('GET', '/v1/openapi.json');
  assert.equal(res.status, 200);
  doc = res.body;
});
after(() => svc.close());

test('the document is valid OpenAPI 3.1 (swagger-parser)', async () => {
  assert.equal(doc.openapi, '3.1.0');
  await SwaggerParser.validate(structuredClone(doc));
});

test('every route of the server is in the document, and every path of it is a route', () => {
  assert.ok(routes.has('get /v1/stacks/{stackName}'), 'the hook saw the routes');
  const methods = ['get', 'post', 'put', 'patch', 'delete'];
  const documented = new Set<string>();
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    // A type's own paths are /v1/resources/{typeName} with the name filled in.
    const route =
      path.startsWith('/v1/resources/') && !path.startsWith('/v1/resources/{typeName}')
        ? path.replace(/^\/v1\/resources\/[^/]+/, '/v1/resources/{typeName}')
        : path;
    for (const method of methods.filter((m) => m in item)) documented.add(`${method} ${route}`);
  }
  assert.deepEqual(
    [...routes].filter((r) => !documented.has(r)),
    [],
    'routes missing from the document',
  );
  assert.deepEqual(
    [...documented].filter((r) => !routes.has(r)),
    [],
    'document paths that are no route',
  );
});

test('each type has its own paths and schemas, read-only and write-only marked, errors with one shape', async () => {
  const secret = doc.components.schemas['Acme.Vault.Secret'];
  assert.equal(secret.properties.Arn.readOnly, true);
  assert.equal(secret.properties.Value.writeOnly, true);
  assert.equal(secret.properties.Rotation.$ref, '#/components/schemas/Acme.Vault.Secret_Rotation');
  const create = doc.paths['/v1/resources/Acme::Vault::Secret'].post;
  assert.equal(
    create.requestBody.content['application/json'].schema.properties.desiredState.$ref,
    '#/components/schemas/Acme.Vault.Secret',
  );
  assert.ok(doc.paths['/v1/resources/Typeplane.Messaging%2Fqueues/{identifier}'].get);
  assert.equal(doc.components.schemas['Typeplane.Messaging.queues'].properties.url.readOnly, true);
  assert.deepEqual(doc.components.schemas.Error.required, ['errorCode', 'message', 'details']);
  const missing = await svc.call('GET', '/v1/resources/Acme%3A%3AVault%3A%3ASecret/nope');
  assert.equal(missing.status, 404);
  assert.deepEqual(Object.keys(missing.body).sort(), ['details', 'errorCode', 'message']);
  assert.ok(doc.components.schemas.Error.properties.errorCode.enum.includes(missing.body.errorCode));
});

test('a client generated with openapi-typescript type-checks and, with openapi-fetch, works against the server', async () => {
  const dir = mkdtempSync(join(root, '.openapi-client-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(structuredClone(doc))));
    writeFileSync(
      join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [baseUrl, token] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });

const created = await client.POST('/v1/resources/Typeplane.Messaging%2Fqueues', {
  params: { query: { wait: 10 } },
  body: { desiredState: { name: 'orders', retentionHours: 24, fifo: true } },
});
if (!created.data) throw new Error(JSON.stringify(created.error));
const status: 'PENDING' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILED' | 'CANCEL_IN_PROGRESS' | 'CANCEL_COMPLETE' =
  created.data.progressEvent.operationStatus;
const read = await client.GET('/v1/resources/Typeplane.Messaging%2Fqueues/{identifier}', {
  params: { path: { identifier: 'orders' } },
});
const hours: number | undefined = read.data?.properties.retentionHours;
const missing = await client.GET('/v1/resources/Acme::Vault::Secret/{identifier}', {
  params: { path: { identifier: 'nope' } },
});
const code: string | undefined = missing.error?.errorCode;
const types = await client.GET('/v1/types');
const template = JSON.stringify({
  Resources: { Q: { Type: 'Typeplane.Messaging/queues', Properties: { name: 'jobs', retentionHours: 1 } } },
  Outputs: { Queue: { Value: { Ref: 'Q' } } },
});
const app = { path: { stackName: 'app' } };
const valid: boolean | undefined = (await client.POST('/v1/stacks/validate', { body: { template } })).data?.valid;
const deployed = await client.PUT('/v1/stacks/{stackName}', {
  params: { ...app, query: { wait: 20 } },
  body: { template },
});
const outputs = await client.GET('/v1/stacks/{stackName}/outputs', { params: app });
const events = await client.GET('/v1/stacks/{stackName}/events', { params: { ...app, query: { maxResults: 100 } } });
const plan = await client.POST('/v1/stacks/{stackName}/plans', { params: app, body: { template } });
const drift = await client.GET('/v1/stacks/{stackName}/drift', { params: app });
const stacks = await client.GET('/v1/stacks');
const stack = {
  valid,
  status: deployed.data?.stack.status,
  outputs: outputs.data?.outputs.map((o) => [o.name, o.value]),
  events: (events.data?.events.length ?? 0) > 0,
  planCurrent: plan.data?.current,
  drift: drift.data?.status,
  listed: stacks.data?.stacks.map((s) => s.stackName),
};
console.log(
  JSON.stringify({ status, hours, code, types: types.data?.types.map((t) => t.typeName).sort(), stack }),
);
`,
    );
    writeFileSync(
      join(dir, 'wrong.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './api.js';
const client = createClient<paths>({ baseUrl: 'http://localhost' });
await client.POST('/v1/resources/Typeplane.Messaging%2Fqueues', {
  body: { desiredState: { name: 'orders', retentionHours: 'a day' } },
});
`,
    );
    // One program for both files (type-checking is the slow part); each file's diagnostics apart.
    const program = ts.createProgram([join(dir, 'client.ts'), join(dir, 'wrong.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(
      problems.filter((p) => !p.includes('wrong.ts')),
      [],
      'the generated client type-checks',
    );
    assert.ok(
      problems.some((d) => /wrong\.ts: .*'string' is not assignable to type 'number'/s.test(d)),
      `a wrongly typed member is refused: ${problems.join('\n')}`,
    );
    // Asynchronously: the server answering it runs in this process.
    const run = await execFileAsync(
      process.execPath,
      ['--import', tsx, join(dir, 'client.ts'), svc.url, svc.token],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    assert.deepEqual(JSON.parse(run.stdout), {
      status: 'SUCCESS',
      hours: 24,
      code: 'NotFound',
      types: ['Acme::Vault::Secret', 'Typeplane.Messaging/queues'],
      stack: {
        valid: true,
        status: 'CREATE_COMPLETE',
        outputs: [['Queue', 'jobs']],
        events: true,
        planCurrent: true,
        drift: 'IN_SYNC',
        listed: ['app'],
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
