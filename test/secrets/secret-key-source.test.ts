import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSecretKey, SecretKeyError } from '../../src/secrets/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'typeplane-key-'));

test('the key file is created on first start with mode 0600, and read back on the next', () => {
  const file = join(dir(), 'secret.key');
  const first = loadSecretKey({ file });
  assert.equal(first.created, true);
  assert.equal(first.key.length, 32);
  if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(readFileSync(file, 'utf8').trim(), first.key.toString('base64'));
  const second = loadSecretKey({ file });
  assert.equal(second.created, false);
  assert.deepEqual(second.key, first.key);
});

test(
  'a key file others can read is refused, with the command that fixes it',
  { skip: process.platform === 'win32' },
  () => {
    const file = join(dir(), 'secret.key');
    loadSecretKey({ file });
    chmodSync(file, 0o644);
    assert.throws(
      () => loadSecretKey({ file }),
      (e: any) =>
        e instanceof SecretKeyError &&
        /other users \(mode 644\)/.test(e.message) &&
        e.message.includes(`chmod 600 ${file}`),
    );
    chmodSync(file, 0o640);
    assert.throws(() => loadSecretKey({ file }), /mode 640/);
    chmodSync(file, 0o400);
    assert.equal(loadSecretKey({ file }).key.length, 32, 'read-only for the owner is fine');
  },
);

test('a malformed key file is refused without being replaced', () => {
  const file = join(dir(), 'secret.key');
  writeFileSync(file, 'not a key\n', { mode: 0o600 });
  assert.throws(
    () => loadSecretKey({ file }),
    (e: any) => e instanceof SecretKeyError && /malformed/.test(e.message),
  );
  writeFileSync(file, `${randomBytes(16).toString('base64')}\n`, { mode: 0o600 });
  assert.throws(() => loadSecretKey({ file }), /malformed/);
  assert.equal(readFileSync(file, 'utf8').trim().length, 24, 'left as it was');
});

test('a key from the environment wins over the file; a malformed one is refused without echoing it', () => {
  const d = dir();
  const file = join(d, 'secret.key');
  const key = randomBytes(32);
  const loaded = loadSecretKey({ key: ` ${key.toString('base64')}\n`, file });
  assert.deepEqual(loaded.key, key);
  assert.equal(loaded.from, 'environment');
  assert.throws(() => statSync(file), /ENOENT/, 'no key file is made when the environment has the key');
  for (const bad of [
    '',
    'hunter2hunter2',
    randomBytes(31).toString('base64'),
    randomBytes(33).toString('base64'),
    `${key.toString('hex')}`,
  ]) {
    assert.throws(
      () => loadSecretKey({ key: bad, file }),
      (e: any) =>
        e instanceof SecretKeyError &&
        /TYPEPLANE_SECRET_KEY is not a usable key: it must be the base64 of 32 random bytes/.test(
          e.message,
        ) &&
        (bad === '' || !e.message.includes(bad)),
    );
  }
});
