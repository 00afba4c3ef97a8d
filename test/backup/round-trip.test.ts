/**
 * A backup taken while the server runs, with `typeplane backup` (a child process, over real HTTP),
 * restored with `typeplane restore` into an empty data dir (SQLite) or a new schema (PostgreSQL),
 * and served again: types and their versions, resources, write-only values, a stack, tokens, a type
 * configuration and operations all come back, compared through the API; an operation in flight at
 * backup time resumes and completes on the restored server.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { HandlerRequest } from '../../src/handler/types.js';
import { exits, runCli } from '../helpers/cli.js';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { memoryProvider } from '../helpers/providers.js';
import {
  api,
  settle,
  startTestService,
  tempDir,
  WIDGET,
  WIDGET_TYPE,
  type TestService,
} from '../helpers/service.js';

const W = `/v1/resources/${encodeURIComponent(WIDGET_TYPE)}`;
/** Version 2 of the widget: one more property. */
const WIDGET_V2 = JSON.stringify({
  ...JSON.parse(WIDGET),
  properties: { ...JSON.parse(WIDGET).properties, Note: { type: 'string' } },
});
const CONFIGURED = 'Test::Backup::Configured';
const CONFIGURED_SCHEMA = JSON.stringify({
  typeName: CONFIGURED,
  description: 'A type with a configuration, for backup tests.',
  properties: { Name: { type: 'string' } },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
  typeConfiguration: {
    properties: { ApiKey: { type: 'string' } },
    required: ['ApiKey'],
    additionalProperties: false,
  },
});
const STACK_TEMPLATE = `
Parameters:
  Secret: { Type: String, NoEcho: true }
Resources:
  Box: { Type: ${WIDGET_TYPE}, Properties: { Name: stacked, Color: teal, Secret: !Ref Secret } }
`;

type World = Map<string, Record<string, unknown>>;

/**
 * The widgets' provider: their state lives in `world`, outside either server (as a cloud's would,
 * surviving the loss of Typeplane's store). A create of `held…` takes a first step, then, with
 * `hold`, waits on its callback for ever: an operation in flight.
 */
