/**
 * The file provider never leaves its root: escapes are refused through the HTTP API (by the schema,
 * and by the provider behind it), symbolic links are never followed, and a folder outside the root —
 * with a sentinel file in it — is never written, read or deleted.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { createFileProvider, FILE_TYPE } from '../../src/providers/file/index.js';
import type { ProviderDefinition } from '../../src/providers/sdk.js';
import type { HandlerRequest } from '../../src/handler/types.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const T = encodeURIComponent(FILE_TYPE);
const SCHEMA = readFileSync(new URL('../../examples/typeplane-local-file.yaml', import.meta.url), 'utf8');
const SECRET = 'do not touch';
let svc: TestService;
let provider: ProviderDefinition;
let dir: string;
let root: string;
let outside: string;
let snapshot: string;

/** Every entry under a folder (links not followed) with its kind, mode and content. */
function tree(folder: string): string {
  const lines: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      const info = lstatSync(path);
      const kind = info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'dir' : 'file';
      lines.push(
        `${relative(folder, path)} ${kind} ${(info.mode & 0o777).toString(8)} ${info.isFile() ? readFileSync(path, 'utf8') : ''}`,
      );
      if (kind === 'dir') walk(path);
    }
  };
  walk(folder);
  return lines.join('\n');
}

before(async () => {
  dir = tempDir();
  root = join(dir, 'root');
  outside = join(dir, 'outside');
  mkdirSync(root);
  mkdirSync(join(outside, 'deeper'), { recursive: true });
  writeFileSync(join(outside, 'sentinel.txt'), SECRET);
  writeFileSync(join(outside, 'inner.txt'), SECRET);
  writeFileSync(join(outside, 'deeper', 'x.txt'), SECRET);
  // What a hostile user of the machine leaves inside the root.
  symlinkSync(outside, join(root, 'link-dir'));
  symlinkSync(join(outside, 'sentinel.txt'), join(root, 'link-file.txt'));
  snapshot = tree(outside);
  provider = createFileProvider({ root });
  svc = await startTestService({ providers: new Map([[FILE_TYPE, provider]]) });
  const reg = await svc.call('POST', '/v1/types', SCHEMA, { 'content-type': 'application/yaml' });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
});
after(() => svc.close());

const url = (path: string) => `/v1/resources/${T}/${encodeURIComponent(path)}`;
const request = (desiredState: Record<string, unknown>): HandlerRequest => ({
  typeName: FILE_TYPE,
  desiredState,
  clientRequestToken: randomUUID(),
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  signal: new AbortController().signal,
});

/** The outcome of a mutation: the synchronous error, or the operation's final event. */
async function outcome(res: { status: number; body: any }): Promise<{ errorCode?: string; body: unknown }> {
  if (res.status !== 202) return { errorCode: res.body.errorCode, body: res.body };
  return { errorCode: res.body.progressEvent.errorCode, body: res.body.progressEvent };
}
const create = async (desiredState: Record<string, unknown>) =>
  outcome(await svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState }));
const update = async (path: string, Content: string) =>
  outcome(
    await svc.call('PATCH', `${url(path)}?wait=5`, {
      patchDocument: [{ op: 'replace', path: '/Content', value: Content }],
    }),
  );
const remove = async (path: string) => outcome(await svc.call('DELETE', `${url(path)}?wait=5`));

const ESCAPES = ['../x.txt', '/etc/passwd', 'a/../../x.txt', '..', '.', 'a//b', 'a\\..\\x', 'a\u0000b'];

test('escaping paths are refused through the API', async () => {
  for (const Path of [...ESCAPES, `../${relative(dir, outside)}/sentinel.txt`]) {
    const res = await create({ Path, Content: 'pwned' });
    assert.equal(res.errorCode, 'InvalidRequest', `${JSON.stringify(Path)}: ${JSON.stringify(res.body)}`);
  }
  assert.equal(existsSync(join(dir, 'x.txt')), false);
  assert.equal(existsSync('/x.txt'), false);
});

test('the provider refuses them itself, with the schema out of the way, for every handler', async () => {
  const reserved = ['.typeplane/files/x', 'sub/.typeplane-1.tmp', '.typeplane'];
  for (const Path of [...ESCAPES, ...reserved, '', 42]) {
    for (const action of ['create', 'read', 'update', 'delete'] as const) {
      const event = await provider[action](request({ Path, Content: 'pwned', Mode: '0644' }));
      assert.equal(event.status, 'FAILED', `${action} ${JSON.stringify(Path)}`);
      assert.equal(event.errorCode, 'InvalidRequest', `${action} ${JSON.stringify(Path)}: ${event.message}`);
    }
  }
  const bad = await provider.create(request({ Path: 'ok.txt', Mode: '4755' }));
  assert.equal(bad.errorCode, 'InvalidRequest', 'no setuid bits');
  assert.equal(existsSync(join(root, 'ok.txt')), false);
});

