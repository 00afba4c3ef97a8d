/**
 * Adopting what a provider has and Typeplane has no record of: `resource list --unmanaged` lists the
 * identifiers the provider's list handler returns that Typeplane has no record of, and `resource
 * import` reads one through the provider's read handler and records it (nothing is created); both for
 * writers with the type in scope, over real HTTP and the CLI as a child process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WIDGET, WIDGET_TYPE, settle, startTestService, type TestService } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { exits, runCli } from '../helpers/cli.js';

const provider = memoryProvider({}, 'adoptable');
const T = encodeURIComponent(WIDGET_TYPE);
let svc: TestService;
let readerToken: string;
let writerToken: string;
let otherWriterToken: string;

before(async () => {
  svc = await startTestService({ providers: new Map([[WIDGET_TYPE, provider]]) });
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  readerToken = (await svc.call('POST', '/v1/tokens', { role: 'reader' })).body.token;
  writerToken = (await svc.call('POST', '/v1/tokens', { role: 'writer' })).body.token;
  otherWriterToken = (await svc.call('POST', '/v1/tokens', { role: 'writer', types: ['Other::*'] })).body
    .token;
  const made = await svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name: 'managed' } });
  assert.equal((await settle(svc, made.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  // Made at the provider by other means: Typeplane has no record of these two.
  provider.store.set('stray', { Name: 'stray', Size: 'L', Color: 'teal', Secret: 'hunter22' });
  provider.store.set('other', { Name: 'other', Size: 'M' });
});
after(() => svc.close());

const typeplane = (token: string, args: string[]) =>
  runCli(args, {
    env: { ...process.env, NO_COLOR: '1', TYPEPLANE_TOKEN: token, TYPEPLANE_ENDPOINT: svc.url },
  });

test('list --unmanaged shows what the provider lists and Typeplane has no record of; import records one, read through the provider, creating nothing', async () => {
  const listed = await typeplane(writerToken, ['resource', 'list', WIDGET_TYPE, '--unmanaged', '-o', 'json']);
  exits(listed, 0);
  const unmanaged = JSON.parse(listed.stdout) as {
    resourceDescriptions: { identifier: string; properties: object }[];
  };
  assert.deepEqual(unmanaged.resourceDescriptions.map((r) => r.identifier).sort(), ['other', 'stray']);
  assert.doesNotMatch(listed.stdout, /hunter22/, 'a write-only value the provider listed is never shown');

  const creates = provider.calls.filter((c) => c.action === 'create').length;
  const imported = await typeplane(writerToken, ['resource', 'import', WIDGET_TYPE, 'stray', '-o', 'json']);
  exits(imported, 0);
  const event = JSON.parse(imported.stdout).progressEvent;
  assert.equal(event.operationStatus, 'SUCCESS');
  assert.equal(event.operation, 'CREATE');
  assert.equal(event.identifier, 'stray');
  assert.match(event.statusMessage, /imported/);
  assert.equal(provider.calls.filter((c) => c.action === 'create').length, creates, 'nothing was created');
  const read = provider.calls.findLast((c) => c.action === 'read');
  assert.deepEqual(read?.req.desiredState, { Name: 'stray' }, 'the read handler was handed the identifier');

  const got = await svc.call('GET', `/v1/resources/${T}/stray`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body.properties, { Name: 'stray', Size: 'L', Color: 'teal' });
  const still = await svc.call('GET', `/v1/unmanaged-resources/${T}`, undefined, {
    authorization: `Bearer ${writerToken}`,
  });
  assert.deepEqual(
    still.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier),
    ['other'],
  );
  // Managed now: updated through Typeplane like any other.
  const patched = await svc.call('PATCH', `/v1/resources/${T}/stray?wait=10`, {
    patchDocument: [{ op: 'replace', path: '/Color', value: 'navy' }],
  });
  assert.equal(patched.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal(provider.store.get('stray')?.Color, 'navy');
});

test('import refuses what is recorded already and what the provider does not have', async () => {
  const again = await svc.call('POST', `/v1/resources/${T}/managed/import`);
  assert.equal(again.status, 409);
  assert.equal(again.body.errorCode, 'AlreadyExists');
  assert.match(again.body.message, /already recorded/);

  const missing = await svc.call('POST', `/v1/resources/${T}/nowhere/import`);
  assert.equal(missing.status, 404);
  assert.match(missing.body.message, /provider has no Test::Shop::Widget nowhere: nothing to import/);
});

test('a reader, and a writer without the type in scope, can neither list unmanaged resources nor import one', async () => {
  const filtered = await typeplane(writerToken, [
    'resource',
    'list',
    WIDGET_TYPE,
    '--unmanaged',
    '--filter',
    'Size=L',
  ]);
  assert.equal(filtered.code, 2, "a usage error: the provider's own list is not filtered");
  assert.match(filtered.stderr, /--filter: the provider's own list is not filtered/);
  for (const token of [readerToken, otherWriterToken]) {
    const list = await typeplane(token, ['resource', 'list', WIDGET_TYPE, '--unmanaged']);
    assert.equal(list.code, 1, list.stderr);
    assert.match(list.stderr, /AccessDenied|cannot/);
    const adopt = await typeplane(token, ['resource', 'import', WIDGET_TYPE, 'other']);
    assert.equal(adopt.code, 1, adopt.stderr);
    assert.match(adopt.stderr, /AccessDenied|cannot/);
  }
  assert.equal((await svc.call('GET', `/v1/resources/${T}/other`)).status, 404, 'still not recorded');
});

test('the state provider, whose record is the resource, has nothing to import', async (t) => {
  const plain = await startTestService();
  t.after(() => plain.close());
  assert.equal((await plain.call('POST', '/v1/types', WIDGET)).status, 201);
  const refused = await plain.call('POST', `/v1/resources/${T}/ada/import`);
  assert.equal(refused.status, 400);
  assert.match(refused.body.message, /state provider, whose record is the resource/);
  const listed = await plain.call('GET', `/v1/unmanaged-resources/${T}`);
  assert.deepEqual(listed.body.resourceDescriptions, []);
});
