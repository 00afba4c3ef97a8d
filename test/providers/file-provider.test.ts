/**
 * The file provider through the real HTTP API: a real server on loopback, a real temp folder as root,
 * the type registered from the example schema with POST /v1/types.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createFileProvider, FILE_TYPE } from '../../src/providers/file/index.js';
import type { ProviderDefinition } from '../../src/providers/sdk.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const T = encodeURIComponent(FILE_TYPE);
const SCHEMA = readFileSync(new URL('../../examples/typeplane-local-file.yaml', import.meta.url), 'utf8');
let svc: TestService;
let provider: ProviderDefinition;
let root: string;

before(async () => {
  root = join(tempDir(), 'root'); // made by the provider
  provider = createFileProvider({ root });
  svc = await startTestService({ providers: new Map([[FILE_TYPE, provider]]) });
  const reg = await svc.call('POST', '/v1/types', SCHEMA, { 'content-type': 'application/yaml' });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
});
after(() => svc.close());

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const url = (path: string) => `/v1/resources/${T}/${encodeURIComponent(path)}`;
const onDisk = (path: string) => join(root, ...path.split('/'));

async function create(desiredState: Record<string, unknown>) {
  const res = await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.progressEvent;
}
async function created(desiredState: Record<string, unknown>) {
  const event = await create(desiredState);
  assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(event));
  return event;
}
async function remove(path: string) {
  const res = await svc.call('DELETE', `${url(path)}?wait=5`);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.progressEvent;
}
/** Files in a folder that are not the user's: temporary files, bookkeeping. */
const leftovers = (folder: string) => readdirSync(folder).filter((n) => n.startsWith('.typeplane'));

test('create writes the file with its content and mode, making the folders; read shows Sha256 and Size', async () => {
  const content = 'héllo wörld\n'; // multi-byte: Size counts bytes
  const event = await created({ Path: 'conf/app/settings.ini', Content: content, Mode: '0600' });
  assert.equal(event.identifier, 'conf/app/settings.ini');
  const file = onDisk('conf/app/settings.ini');
  assert.equal(readFileSync(file, 'utf8'), content);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(leftovers(join(root, 'conf', 'app')), [], 'no temporary file left beside it');

  const read = await svc.call('GET', url('conf/app/settings.ini'));
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.deepEqual(read.body, {
    typeName: FILE_TYPE,
    identifier: 'conf/app/settings.ini',
    properties: {
      Path: 'conf/app/settings.ini',
      Content: content,
      Mode: '0600',
      Sha256: sha(Buffer.from(content, 'utf8')),
      Size: Buffer.byteLength(content, 'utf8'),
    },
  });
  assert.equal(read.body.properties.Size, 14);
  assert.deepEqual(event.resourceModel, read.body.properties, 'create answers the same model');
});

test('defaults: empty content and mode 0644, whatever the umask', async () => {
  const previous = process.umask(0o077);
  try {
    await created({ Path: 'defaults.txt' });
  } finally {
    process.umask(previous);
  }
  assert.equal(readFileSync(onDisk('defaults.txt'), 'utf8'), '');
  assert.equal(statSync(onDisk('defaults.txt')).mode & 0o777, 0o644);
  const read = await svc.call('GET', url('defaults.txt'));
  assert.equal(read.body.properties.Sha256, sha(''));
  assert.equal(read.body.properties.Size, 0);
});

test('update rewrites content and mode atomically (a new file takes the name)', async () => {
  const before = statSync(onDisk('conf/app/settings.ini'));
  const res = await svc.call('PATCH', `${url('conf/app/settings.ini')}?wait=5`, {
    patchDocument: [
      { op: 'replace', path: '/Content', value: 'a=2\n' },
      { op: 'replace', path: '/Mode', value: '0640' },
    ],
  });
  assert.equal(res.status, 202);
  const event = res.body.progressEvent;
  assert.equal(event.operationStatus, 'SUCCESS', JSON.stringify(event));
  const file = onDisk('conf/app/settings.ini');
  assert.equal(readFileSync(file, 'utf8'), 'a=2\n');
  const after = statSync(file);
  assert.equal(after.mode & 0o777, 0o640);
  assert.notEqual(after.ino, before.ino, 'replaced by rename, not written in place');
  assert.deepEqual(leftovers(join(root, 'conf', 'app')), []);
  assert.equal(event.resourceModel.Sha256, sha('a=2\n'));
  const read = await svc.call('GET', url('conf/app/settings.ini'));
  assert.deepEqual(read.body.properties, {
    Path: 'conf/app/settings.ini',
    Content: 'a=2\n',
    Mode: '0640',
    Sha256: sha('a=2\n'),
    Size: 4,
  });
});