test('a symlinked folder inside the root is refused as a path component', async () => {
  for (const Path of [
    'link-dir/new.txt',
    'link-dir/sentinel.txt',
    'link-dir/deeper/x.txt',
    'link-dir/a/b.txt',
  ]) {
    const res = await create({ Path, Content: 'pwned' });
    assert.equal(res.errorCode, 'InvalidRequest', `${Path}: ${JSON.stringify(res.body)}`);
    for (const action of ['read', 'update', 'delete'] as const) {
      const event = await provider[action](request({ Path, Content: 'pwned', Mode: '0644' }));
      assert.equal(event.errorCode, 'InvalidRequest', `${action} ${Path}: ${event.message}`);
    }
  }
  assert.equal(existsSync(join(outside, 'new.txt')), false);
  assert.equal(existsSync(join(outside, 'a')), false);
  assert.equal(tree(outside), snapshot);
});

test('a symlink as the file itself is refused, never followed', async () => {
  const res = await create({ Path: 'link-file.txt', Content: 'pwned' });
  assert.equal(res.errorCode, 'InvalidRequest', JSON.stringify(res.body));
  for (const action of ['read', 'update', 'delete'] as const) {
    const event = await provider[action](request({ Path: 'link-file.txt', Content: 'pwned', Mode: '0644' }));
    assert.equal(event.errorCode, 'InvalidRequest', `${action}: ${event.message}`);
    assert.ok(!JSON.stringify(event).includes(SECRET), `${action} does not show the target's content`);
  }
  assert.equal(lstatSync(join(root, 'link-file.txt')).isSymbolicLink(), true, 'the link is left alone');
  assert.equal(readFileSync(join(outside, 'sentinel.txt'), 'utf8'), SECRET);
});

test('a file swapped for a symlink after creation is not read, written or deleted through', async () => {
  assert.equal((await create({ Path: 'swap.txt', Content: 'mine' })).errorCode, undefined);
  unlinkSync(join(root, 'swap.txt'));
  symlinkSync(join(outside, 'sentinel.txt'), join(root, 'swap.txt'));

  const read = await svc.call('GET', url('swap.txt'));
  assert.equal(read.status, 400, JSON.stringify(read.body));
  assert.equal(read.body.errorCode, 'InvalidRequest');
  assert.ok(!JSON.stringify(read.body).includes(SECRET));
  assert.equal((await update('swap.txt', 'pwned')).errorCode, 'InvalidRequest');
  assert.equal((await remove('swap.txt')).errorCode, 'InvalidRequest');
  assert.equal(lstatSync(join(root, 'swap.txt')).isSymbolicLink(), true);
  assert.equal(readFileSync(join(outside, 'sentinel.txt'), 'utf8'), SECRET);
});

test('a folder swapped for a symlink after creation is not read, written or deleted through', async () => {
  assert.equal((await create({ Path: 'swapdir/inner.txt', Content: 'mine' })).errorCode, undefined);
  renameSync(join(root, 'swapdir'), join(dir, 'moved-away'));
  symlinkSync(outside, join(root, 'swapdir')); // outside/inner.txt is there to be found

  const read = await svc.call('GET', url('swapdir/inner.txt'));
  assert.equal(read.status, 400, JSON.stringify(read.body));
  assert.ok(!JSON.stringify(read.body).includes(SECRET));
  assert.equal((await update('swapdir/inner.txt', 'pwned')).errorCode, 'InvalidRequest');
  assert.equal((await remove('swapdir/inner.txt')).errorCode, 'InvalidRequest');
  assert.equal(readFileSync(join(outside, 'inner.txt'), 'utf8'), SECRET);
  assert.equal(tree(outside), snapshot);
});

test('list never follows links: neither linked folders nor linked files are listed', async () => {
  writeFileSync(join(root, 'plain.txt'), 'plain');
  const page = await provider.list({ ...request({}), maxResults: 100 });
  assert.equal(page.status, 'SUCCESS', JSON.stringify(page));
  assert.deepEqual(
    page.resourceModels!.map((m) => m.Path),
    ['plain.txt'],
    'link-dir/*, link-file.txt, swap.txt and swapdir/* are links or behind them',
  );
  assert.ok(!JSON.stringify(page).includes(SECRET));
});

test('a bookkeeping folder replaced by a symlink is refused, not written through', async () => {
  const own = join(dir, 'own-root');
  const alone = createFileProvider({ root: own });
  assert.equal((await alone.create(request({ Path: 'a/first.txt', Content: '1' }))).status, 'SUCCESS');
  rmSync(join(own, '.typeplane'), { recursive: true });
  symlinkSync(outside, join(own, '.typeplane'));
  const event = await alone.create(request({ Path: 'b/second.txt', Content: '2' }));
  assert.equal(event.status, 'FAILED');
  assert.equal(event.errorCode, 'GeneralServiceException', event.message);
  assert.equal((await alone.delete(request({ Path: 'a/first.txt' }))).status, 'FAILED');
  assert.equal(readFileSync(join(own, 'a', 'first.txt'), 'utf8'), '1', 'refused before anything changed');
  const listed = await alone.list({ ...request({}), maxResults: 10 });
  assert.ok(!JSON.stringify(listed).includes(SECRET), 'the link is not listed');
  assert.equal(existsSync(join(outside, 'files')), false);
  assert.equal(existsSync(join(outside, 'folders')), false);
  assert.equal(tree(outside), snapshot);
});

test('nothing outside the root was ever created, changed or deleted', () => {
  assert.equal(tree(outside), snapshot);
  assert.deepEqual(readdirSync(dir).sort(), ['moved-away', 'outside', 'own-root', 'root']);
});
