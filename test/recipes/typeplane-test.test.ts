/**
 * `typeplane test --api`: the unchanged contract suite, run as a child process against a type a real
 * server serves — the Radius sample type implemented by a recipe, and a plain type of the state
 * provider — through the server's API. Both keep the contract.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '../../src/cli/client.js';
import { apiType, createApiProvider } from '../../src/contract/index.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { exits, runCli } from '../helpers/cli.js';
import { heldProvider } from '../helpers/providers.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BOX, BOX_TYPE, LOGIN, LOGIN_TYPE, RECIPE, SAMPLE_MANIFEST, SAMPLE_TYPE } from './fixtures.js';

/**
 * The fixture's lower types without their name patterns: the suite makes instances with any name the
 * sample type allows (capitals, 63 characters), which the fixture's database names refuse.
 */
const open = (doc: string, typeName: string) => {
  const schema = JSON.parse(doc) as { typeName: string; properties: Record<string, Record<string, unknown>> };
  schema.typeName = typeName;
  for (const property of Object.values(schema.properties)) delete property.pattern;
  return JSON.stringify(schema);
};
const DATABASE = 'Test::RecipeSuite::Database';
const USER = 'Test::RecipeSuite::Login';

/** A type whose creates wait until the test lets them go (to see the adapter's IN_PROGRESS). */
const HELD = 'Test::RecipeSuite::Held';
const held = heldProvider();

let s: TestService;

before(async () => {
  s = await startTestService({ providers: new Map([[HELD, held.provider]]) });
  for (const doc of [open(BOX, DATABASE), open(LOGIN, USER), SAMPLE_MANIFEST, open(BOX, HELD)]) {
    const r = await s.call('POST', '/v1/types', doc, {
      'content-type': doc.startsWith('{') ? 'application/json' : 'application/yaml',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  // Two environments with the recipe: inputs may name either, and an update keeps the one it has.
  assert.equal((await s.call('POST', '/v1/environments', { name: 'dev' })).status, 201);
  for (const environment of ['default', 'dev']) {
    const reg = await s.call('POST', '/v1/recipes', {
      typeName: SAMPLE_TYPE,
      template: RECIPE.replaceAll(BOX_TYPE, DATABASE).replaceAll(LOGIN_TYPE, USER),
      file: 'recipe.yaml',
      environment,
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
  }
});
after(() => s.close());

const suite = (typeName: string, runs = 2) =>
  runCli(['test', '--api', s.url, '--type', typeName, '--runs', String(runs), '--seed', '7'], {
    env: { PATH: process.env.PATH, TYPEPLANE_TOKEN: s.token, NO_COLOR: '1' },
    timeoutMs: 120_000,
  });

test('typeplane test --api passes against the recipe-backed sample type, leaving nothing behind', async () => {
  const run = await suite(SAMPLE_TYPE);
  exits(run, 0);
  assert.match(run.stdout, /MyCompany\.Resources\/postgresDatabases/);
  assert.match(run.stdout, /\b0 failed\b/);
  assert.match(
    run.stderr,
    /implemented by recipes: inputs name only environments whose default recipe serves it \(default, dev\), and an update keeps the environment/,
  );
  const instances = await s.call('GET', `/v1/resources/${encodeURIComponent(SAMPLE_TYPE)}`);
  assert.deepEqual(instances.body.resourceDescriptions, [], 'the suite deleted its instances');
  const databases = await s.call('GET', `/v1/resources/${encodeURIComponent(DATABASE)}`);
  assert.deepEqual(databases.body.resourceDescriptions, [], 'and with them what their recipe made');
});

test('typeplane test --api passes against a plain type of the state provider too: the database type the recipe makes', async () => {
  const run = await suite(DATABASE, 1);
  exits(run, 0);
  assert.match(run.stdout, /Test::RecipeSuite::Database with provider api /);
  assert.match(run.stdout, /\b0 failed\b/);
  assert.doesNotMatch(run.stderr, /note:/, 'no recipe implements it: its schema is taken as it is');
});

test('typeplane test --api refuses a type the server does not have as a setup error', async () => {
  const missing = await suite('Test::Shop::Nothing');
  exits(missing, 2);
  assert.match(
    missing.stderr,
    /cannot read the type Test::Shop::Nothing from http:\/\/127\.0\.0\.1:\d+: .*Test::Shop::Nothing/,
  );
});

test("the API adapter answers IN_PROGRESS with the model so far while the server's operation runs, then SUCCESS when called back; an error answer is FAILED with its code", async () => {
  const client = new Client(s.url, s.token);
  const call = (method: string, path: string, body?: unknown) => client.call(method, path, body);
  const { type, notes } = await apiType(call, HELD, s.url);
  assert.deepEqual(notes, []);
  assert.deepEqual(type.writeOnlyProperties, ['/properties/Password']);
  const provider = createApiProvider({ endpoint: s.url, type, call, waitMs: 300 });
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const request = (over: Partial<HandlerRequest> = {}): HandlerRequest => ({
    typeName: HELD,
    desiredState: { Name: 'slow', Size: 'S', Password: 'a-long-password' },
    clientRequestToken: 'held-create-1',
    logger: quiet,
    signal: AbortSignal.timeout(20_000),
    ...over,
  });

  const first = await provider.create(request());
  assert.equal(first.status, 'IN_PROGRESS', JSON.stringify(first));
  assert.deepEqual(
    first.resourceModel,
    { Name: 'slow', Size: 'S' },
    'the model so far, write-only values left out',
  );
  const token = (first.callbackContext as { requestToken: string }).requestToken;
  assert.match(token, /^[0-9a-f-]{36}$/);
  const again = await provider.create(request({ callbackContext: first.callbackContext! }));
  assert.equal(again.status, 'IN_PROGRESS', JSON.stringify(again));
  assert.equal((again.callbackContext as { requestToken: string }).requestToken, token);

  held.release();
  const done = await provider.create(request({ callbackContext: again.callbackContext! }));
  assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
  assert.deepEqual(done.resourceModel, { Name: 'slow', Size: 'S' });

  const taken = await provider.create(request({ clientRequestToken: 'held-create-2' }));
  assert.equal(taken.status, 'FAILED', JSON.stringify(taken));
  assert.match(String(taken.errorCode), /^(AlreadyExists|ResourceConflict)$/);
  const missing = await provider.read(request({ desiredState: { Name: 'nothing' } }));
  assert.equal(missing.status, 'FAILED');
  assert.equal(missing.errorCode, 'NotFound');
  assert.match(missing.message!, /nothing/);
  const gone = await provider.delete(
    request({ desiredState: { Name: 'slow' }, clientRequestToken: 'held-delete' }),
  );
  assert.deepEqual(gone, { status: 'SUCCESS' });
});
