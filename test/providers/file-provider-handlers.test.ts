/**
 * The file provider's handlers called directly: what the HTTP API cannot easily show — a create
 * re-invoked after a crash, the list handler walking the disk, configuration, limits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createFileProvider, FILE_TYPE } from '../../src/providers/file/index.js';
import type { ProviderDefinition } from '../../src/providers/sdk.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { tempDir } from '../helpers/service.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const request = (
  desiredState: Record<string, unknown>,
  extra: Partial<HandlerRequest> = {},
): HandlerRequest => ({
  typeName: FILE_TYPE,
  desiredState,
  clientRequestToken: randomUUID(),
  logger: quiet,
  signal: new AbortController().signal,
  ...extra,
});

async function listAll(provider: ProviderDefinition, maxResults: number) {
  const paths: string[] = [];
  const pages: number[] = [];
  let nextToken: string | undefined;
  do {
    const page = await provider.list(request({}, { maxResults, ...(nextToken ? { nextToken } : {}) }));
    assert.equal(page.status, 'SUCCESS', JSON.stringify(page));
    pages.push(page.resourceModels!.length);
    paths.push(...page.resourceModels!.map((m) => String(m.Path)));
    nextToken = page.nextToken ?? undefined;
  } while (nextToken);
  return { paths, pages };
}

test('a create re-invoked with its own request token succeeds; any other token is AlreadyExists', async () => {
  const root = tempDir();
  const provider = createFileProvider({ root });
  const first = request(
    { Path: 'once/file.txt', Content: 'x', Mode: '0600' },
    { clientRequestToken: 'op-1' },
  );
  const done = await provider.create(first);
  assert.equal(done.status, 'SUCCESS', JSON.stringify(done));
  const again = await provider.create(first);
  assert.equal(again.status, 'SUCCESS', 'the same operation, invoked again after a crash');
  assert.deepEqual(again.resourceModel, done.resourceModel);
  const other = await provider.create({ ...first, clientRequestToken: 'op-2' });
  assert.equal(other.errorCode, 'AlreadyExists');

  // Changed by hand since: no longer what op-1 wrote, so not claimed.
  writeFileSync(join(root, 'once', 'file.txt'), 'changed');
  assert.equal((await provider.create(first)).errorCode, 'AlreadyExists');
  assert.equal(readFileSync(join(root, 'once', 'file.txt'), 'utf8'), 'changed');

  // After a delete the marker is gone: a new create works, the old token claims nothing.
  assert.equal((await provider.delete(request({ Path: 'once/file.txt' }))).status, 'SUCCESS');
  assert.equal((await provider.create({ ...first, clientRequestToken: 'op-3' })).status, 'SUCCESS');
  assert.equal((await provider.create(first)).errorCode, 'AlreadyExists');
});

test('a delete re-invoked after it removed the file answers NotFound (the engine counts that as done)', async () => {
  const provider = createFileProvider({ root: tempDir() });
  await provider.create(request({ Path: 'd/e.txt' }));
  const del = request({ Path: 'd/e.txt' });
  assert.equal((await provider.delete(del)).status, 'SUCCESS');
  assert.equal((await provider.delete(del)).errorCode, 'NotFound');
  assert.equal((await provider.read(request({ Path: 'd/e.txt' }))).errorCode, 'NotFound');
  assert.equal((await provider.update(request({ Path: 'd/e.txt', Content: 'x' }))).errorCode, 'NotFound');
});

test('list walks the root recursively, sorted, in pages, skipping bookkeeping and unaddressable names', async () => {
  const root = tempDir();
  const provider = createFileProvider({ root });
  assert.deepEqual(await provider.list(request({}, { maxResults: 2 })), {
    status: 'SUCCESS',
    resourceModels: [],
    nextToken: null,
  });
  for (const Path of ['b.txt', 'a/x.txt', 'a/y.txt', 'c/d/e.txt', 'a.txt'])
    assert.equal((await provider.create(request({ Path, Content: Path }))).status, 'SUCCESS');
  // Made by hand: listed when addressable as a Path, skipped otherwise.
  writeFileSync(join(root, '.hidden.tmp'), 'user file that looks temporary');
  writeFileSync(join(root, 'has space.txt'), 'not a valid Path');
  mkdirSync(join(root, 'empty', 'folder'), { recursive: true });
  mkdirSync(join(root, 'bad name'));
  writeFileSync(join(root, 'bad name', 'inside.txt'), '');
  assert.ok(existsSync(join(root, '.typeplane')), 'bookkeeping is kept under the root');

  const expected = ['.hidden.tmp', 'a.txt', 'a/x.txt', 'a/y.txt', 'b.txt', 'c/d/e.txt'];
  const twoByTwo = await listAll(provider, 2);
  assert.deepEqual(twoByTwo.paths, expected);
  assert.deepEqual(twoByTwo.pages, [2, 2, 2]);
  assert.deepEqual((await listAll(provider, 4)).pages, [4, 2]);
  assert.deepEqual((await listAll(provider, 1000)).paths, expected);

  const page = await provider.list(request({}, { maxResults: 100 }));
  const model = page.resourceModels!.find((m) => m.Path === 'c/d/e.txt');
  assert.equal(model?.Content, 'c/d/e.txt');
  assert.equal(model?.Mode, '0644');
  assert.equal(model?.Size, 9);

  // Keyset pages: a file added behind the cursor does not shift the next page.
  const first = await provider.list(request({}, { maxResults: 3 }));
  await provider.create(request({ Path: '0-early.txt' }));
  const second = await provider.list(request({}, { maxResults: 3, nextToken: first.nextToken! }));
  assert.deepEqual(
    second.resourceModels!.map((m) => m.Path),
    ['a/y.txt', 'b.txt', 'c/d/e.txt'],
  );
  assert.equal(second.nextToken, null);

  for (const nextToken of ['garbage', 'f1.', `f1.${Buffer.from('../x').toString('base64url')}`]) {
    const bad = await provider.list(request({}, { nextToken }));
    assert.equal(bad.errorCode, 'InvalidRequest', nextToken);
  }
});

test('a root that is a symlink is resolved once with realpath; relative roots are made', async () => {
  const real = join(tempDir(), 'real');
  mkdirSync(real);
  const linked = join(tempDir(), 'linked-root');
  symlinkSync(real, linked);
  const provider = createFileProvider({ root: linked });
  assert.equal((await provider.create(request({ Path: 'f.txt', Content: 'via link' }))).status, 'SUCCESS');
  assert.equal(readFileSync(join(realpathSync(real), 'f.txt'), 'utf8'), 'via link');

  const missing = join(tempDir(), 'not', 'yet');
  const made = createFileProvider({ root: missing });
  assert.equal((await made.create(request({ Path: 'g.txt' }))).status, 'SUCCESS');
  assert.deepEqual(
    readdirSync(missing).filter((n) => !n.startsWith('.typeplane')),
    ['g.txt'],
  );
});

test('without a root every handler fails with InvalidTypeConfiguration; configure({ root }) sets one', async () => {
  const provider = createFileProvider();
  for (const action of ['create', 'read', 'update', 'delete', 'list'] as const) {
    const event = await provider[action](request({ Path: 'a.txt' }));
    assert.equal(event.status, 'FAILED', action);
    assert.equal(event.errorCode, 'InvalidTypeConfiguration', action);
  }
  assert.throws(() => provider.configure!({ root: 42 }), /config\.root/);
  await provider.configure!({}); // nothing to change
  assert.equal((await provider.read(request({ Path: 'a.txt' }))).errorCode, 'InvalidTypeConfiguration');
  const root = tempDir();
  await provider.configure!({ root });
  assert.equal((await provider.create(request({ Path: 'a.txt', Content: 'hi' }))).status, 'SUCCESS');
  assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'hi');

  // A root that is a file cannot be used.
  const file = join(tempDir(), 'a-file');
  writeFileSync(file, '');
  const broken = createFileProvider({ root: file });
  assert.equal((await broken.list(request({}))).errorCode, 'InvalidTypeConfiguration');
});

test('the provider declares its type and the example schema', () => {
  const provider = createFileProvider({ root: tempDir() });
  assert.equal(provider.name, 'file');
  assert.deepEqual(provider.types, [FILE_TYPE]);
  assert.equal(provider.schemas?.length, 1);
  assert.match(readFileSync(provider.schemas![0]!, 'utf8'), /typeName: Typeplane::Local::File/);
});

test('what is not a regular file, or too large for Content, is not read as one', async () => {
  const root = tempDir();
  const provider = createFileProvider({ root });
  mkdirSync(join(root, 'a-folder'));
  assert.equal((await provider.read(request({ Path: 'a-folder' }))).errorCode, 'NotFound');
  assert.equal((await provider.update(request({ Path: 'a-folder', Content: 'x' }))).errorCode, 'NotFound');
  assert.equal((await provider.delete(request({ Path: 'a-folder' }))).errorCode, 'NotFound');
  assert.ok(existsSync(join(root, 'a-folder')));
  writeFileSync(join(root, 'plain'), '');
  assert.equal(
    (await provider.create(request({ Path: 'plain/below.txt' }))).errorCode,
    'InvalidRequest',
    'a file on the way is not a folder',
  );

  writeFileSync(join(root, 'huge.bin'), '');
  truncateSync(join(root, 'huge.bin'), 4 * 1024 * 1024 + 1);
  assert.equal((await provider.read(request({ Path: 'huge.bin' }))).errorCode, 'ServiceLimitExceeded');
  const listed = await provider.list(request({}));
  assert.deepEqual(
    listed.resourceModels!.map((m) => m.Path),
    ['plain'],
    'huge.bin is left out of the list rather than failing it',
  );
});
