/**
 * The example Python provider (examples/providers/python) behind a real Typeplane server: the whole
 * resource lifecycle over the HTTP API, with the provider in its own process.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRemoteProvider } from '../../src/providers/remote/index.js';
import type { ProviderDefinition } from '../../src/providers/sdk.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { settle, startTestService, type TestService } from '../helpers/service.js';
import { PYTHON_EXAMPLE, startPythonExample, type PythonExample } from '../helpers/python-example.js';
import { pythonSkip } from '../helpers/requirements.js';

const TYPE = 'Example::Python::Note';
const T = encodeURIComponent(TYPE);
const SECRET = 'py-s3cret-value';

const skip = pythonSkip();

let python: PythonExample | undefined;
let remote: ProviderDefinition;
let svc: TestService;
/** Every answer body the API gave, to check that no write-only value ever comes back. */
const seen: string[] = [];

async function call(method: string, path: string, body?: unknown) {
  const res = await svc.call(method, path, body);
  seen.push(JSON.stringify(res.body));
  return res;
}

async function done(res: { body: any }) {
  const event = await settle(svc, res.body.progressEvent.requestToken);
  seen.push(JSON.stringify(event));
  return event;
}

const posts = () =>
  python!
    .logs()
    .split('\n')
    .filter((l) => l.includes('"POST ')).length;

before(async () => {
  if (skip) return;
  python = await startPythonExample(['--callback-delay', '0.2']);
  const { url } = python;
  remote = createRemoteProvider({ name: 'python-notes', url, types: [TYPE], retryDelayMs: 20 });
  svc = await startTestService({ providers: new Map(remote.types.map((t) => [t, remote])) });
  const registered = await svc.call(
    'POST',
    '/v1/types',
    readFileSync(join(PYTHON_EXAMPLE, 'note.json'), 'utf8'),
  );
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
});

after(async () => {
  await svc?.close();
  await remote?.close?.();
  await python?.stop();
});

test('create → read → update → list → delete → NotFound, with the provider in Python', { skip }, async () => {
  // Create: the provider answers IN_PROGRESS first, so the engine calls it twice.
  const before = posts();
  const created = await done(
    await call('POST', `/v1/resources/${T}`, {
      desiredState: { Title: 'first', Body: 'hello', Secret: SECRET },
    }),
  );
  assert.equal(created.operationStatus, 'SUCCESS', JSON.stringify(created));
  assert.equal(created.identifier, 'first');
  assert.equal(posts() - before, 2, 'reserved (IN_PROGRESS), then finished on the callback');
  assert.match(
    created.resourceModel.CreatedAt,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    'read-only value set by the provider',
  );
  assert.deepEqual(Object.keys(created.resourceModel).sort(), ['Body', 'CreatedAt', 'Title']);

  const read = await call('GET', `/v1/resources/${T}/first`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body.properties, {
    Title: 'first',
    Body: 'hello',
    CreatedAt: created.resourceModel.CreatedAt,
  });

  const updated = await done(
    await call('PATCH', `/v1/resources/${T}/first`, {
      patchDocument: [{ op: 'replace', path: '/Body', value: 'changed' }],
    }),
  );
  assert.equal(updated.operationStatus, 'SUCCESS', JSON.stringify(updated));
  assert.equal(updated.resourceModel.Body, 'changed');
  assert.equal((await call('GET', `/v1/resources/${T}/first`)).body.properties.Body, 'changed');
  const stored = JSON.parse(readFileSync(join(python!.dataDir, 'notes.json'), 'utf8'));
  assert.equal(
    stored.notes.first.model.Secret,
    SECRET,
    'the provider got the write-only value, and kept it through the patch',
  );
  assert.equal(
    stored.notes.first.model.CreatedAt,
    created.resourceModel.CreatedAt,
    'CreatedAt unchanged by the update',
  );

  assert.equal(
    (await done(await call('POST', `/v1/resources/${T}`, { desiredState: { Title: 'second' } })))
      .operationStatus,
    'SUCCESS',
  );
  const list = await call('GET', `/v1/resources/${T}`);
  assert.deepEqual(list.body.resourceDescriptions.map((r: { identifier: string }) => r.identifier).sort(), [
    'first',
    'second',
  ]);

  const again = await done(
    await call('POST', `/v1/resources/${T}`, { desiredState: { Title: 'first', Body: 'x' } }),
  );
  assert.equal(again.operationStatus, 'FAILED');
  assert.equal(again.errorCode, 'AlreadyExists');

  const deleted = await done(await call('DELETE', `/v1/resources/${T}/first`));
  assert.equal(deleted.operationStatus, 'SUCCESS', JSON.stringify(deleted));
  assert.equal(deleted.resourceModel, undefined, 'a delete carries no model');
  const gone = await call('GET', `/v1/resources/${T}/first`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.errorCode, 'NotFound');
  const stillThere = await remote.read(request({ desiredState: { Title: 'first' } }));
  assert.equal(stillThere.errorCode, 'NotFound', 'the provider agrees it is gone');

  seen.push(JSON.stringify((await svc.call('GET', '/v1/requests?maxResults=100')).body));
  for (const text of seen) assert.ok(!text.includes(SECRET), `the write-only value came back: ${text}`);
  assert.ok(!python!.logs().includes(SECRET), 'the provider does not log it either');
});

