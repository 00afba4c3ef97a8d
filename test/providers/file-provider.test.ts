import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createFileProvider, FILE_TYPE } from '../../src/providers/file/index.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';

const T = encodeURIComponent(FILE_TYPE);
let svc: TestService;
let root: string;
let outside: string;

before(async () => {
  const dir = tempDir();
  root = join(dir, 'root');
  outside = join(dir, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'sentinel.txt'), 'do not touch');
  const provider = createFileProvider({ root });
  svc = await startTestService({ providerDefinitions: [provider] });
});
after(() => svc.close());

const create = (desiredState: Record<string, unknown>) =>
  svc.call('POST', `/v1/resources/${T}?wait=5`, { desiredState });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

test('the type is registered from the provider and a file is created with its content and mode', async () => {
  assert.equal((await svc.call('GET', `/v1/types/${T}`)).status, 200);
  const res = await create({ Path: 'conf/app.ini', Content: 'a=1\n', Mode: '0600' });
  assert.equal(res.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(res.body));
  const file = join(root, 'conf', 'app.ini');
  assert.equal(readFileSync(file, 'utf8'), 'a=1\n');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const read = await svc.call('GET', `/v1/resources/${T}/${encodeURIComponent('conf/app.ini')}`);
  assert.deepEqual(read.body.properties, {
    Path: 'conf/app.ini',
    Content: 'a=1\n',
    Mode: '0600',
    Sha256: sha('a=1\n'),
    Size: 4,
  });
});

test('update rewrites content and mode; a second create is AlreadyExists', async () => {
  await create({ Path: 'u.txt', Content: 'one' });
  const up = await svc.call('PATCH', `/v1/resources/${T}/u.txt?wait=5`, {
    patchDocument: [
      { op: 'replace', path: '/Content', value: 'two' },
      { op: 'replace', path: '/Mode', value: '0640' },
    ],
  });
  assert.equal(up.body.progressEvent.operationStatus, 'SUCCESS', JSON.stringify(up.body));
  assert.equal(readFileSync(join(root, 'u.txt'), 'utf8'), 'two');
  assert.equal(statSync(join(root, 'u.txt')).mode & 0o777, 0o640);
  assert.equal(up.body.progressEvent.resourceModel.Sha256, sha('two'));
  const again = await create({ Path: 'u.txt', Content: 'three' });
  assert.equal(again.body.progressEvent.errorCode, 'AlreadyExists');
  assert.equal(readFileSync(join(root, 'u.txt'), 'utf8'), 'two');
});

test('read reflects the disk: a file deleted by hand is NotFound; delete removes the file and its empty folders', async () => {
  await create({ Path: 'gone/by/hand.txt', Content: 'x' });
  unlinkSync(join(root, 'gone', 'by', 'hand.txt'));
  assert.equal(
    (await svc.call('GET', `/v1/resources/${T}/${encodeURIComponent('gone/by/hand.txt')}`)).status,
    404,
  );

  await create({ Path: 'deep/er/file.txt', Content: 'x' });
  const del = await svc.call('DELETE', `/v1/resources/${T}/${encodeURIComponent('deep/er/file.txt')}?wait=5`);
  assert.equal(del.body.progressEvent.operationStatus, 'SUCCESS');
  assert.equal(existsSync(join(root, 'deep')), false, 'empty parent folders removed');
});

test('list pages through files, nested folders included, skipping bookkeeping', async () => {
  const provider = createFileProvider({ root: join(tempDir(), 'listing') });
  for (const path of ['b.txt', 'a/x.txt', 'a/y.txt', 'c/d/e.txt']) {
    const event = await provider.create({
      typeName: FILE_TYPE,
      desiredState: { Path: path, Content: path, Mode: '0644' },
      clientRequestToken: `t-${path}`,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      signal: new AbortController().signal,
    });
    assert.equal(event.status, 'SUCCESS', JSON.stringify(event));
  }
  const seen: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await provider.list({
      typeName: FILE_TYPE,
      desiredState: {},
      clientRequestToken: 'list',
      maxResults: 2,
      ...(nextToken ? { nextToken } : {}),
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      signal: new AbortController().signal,
    });
    assert.ok((page.resourceModels ?? []).length <= 2);
    seen.push(...(page.resourceModels ?? []).map((m) => String(m.Path)));
    nextToken = page.nextToken ?? undefined;
  } while (nextToken);
  assert.deepEqual(seen, ['a/x.txt', 'a/y.txt', 'b.txt', 'c/d/e.txt']);
});

test('paths that would leave the root are refused and nothing outside is touched', async () => {
  symlinkSync(outside, join(root, 'link-dir'));
  symlinkSync(join(outside, 'sentinel.txt'), join(root, 'link-file.txt'));
  for (const Path of ['../x.txt', '/etc/passwd', 'a/../../x.txt', 'link-dir/new.txt', 'link-file.txt']) {
    const res = await create({ Path, Content: 'pwned' });
    const outcome = res.status === 202 ? res.body.progressEvent : res.body;
    assert.ok(
      res.status === 400 || outcome.errorCode === 'InvalidRequest',
      `${Path}: ${JSON.stringify(res.body)}`,
    );
  }
  assert.equal(existsSync(join(outside, 'new.txt')), false);
  assert.equal(readFileSync(join(outside, 'sentinel.txt'), 'utf8'), 'do not touch');
  const read = await svc.call('GET', `/v1/resources/${T}/link-file.txt`);
  assert.notEqual(read.status, 200);
});

test('a create re-invoked with its own request token succeeds instead of AlreadyExists', async () => {
  const provider = createFileProvider({ root: join(tempDir(), 'retry') });
  const request = {
    typeName: FILE_TYPE,
    desiredState: { Path: 'once.txt', Content: 'x', Mode: '0644' },
    clientRequestToken: 'token-1',
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    signal: new AbortController().signal,
  };
  assert.equal((await provider.create(request)).status, 'SUCCESS');
  assert.equal((await provider.create(request)).status, 'SUCCESS');
  assert.equal(
    (await provider.create({ ...request, clientRequestToken: 'token-2' })).errorCode,
    'AlreadyExists',
  );
  const unconfigured = await createFileProvider().read({ ...request });
  assert.equal(unconfigured.errorCode, 'InvalidTypeConfiguration');
});
