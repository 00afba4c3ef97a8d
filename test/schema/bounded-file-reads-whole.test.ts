/**
 * The bounded reader gives a file's bytes whole, whatever its size against its buffer's (sized from
 * `stat`, 4 KiB at least, doubled as a file outgrows it), when its size is at or past the limit, and
 * for files whose `stat` says nothing of their size (/proc's report 0 and hold more).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readBoundedFile } from '../../src/schema/bounded-file.js';

const dir = mkdtempSync(join(tmpdir(), 'typeplane-bounded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes that differ from place to place, so a piece read twice or missed shows. */
function bytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + (i >> 8)) & 0xff;
  return b;
}

test('reads files of every size around its buffer sizes whole', () => {
  for (const size of [0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 65_537, 1_000_001]) {
    const file = join(dir, `f${size}`);
    const content = bytes(size);
    writeFileSync(file, content);
    const read = readBoundedFile(file, 2_000_000);
    assert.ok(Buffer.isBuffer(read), `${size}: ${String(read)}`);
    assert.equal(read.length, size);
    assert.ok(read.equals(content), `${size} bytes read as other bytes`);
  }
});

test('a file at the limit is read; one byte more is refused with its size', () => {
  const file = join(dir, 'limit');
  writeFileSync(file, bytes(10_000));
  assert.equal((readBoundedFile(file, 10_000) as Buffer).length, 10_000);
  assert.equal(readBoundedFile(file, 9_999), 10_000);
});

test('a file whose stat reports no size is read to its end', { skip: process.platform !== 'linux' }, () => {
  // /proc/self/maps: size 0 in stat, several KiB in fact (more than the first buffer's 4 KiB), its
  // last lines the stack's and the kernel's pages.
  const read = readBoundedFile('/proc/self/maps', 10_000_000);
  assert.ok(Buffer.isBuffer(read), String(read));
  const text = read.toString('utf8');
  assert.ok(read.length > 4096, `only ${read.length} bytes read`);
  assert.ok(text.endsWith('\n'), 'the last line is cut');
  assert.match(text, /\[stack\]/);
  // The same file read by Node whole has as many lines, give or take the mappings made between.
  const lines = readFileSync('/proc/self/maps', 'utf8').split('\n').length;
  assert.ok(
    Math.abs(text.split('\n').length - lines) < 20,
    `${text.split('\n').length} lines against ${lines}`,
  );
});