function request(overrides: Partial<HandlerRequest>): HandlerRequest {
  return {
    typeName: TYPE,
    desiredState: {},
    clientRequestToken: `direct-${Math.random().toString(36).slice(2)}`,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    signal: new AbortController().signal,
    ...overrides,
  };
}

test('a repeated clientRequestToken is the same request (create, delete)', { skip }, async () => {
  const note = { Title: 'repeat', Body: 'b' };
  const token = 'repeat-token-1';
  const first = await remote.create(request({ desiredState: note, clientRequestToken: token }));
  assert.equal(first.status, 'IN_PROGRESS');
  assert.ok(first.callbackContext, 'IN_PROGRESS hands a callback context');
  assert.equal(
    (await remote.create(request({ desiredState: note, clientRequestToken: token }))).status,
    'IN_PROGRESS',
    'the first step repeated is answered the same',
  );
  const other = await remote.create(request({ desiredState: note, clientRequestToken: 'another-token' }));
  assert.equal(
    other.status,
    'IN_PROGRESS',
    'an unfinished reservation is taken over (one operation per resource)',
  );
  const lost = await remote.create(
    request({ desiredState: note, clientRequestToken: token, callbackContext: first.callbackContext! }),
  );
  assert.equal(lost.status, 'FAILED', 'the reservation now belongs to the other token');
  const finished = await remote.create(
    request({
      desiredState: note,
      clientRequestToken: 'another-token',
      callbackContext: other.callbackContext!,
    }),
  );
  assert.equal(finished.status, 'SUCCESS');
  assert.deepEqual(
    await remote.create(request({ desiredState: note, clientRequestToken: 'another-token' })),
    finished,
    'a finished create repeated answers SUCCESS with the same model',
  );
  assert.equal((await remote.create(request({ desiredState: note }))).errorCode, 'AlreadyExists');

  const del = request({ desiredState: { Title: 'repeat' }, clientRequestToken: 'delete-token' });
  assert.deepEqual(await remote.delete(del), { status: 'SUCCESS' });
  assert.deepEqual(await remote.delete(del), { status: 'SUCCESS' }, 'the same delete again');
  assert.equal((await remote.delete(request({ desiredState: { Title: 'repeat' } }))).errorCode, 'NotFound');
});

test('LIST pages with nextToken, and never IN_PROGRESS', { skip }, async () => {
  for (const title of ['p1', 'p2', 'p3']) {
    const res = await call('POST', `/v1/resources/${T}`, { desiredState: { Title: title } });
    assert.equal((await done(res)).operationStatus, 'SUCCESS');
  }
  const titles: string[] = [];
  let nextToken: string | undefined;
  let pages = 0;
  do {
    const page = await remote.list(request({ maxResults: 2, ...(nextToken ? { nextToken } : {}) }));
    assert.equal(page.status, 'SUCCESS', JSON.stringify(page));
    assert.ok(page.resourceModels!.length <= 2);
    titles.push(...page.resourceModels!.map((m) => String(m.Title)));
    nextToken = page.nextToken ?? undefined;
    pages++;
  } while (nextToken);
  assert.deepEqual(titles, ['p1', 'p2', 'p3', 'second']);
  assert.equal(pages, 2);
  const bad = await remote.list(request({ nextToken: 'not-a-token' }));
  assert.equal(bad.errorCode, 'InvalidRequest');
});
