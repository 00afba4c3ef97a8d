/**
 * @module The backup file: a header line, the store's data, a trailer line.
 *
 * ```
 * {"format":"typeplane-backup","formatVersion":1,"typeplaneVersion":"0.1.0","store":"sqlite",…}\n
 * <payload: a SQLite database file, or a PostgreSQL schema's rows as JSON lines>
 * \n{"end":"typeplane-backup","payloadBytes":123456,"sha256":"…"}\n
 * ```
 *
 * The header says what the payload is before any of it is read (so a restore refuses a wrong key
 * or target before it writes anything); the trailer comes last because a backup is streamed as it
 * is taken, when neither the length nor the checksum is known yet. The checksum covers the header
 * line and the payload: a file cut anywhere, or changed in any byte, is refused.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BackupError } from './errors.js';

export const FORMAT = 'typeplane-backup';
export const FORMAT_VERSION = 1;

/** This Typeplane's version, as its package states it. */
export const TYPEPLANE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export type StoreKind = 'sqlite' | 'postgresql';

export interface BackupHeader {
  format: typeof FORMAT;
  formatVersion: typeof FORMAT_VERSION;
  /** The Typeplane that took it. */
  typeplaneVersion: string;
  store: StoreKind;
  /** How many of the store's migrations its schema had run. */
  schemaVersion: number;
  /** The id of the secret key its sealed values were sealed with (never the key). */
  keyId: string;
  /** When the snapshot was taken (ISO 8601). */
  createdAt: string;
}

interface Trailer {
  end: typeof FORMAT;
  payloadBytes: number;
  sha256: string;
}

/** A header line is far shorter; a file whose first line is longer is no backup. */
const HEADER_MAX_BYTES = 4096;
/** Bytes held back from the payload until the end, where the trailer is (it takes about 120). */
const TAIL_BYTES = 256;
const NEWLINE = 0x0a;

/** The backup file, chunk by chunk: the header line, the payload as it comes, then the trailer. */
export async function* framed(
  header: BackupHeader,
  payload: AsyncIterable<Buffer> | Iterable<Buffer>,
): AsyncGenerator<Buffer> {
  const first = Buffer.from(`${JSON.stringify(header)}\n`);
  const hash = createHash('sha256').update(first);
  yield first;
  let payloadBytes = 0;
  for await (const chunk of payload) {
    hash.update(chunk);
    payloadBytes += chunk.length;
    yield chunk;
  }
  const trailer: Trailer = { end: FORMAT, payloadBytes, sha256: hash.digest('hex') };
  yield Buffer.from(`\n${JSON.stringify(trailer)}\n`);
}

export interface OpenedBackup {
  header: BackupHeader;
  /**
   * The payload's bytes. Once they have all come, the trailer is checked: the generator throws
   * {@link BackupError} `BackupDamaged` instead of ending when the file is cut short or changed, so
   * whatever a reader made of the payload is to be kept only once it ends.
   */
  payload: AsyncGenerator<Buffer>;
}

/** Reads a backup file's header; its payload follows as the returned generator is read. */
export async function openBackup(source: AsyncIterable<Buffer>): Promise<OpenedBackup> {
  const chunks = source[Symbol.asyncIterator]();
  let start = Buffer.alloc(0);
  let newline = -1;
  while (newline < 0) {
    const next = await chunks.next();
    if (next.done)
      throw start.length === 0
        ? new BackupError('NotABackup', 'the file is empty')
        : new BackupError('NotABackup', 'the file does not start with a Typeplane backup header');
    start = Buffer.concat([start, next.value]);
    newline = start.indexOf(NEWLINE);
    if (newline < 0 && start.length > HEADER_MAX_BYTES)
      throw new BackupError('NotABackup', 'the file does not start with a Typeplane backup header');
  }
  const headerLine = start.subarray(0, newline + 1);
  return {
    header: parseHeader(headerLine),
    payload: payloadOf(headerLine, start.subarray(newline + 1), chunks),
  };
}

function parseHeader(line: Buffer): BackupHeader {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    /* said below */
  }
  const h = (value ?? {}) as Partial<Record<keyof BackupHeader, unknown>>;
  if (h.format !== FORMAT)
    throw new BackupError('NotABackup', 'the file does not start with a Typeplane backup header');
  if (h.formatVersion !== FORMAT_VERSION)
    throw new BackupError(
      'NotABackup',
      `the backup's format version is ${JSON.stringify(h.formatVersion)}; this Typeplane (${TYPEPLANE_VERSION}) reads version ${FORMAT_VERSION}`,
    );
  if (
    (h.store !== 'sqlite' && h.store !== 'postgresql') ||
    !Number.isSafeInteger(h.schemaVersion) ||
    (h.schemaVersion as number) < 0 ||
    typeof h.keyId !== 'string' ||
    !/^[A-Za-z0-9_-]{8}$/.test(h.keyId) ||
    typeof h.typeplaneVersion !== 'string' ||
    typeof h.createdAt !== 'string'
  )
    throw new BackupError('BackupDamaged', 'the backup header is damaged: a member is missing or malformed');
  return h as BackupHeader;
}

const damaged = (why: string) =>
  new BackupError('BackupDamaged', `the backup is truncated or damaged: ${why}`);

/**
 * The payload between the header line and the trailer: everything but the last {@link TAIL_BYTES}
 * as it comes; those at the end, once the trailer in them has been found and checked.
 */
async function* payloadOf(
  headerLine: Buffer,
  rest: Buffer,
  chunks: AsyncIterator<Buffer>,
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256').update(headerLine);
  let bytes = 0;
  let tail = rest;
  const release = (out: Buffer) => {
    hash.update(out);
    bytes += out.length;
    return out;
  };
  for (;;) {
    const next = await chunks.next();
    if (next.done) break;
    const joined = tail.length === 0 ? next.value : Buffer.concat([tail, next.value]);
    if (joined.length <= TAIL_BYTES) {
      tail = joined;
      continue;
    }
    // A copy: the tail outlives the chunk it came from.
    tail = Buffer.from(joined.subarray(joined.length - TAIL_BYTES));
    yield release(joined.subarray(0, joined.length - TAIL_BYTES));
  }
  const at = tail.lastIndexOf('\n{');
  if (at < 0 || tail[tail.length - 1] !== NEWLINE) throw damaged('it ends before its trailer (cut short?)');
  let trailer: Partial<Trailer> = {};
  try {
    trailer = JSON.parse(tail.subarray(at + 1).toString('utf8')) as Partial<Trailer>;
  } catch {
    /* said below */
  }
  if (
    trailer.end !== FORMAT ||
    typeof trailer.sha256 !== 'string' ||
    !Number.isSafeInteger(trailer.payloadBytes)
  )
    throw damaged('it ends before its trailer (cut short?)');
  const last = release(tail.subarray(0, at));
  if (bytes !== trailer.payloadBytes)
    throw damaged(`it holds ${bytes} bytes of data where its trailer says ${trailer.payloadBytes}`);
  if (hash.digest('hex') !== trailer.sha256)
    throw damaged('its checksum does not match (a byte changed since it was written)');
  if (last.length > 0) yield last;
}