function widgetProvider(world: World, hold?: Promise<void>) {
  return memoryProvider({
    create: async (req) => {
      const name = String(req.desiredState.Name);
      if (name.startsWith('held')) {
        if (!req.callbackContext)
          return {
            status: 'IN_PROGRESS',
            callbackContext: { secret: req.desiredState.Secret },
            callbackDelaySeconds: 1,
          };
        if (hold) await hold;
      }
      world.set(name, req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
    read: (req) => {
      const model = world.get(String(req.desiredState.Name));
      return model
        ? { status: 'SUCCESS', resourceModel: model }
        : { status: 'FAILED', errorCode: 'NotFound' };
    },
    update: (req) => {
      world.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
    delete: (req) =>
      world.delete(String(req.desiredState.Name))
        ? { status: 'SUCCESS' }
        : { status: 'FAILED', errorCode: 'NotFound' },
    list: () => ({ status: 'SUCCESS', resourceModels: [...world.values()], nextToken: null }),
  });
}

const createCalls = (calls: { action: string; req: HandlerRequest }[], name: string) =>
  calls.filter((c) => c.action === 'create' && c.req.desiredState.Name === name).map((c) => c.req);

async function ok(svc: TestService, method: string, path: string, body?: unknown) {
  const res = await svc.call(method, path, body);
  assert.ok(
    res.status >= 200 && res.status < 300,
    `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`,
  );
  return res.body;
}

async function createWidget(svc: TestService, desiredState: Record<string, unknown>, version?: string) {
  const query = version === undefined ? '?wait=10' : `?wait=10&version=${version}`;
  const body = await ok(svc, 'POST', `${W}${query}`, { desiredState });
  assert.equal(body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(body));
}

function withoutVersion(list: Record<string, unknown>): Record<string, unknown> {
  const { resourceVersion, ...rest } = list;
  assert.match(String(resourceVersion), /^[0-9]+$/);
  return rest;
}

/** What the API says of everything a backup must bring back. */
async function seen(svc: TestService) {
  const requests = await ok(svc, 'GET', '/v1/requests?maxResults=100');
  return {
    types: await ok(svc, 'GET', '/v1/types'),
    widget: await ok(svc, 'GET', `/v1/types/${encodeURIComponent(WIDGET_TYPE)}`),
    widgetVersion1: await ok(svc, 'GET', `/v1/types/${encodeURIComponent(WIDGET_TYPE)}?version=1`),
    widgets: (await ok(svc, 'GET', `${W}?maxResults=100`)).resourceDescriptions.filter(
      (r: { identifier: string }) => r.identifier !== 'held',
    ),
    // Without the change log's version: the operation in flight moves it on after the restore.
    configured: withoutVersion(await ok(svc, 'GET', `/v1/resources/${encodeURIComponent(CONFIGURED)}`)),
    configuration: await ok(svc, 'GET', `/v1/types/${encodeURIComponent(CONFIGURED)}/configuration`),
    tokens: await ok(svc, 'GET', '/v1/tokens'),
    stack: await ok(svc, 'GET', '/v1/stacks/shop'),
    stackOutputs: await ok(svc, 'GET', '/v1/stacks/shop/outputs'),
    // The operation in flight moves on after the restore: compared apart.
    requests: requests.progressEvents.filter((e: { identifier?: string }) => e.identifier !== 'held'),
  };
}

async function roundTrip(t: TestContext, kind: 'sqlite' | 'postgresql'): Promise<void> {
  const world: World = new Map();
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  const before = widgetProvider(world, hold);
  // PostgreSQL replicas take their key from the environment; on SQLite it is the data dir's key file.
  const secretKey = kind === 'postgresql' ? randomBytes(32).toString('base64') : undefined;
  const store = (schema: string | undefined) =>
    schema === undefined ? {} : { database: { url: PG_URL, schema } };
  const common = { leaseMs: 1000, ...(secretKey ? { secretKey } : {}) };
  const source = await startTestService({
    ...common,
    ...store(kind === 'postgresql' ? freshSchema(t, 'tp_backup_from') : undefined),
    providers: new Map([[WIDGET_TYPE, before]]),
  });
  t.after(async () => {
    release();
    await source.close();
  });

  // Two versions of one type, resources written with each, write-only values among them.
  await ok(source, 'POST', '/v1/types', WIDGET);
  await createWidget(source, { Name: 'one', Color: 'red', Secret: 'one-secret' });
  await ok(source, 'POST', '/v1/types', WIDGET_V2);
  await createWidget(source, { Name: 'two', Note: 'v2', Secret: 'two-secret' });
  await createWidget(source, { Name: 'old', Secret: 'old-secret' }, '1');
  // A type configuration (sealed at rest), and a resource of that type.
  await ok(source, 'POST', '/v1/types', CONFIGURED_SCHEMA);
  await ok(source, 'PUT', `/v1/types/${encodeURIComponent(CONFIGURED)}/configuration`, {
    ApiKey: 'sk-backup-1',
  });
  const configured = await ok(source, 'POST', `/v1/resources/${encodeURIComponent(CONFIGURED)}?wait=10`, {
    desiredState: { Name: 'c1' },
  });
  assert.equal(configured.progressEvent.operationStatus, 'SUCCESS');
  // A stack with a NoEcho parameter feeding a write-only property.
  const stack = await ok(source, 'PUT', '/v1/stacks/shop?wait=20', {
    template: STACK_TEMPLATE,
    parameters: { Secret: 'stack-secret' },
  });
  assert.equal(stack.stack.status, 'CREATE_COMPLETE', JSON.stringify(stack));
  // A writer token, with an access key pair.
  const writer = await ok(source, 'POST', '/v1/tokens', { role: 'writer', description: 'CI', awsKeys: true });
  assert.equal(typeof writer.secretAccessKey, 'string');
  // An operation in flight: its first step done, its callback held by the provider.
  const held = await ok(source, 'POST', W, { desiredState: { Name: 'held', Secret: 'held-secret' } });
  const heldToken: string = held.progressEvent.requestToken;
  for (let i = 0; i < 400 && createCalls(before.calls, 'held').length < 2; i++)
    await new Promise((r) => setTimeout(r, 25));
  assert.equal(createCalls(before.calls, 'held').length, 2, 'the callback step is running, held');
  const expected = await seen(source);

  // The backup, by the CLI, while the server runs and the operation is in flight.
  const dir = tempDir('typeplane-backup-');
  const file = join(dir, 'store.backup');
  const saved = await runCli(['backup', '--out', file], {
    env: { ...process.env, TYPEPLANE_ENDPOINT: source.url, TYPEPLANE_TOKEN: source.token },
  });
  exits(saved, 0);
  assert.match(saved.stdout, new RegExp(`saved ${file} .*${kind} store`));
  const header = JSON.parse(readFileSync(file, 'utf8').split('\n', 1)[0]!);
  assert.equal(header.store, kind);
  // Sealed values, tokens and secret access keys are not in it in clear.
  const content = readFileSync(file, 'latin1');
  for (const secret of [
    'one-secret',
    'held-secret',
    'stack-secret',
    'sk-backup-1',
    source.token,
    writer.token,
    writer.secretAccessKey,
  ])
    assert.equal(content.includes(secret), false, `${String(secret).slice(0, 12)}… is in the backup`);

  // Restored into an empty target: SQLite's data dir holding the key file, a new PostgreSQL schema.
  const dataDir = join(dir, 'restored');
  const targetSchema = kind === 'postgresql' ? freshSchema(t, 'tp_backup_to') : undefined;
  let restoreArgs: string[];
  const restoreEnv: NodeJS.ProcessEnv = { ...process.env };
  delete restoreEnv.TYPEPLANE_SECRET_KEY;
  if (targetSchema === undefined) {
    mkdirSync(dataDir, { mode: 0o700 });
    copyFileSync(join(source.dataDir, 'secret.key'), join(dataDir, 'secret.key'));
    restoreArgs = ['--data-dir', dataDir];
  } else {
    restoreEnv.TYPEPLANE_SECRET_KEY = secretKey;
    restoreArgs = ['--database-url', PG_URL, '--database-schema', targetSchema];
  }
  const restored = await runCli(['restore', file, ...restoreArgs], { env: restoreEnv });
  exits(restored, 0);
  assert.match(restored.stdout, /restored into/);

  const after = widgetProvider(world);
  const served = await startTestService({
    ...common,
    ...(targetSchema === undefined ? { dataDir } : store(targetSchema)),
    // The original admin token: it authenticates, and no new one is added to the list.
    adminToken: source.token,
    providers: new Map([[WIDGET_TYPE, after]]),
  });
  t.after(() => served.close());

  // The operation in flight resumes where it was, its sealed request and context opened.
  const done = await settle(served, heldToken, 20_000);
  assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
  const [resumed] = createCalls(after.calls, 'held');
  assert.ok(resumed, 'the restored server ran the callback step');
  assert.equal(resumed.desiredState.Secret, 'held-secret');
  assert.deepEqual(resumed.callbackContext, { secret: 'held-secret' });

  // Everything else as it was; the type's default version now counts the resumed create's resource.
  const counted = (detail: { versions: { isDefault: boolean; resourceCount: number }[] }) => ({
    ...detail,
    versions: detail.versions.map((v) => (v.isDefault ? { ...v, resourceCount: v.resourceCount + 1 } : v)),
  });
  assert.deepEqual(await seen(served), {
    ...expected,
    widget: counted(expected.widget),
    widgetVersion1: counted(expected.widgetVersion1),
  });

  // Write-only values are usable: an update hands the provider the sealed secret.
  const patched = await ok(served, 'PATCH', `${W}/two?wait=10`, {
    patchDocument: [{ op: 'add', path: '/Color', value: 'blue' }],
  });
  assert.equal(patched.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(patched));
  assert.equal(after.calls.find((c) => c.action === 'update')!.req.desiredState.Secret, 'two-secret');
  // The stack's resources are as the world has them, and its drift reads them.
  const drift = await ok(served, 'GET', '/v1/stacks/shop/drift');
  assert.equal(drift.status, 'IN_SYNC', JSON.stringify(drift));
  assert.equal((await ok(served, 'GET', `${W}/one`)).properties.Color, 'red');
  // The writer token authenticates, as a writer.
  const asWriter = api(served.url, writer.token);
  assert.equal((await asWriter.call('GET', '/v1/types')).status, 200);
  assert.equal((await asWriter.call('GET', '/v1/backup')).status, 403);
}

test('backup and restore through the CLI bring everything back [sqlite]', { timeout: 180_000 }, (t) =>
  roundTrip(t, 'sqlite'),
);
test(
  'backup and restore through the CLI bring everything back [postgresql]',
  { skip: pgSkip, timeout: 180_000 },
  (t) => roundTrip(t, 'postgresql'),
);
