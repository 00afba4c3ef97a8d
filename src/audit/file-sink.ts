/**
 * @module The audit log: chained JSON lines appended to a file (rotated by size, the newest N kept)
 * or to stdout. A server started again continues the chain where the file (or its last rotation)
 * ends; a rotated file's first record names the previous file's last hash, so the set verifies as one.
 *
 * Lines are written synchronously, in the order the records are made: the record of a request is
 * in the file (the kernel's page cache) before the next record is made.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { chainLine, EMPTY_CHAIN, type ChainHead } from './chain.js';
import type { AuditEvent } from './event.js';

export interface FileSinkOptions {
  /** A file path, or `-` for stdout. */
  path: string;
  /** Rotate before a file grows past this many bytes (default 100 MiB). */
  maxBytes?: number;
  /** Rotated files kept beside the current one (`<path>.1` newest … `<path>.<n>`; default 5). */
  maxFiles?: number;
  key: Buffer;
}

export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 5;

export class FileSink {
  private fd: number;
  private size: number;
  private head: ChainHead;
  private readonly maxBytes: number;
  private readonly maxFiles: number;

  constructor(private readonly options: FileSinkOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
    if (options.path === '-') {
      this.fd = 1;
      this.size = 0;
      this.head = EMPTY_CHAIN;
      return;
    }
    this.head = lastHead(options.path) ?? lastHead(`${options.path}.1`) ?? EMPTY_CHAIN;
    this.fd = openSync(options.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(event: AuditEvent): void {
    const { line, head } = chainLine(this.options.key, this.head, event);
    const bytes = Buffer.from(`${line}\n`);
    if (this.fd !== 1 && this.size > 0 && this.size + bytes.length > this.maxBytes) this.rotate();
    writeSync(this.fd, bytes);
    this.size += bytes.length;
    this.head = head;
  }

  close(): void {
    if (this.fd !== 1) closeSync(this.fd);
  }

  /** `<path>` becomes `<path>.1`, `.1` becomes `.2`, …; the oldest beyond maxFiles is removed. */
  private rotate(): void {
    const { path } = this.options;
    closeSync(this.fd);
    rmSync(`${path}.${this.maxFiles}`, { force: true });
    for (let n = this.maxFiles - 1; n >= 1; n--)
      if (existsSync(`${path}.${n}`)) renameSync(`${path}.${n}`, `${path}.${n + 1}`);
    if (this.maxFiles >= 1) renameSync(path, `${path}.1`);
    else rmSync(path, { force: true });
    this.fd = openSync(path, 'a', 0o600);
    this.size = 0;
  }
}

/** The sequence and hash of the last record in `file`; undefined when it has none. */
function lastHead(file: string): ChainHead | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    // Read back from the end until a whole last line is in hand.
    let tail = '';
    for (let end = size; end > 0 && !/\n[^\n]+\n?$/.test(tail);) {
      const start = Math.max(0, end - 65536);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      tail = chunk.toString('utf8') + tail;
      end = start;
    }
    const line = tail.trimEnd().split('\n').pop();
    if (!line) return undefined;
    const record = JSON.parse(line) as { sequence?: unknown; hash?: unknown };
    if (typeof record.sequence !== 'number' || typeof record.hash !== 'string') return undefined;
    return { sequence: record.sequence, hash: record.hash };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