test('list pages with maxResults=2 over files in nested folders; the provider lists the same files', async () => {
  for (const Path of ['list/a.txt', 'list/b/c.txt', 'list/b/d/e.txt', 'list/f.txt'])
    await created({ Path, Content: Path });
  const seen: string[] = [];
  let nextToken: string | null = null;
  let pages = 0;
  do {
    const q: string = nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : '';
    const res = await svc.call('GET', `/v1/resources/${T}?maxResults=2${q}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.resourceDescriptions.length <= 2);
    for (const r of res.body.resourceDescriptions) {
      seen.push(r.identifier);
      assert.equal(r.properties.Path, r.identifier);
    }
    nextToken = res.body.nextToken;
    pages++;
  } while (nextToken);
  const expected = [
    'conf/app/settings.ini',
    'defaults.txt',
    'list/a.txt',
    'list/b/c.txt',
    'list/b/d/e.txt',
    'list/f.txt',
  ];
  assert.deepEqual([...seen].sort(), expected);
  assert.equal(pages, 3);

  // The provider's own list handler walks the disk: the same files, sorted, two at a time.
  const listed: string[] = [];
  let token: string | undefined;
  do {
    const page = await provider.list({
      typeName: FILE_TYPE,
      desiredState: {},
      clientRequestToken: randomUUID(),
      maxResults: 2,
      ...(token ? { nextToken: token } : {}),
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      signal: new AbortController().signal,
    });
    assert.equal(page.status, 'SUCCESS', JSON.stringify(page));
    assert.ok(page.resourceModels!.length <= 2);
    listed.push(...page.resourceModels!.map((m) => String(m.Path)));
    token = page.nextToken ?? undefined;
  } while (token);
  assert.deepEqual(listed, expected);
});

test('read reflects the disk: a file deleted by hand is NotFound, and deleting it completes as gone and cleans up', async () => {
  await created({ Path: 'by/hand/gone.txt', Content: 'x' });
  unlinkSync(onDisk('by/hand/gone.txt'));
  const read = await svc.call('GET', url('by/hand/gone.txt'));
  assert.equal(read.status, 404);
  assert.equal(read.body.errorCode, 'NotFound');
  const del = await remove('by/hand/gone.txt');
  assert.equal(del.operationStatus, 'SUCCESS');
  assert.equal(existsSync(join(root, 'by')), false, 'the folders it made are removed all the same');
  assert.equal((await svc.call('GET', url('by/hand/gone.txt'))).status, 404);
  const list = await svc.call('GET', `/v1/resources/${T}?maxResults=100`);
  assert.ok(
    !list.body.resourceDescriptions.some((r: any) => r.identifier === 'by/hand/gone.txt'),
    'dropped from the index',
  );
});

test('delete removes the file and the empty folders the provider made, not folders made by hand', async () => {
  await remove('conf/app/settings.ini').then((e) => assert.equal(e.operationStatus, 'SUCCESS'));
  assert.equal(existsSync(onDisk('conf/app/settings.ini')), false);
  assert.equal(existsSync(join(root, 'conf')), false, 'conf/app and conf removed');
  assert.equal((await svc.call('GET', url('conf/app/settings.ini'))).status, 404);

  // A folder shared by two files goes with the last of them.
  await created({ Path: 'shared/one.txt' });
  await created({ Path: 'shared/two.txt' });
  assert.equal((await remove('shared/one.txt')).operationStatus, 'SUCCESS');
  assert.equal(existsSync(join(root, 'shared')), true, 'still holds two.txt');
  assert.equal((await remove('shared/two.txt')).operationStatus, 'SUCCESS');
  assert.equal(existsSync(join(root, 'shared')), false);

  // A folder made by hand stays, even when empty.
  mkdirSync(join(root, 'kept'));
  await created({ Path: 'kept/sub/x.txt' });
  assert.equal((await remove('kept/sub/x.txt')).operationStatus, 'SUCCESS');
  assert.equal(existsSync(join(root, 'kept', 'sub')), false);
  assert.equal(existsSync(join(root, 'kept')), true);

  // The list follows.
  for (const path of ['list/a.txt', 'list/b/c.txt', 'list/b/d/e.txt', 'list/f.txt', 'defaults.txt'])
    assert.equal((await remove(path)).operationStatus, 'SUCCESS', path);
  assert.equal(existsSync(join(root, 'list')), false);
  const list = await svc.call('GET', `/v1/resources/${T}`);
  assert.deepEqual(list.body.resourceDescriptions, []);
  assert.deepEqual(
    readdirSync(root).filter((n) => !n.startsWith('.typeplane')),
    ['kept'],
    'nothing but the hand-made folder left under the root',
  );
});

test('creating over an existing file is AlreadyExists and leaves the file alone', async () => {
  await created({ Path: 'twice.txt', Content: 'first' });
  const again = await create({ Path: 'twice.txt', Content: 'second', Mode: '0600' });
  assert.equal(again.operationStatus, 'FAILED');
  assert.equal(again.errorCode, 'AlreadyExists');
  assert.equal(readFileSync(onDisk('twice.txt'), 'utf8'), 'first');
  assert.equal(statSync(onDisk('twice.txt')).mode & 0o777, 0o644);

  // A file made by hand is not the provider's to take over.
  writeFileSync(onDisk('manual.txt'), 'mine');
  const manual = await create({ Path: 'manual.txt', Content: 'mine' });
  assert.equal(manual.errorCode, 'AlreadyExists');
  assert.equal(readFileSync(onDisk('manual.txt'), 'utf8'), 'mine');

  // Nor is a folder of that name.
  mkdirSync(join(root, 'a-folder'));
  assert.equal((await create({ Path: 'a-folder' })).errorCode, 'AlreadyExists');
  assert.equal(statSync(join(root, 'a-folder')).isDirectory(), true);
});
