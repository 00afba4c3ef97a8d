/**
 * The backup file's framing on its own: what is written reads back the same however it is chunked,
 * and a file cut at any byte, or with any one byte changed, is refused, never read as whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BackupError, openBackup, type BackupHeader } from '../../src/backup/index.js';
import { framed } from '../../src/backup/format.js';

const HEADER: BackupHeader = {
  format: 'typeplane-backup',
  formatVersion: 1,
  typeplaneVersion: '0.1.0',
  store: 'postgresql',
  schemaVersion: 6,
  keyId: 'AbCd1234',
  createdAt: '2026-01-02T03:04:05.000Z',
};
// Payload lines that look like a trailer must not end the file early.
const PAYLOAD = [
  '{"table":"kv","columns":["namespace","key"]}\n',
  '["a","b"]\n',
  '{"end":"typeplane-backup","payloadBytes":10,"sha256":"00"}\n',
  `["${'x'.repeat(300)}",null]\n`,
].join('');

async function whole(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of framed(HEADER, [Buffer.from(PAYLOAD)])) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The file's bytes in chunks of `size`. */
async function* inChunks(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function read(bytes: Buffer, size = 64): Promise<{ header: BackupHeader; payload: string }> {
  const backup = await openBackup(inChunks(bytes, size));
  const parts: Buffer[] = [];
  for await (const part of backup.payload) parts.push(part);
  return { header: backup.header, payload: Buffer.concat(parts).toString('utf8') };
}

test('a backup file reads back as written, in chunks of any size', async () => {
  const bytes = await whole();
  for (const size of [1, 7, 100, 255, 256, 257, bytes.length])
    assert.deepEqual(await read(bytes, size), { header: HEADER, payload: PAYLOAD }, `chunks of ${size}`);
});

test('a file cut at any byte is refused', async () => {
  const bytes = await whole();
  for (let length = 0; length < bytes.length; length++)
    await assert.rejects(
      read(bytes.subarray(0, length), 13),
      (e: unknown) => e instanceof BackupError && /NotABackup|BackupDamaged/.test(e.code),
      `cut at ${length} of ${bytes.length}`,
    );
});

test('a file with any one byte changed is refused', async () => {
  const bytes = await whole();
  for (let at = 0; at < bytes.length; at++) {
    const changed = Buffer.from(bytes);
    changed[at] = changed[at]! ^ 0x01;
    await assert.rejects(read(changed), BackupError, `byte ${at} changed`);
  }
});

test('bytes after the trailer are refused', async () => {
  const bytes = await whole();
  await assert.rejects(read(Buffer.concat([bytes, Buffer.from('more\n')])), BackupError);
});
