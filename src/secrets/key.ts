/**
 * @module Where the secret key comes from: the `TYPEPLANE_SECRET_KEY` environment variable (the
 * base64 of 32 bytes), else a key file (by default `<data-dir>/secret.key`), created with mode 0600
 * on first start. An unusable key stops the server at start with a message that says how to fix it;
 * the key itself is never printed.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { KEY_BYTES } from './sealer.js';

export const SECRET_KEY_ENV = 'TYPEPLANE_SECRET_KEY';
export const SECRET_KEY_FILE_NAME = 'secret.key';

/** The key could not be had: the server must not start. */
export class SecretKeyError extends Error {
  readonly code = 'SecretKeyError';
}

export interface SecretKeySource {
  /** The key as base64 text (from the environment); wins over the file. */
  key?: string | undefined;
  /** The key file: read if it exists, created (0600) if not. */
  file: string;
}

export interface LoadedKey {
  key: Buffer;
  /** Where it came from, for the start-up log (never the key). */
  from: 'environment' | 'file';
  /** True when the key file was created just now. */
  created: boolean;
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HOW_TO_MAKE = `the base64 of ${KEY_BYTES} random bytes (make one with: openssl rand -base64 ${KEY_BYTES})`;

/** The key from the environment, or from (a newly created) key file. */
export function loadSecretKey(source: SecretKeySource): LoadedKey {
  if (source.key !== undefined) {
    const key = decodeKey(source.key);
    if (!key) throw new SecretKeyError(`${SECRET_KEY_ENV} is not a usable key: it must be ${HOW_TO_MAKE}`);
    return { key, from: 'environment', created: false };
  }
  const existing = readKeyFile(source.file);
  if (existing) return { key: existing, from: 'file', created: false };
  const key = randomBytes(KEY_BYTES);
  if (createKeyFile(source.file, key)) return { key, from: 'file', created: true };
  // Another process created it first: use theirs.
  const theirs = readKeyFile(source.file);
  if (!theirs) throw new SecretKeyError(`secret key file ${source.file} vanished while starting`);
  return { key: theirs, from: 'file', created: false };
}

function decodeKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!BASE64.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

/** The key in `file`, or undefined when there is no such file. */
function readKeyFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SecretKeyError(`cannot read secret key file ${file}: ${(e as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SecretKeyError(`secret key file ${file} is not a regular file`);
    // Windows has no such mode bits.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      throw new SecretKeyError(
        `secret key file ${file} can be read or written by other users (mode ${(stat.mode & 0o777).toString(8)}); ` +
          `restrict it with: chmod 600 ${file}`,
      );
    }
    const key = decodeKey(readFileSync(fd, 'utf8'));
    if (!key) {
      throw new SecretKeyError(
        `secret key file ${file} is malformed: it must hold ${HOW_TO_MAKE}. ` +
          'If it was damaged, restore it from a backup: values sealed with the lost key cannot be recovered',
      );
    }
    return key;
  } finally {
    closeSync(fd);
  }
}

/**
 * Write the key to a private temporary file, then link it into place: the link fails if the file
 * exists, so the key file appears whole or not at all, and two servers starting at once agree on one.
 * False when another process created it first.
 */
function createKeyFile(file: string, key: Buffer): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeFileSync(fd, `${key.toString('base64')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } catch (e) {
    if (e instanceof SecretKeyError) throw e;
    throw new SecretKeyError(`cannot create secret key file ${file}: ${(e as Error).message}`);
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      /* never created */
    }
  }
}
