/**
 * @module A SQLite backup written into a data dir as its `typeplane.db`: into a file of its own
 * first, which becomes the database only once the whole backup has come and its checksum holds. A
 * refused or failed restore leaves the folder as it found it (and removes it if it made it).
 */
import { constants } from 'node:fs';
import { link, mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupError } from './errors.js';
import type { BackupHeader } from './format.js';
import { SQLITE_HEADER_BYTES, sqliteUserVersion } from './sqlite-header.js';

/** The database file's name in a data dir, as `typeplane serve` opens it. */
export const DATABASE_FILE = 'typeplane.db';

/**
 * Writes `payload` (a SQLite backup's) as `<dataDir>/typeplane.db`. The folder must not exist, or
 * hold nothing but the files named in `keep` (the secret key file, put there to be used).
 */
export async function restoreSqlite(
  dataDir: string,
  header: BackupHeader,
  payload: AsyncIterable<Buffer>,
  keep: readonly string[],
): Promise<void> {
  const made = await prepare(dataDir, keep);
  const partial = join(dataDir, `.${DATABASE_FILE}.restoring`);
  let file: FileHandle | undefined;
  try {
    file = await open(partial, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
    let start = Buffer.alloc(0);
    for await (const chunk of payload) {
      if (start.length < SQLITE_HEADER_BYTES)
        start = Buffer.concat([start, chunk.subarray(0, SQLITE_HEADER_BYTES)]);
      await file.write(chunk);
    }
    // Only now is every byte known to be the backup's (its checksum held).
    if (sqliteUserVersion(start) !== header.schemaVersion)
      throw new BackupError(
        'BackupDamaged',
        `the backup's data is not the SQLite database of schema version ${header.schemaVersion} its header announces`,
      );
    await file.sync();
    await file.close();
    file = undefined;
    // A link, not a rename: it fails rather than replace a database that appeared meanwhile.
    await link(partial, join(dataDir, DATABASE_FILE)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST')
        throw new BackupError('TargetNotEmpty', `${join(dataDir, DATABASE_FILE)} appeared while restoring`);
      throw error;
    });
    await rm(partial);
    await syncFolder(dataDir);
  } catch (error) {
    await file?.close().catch(() => undefined);
    await rm(partial, { force: true });
    if (made !== undefined) await rm(made, { recursive: true, force: true });
    throw error;
  }
}

/** Checks the folder is empty but for `keep`, or makes it; the first folder it made, if any. */
async function prepare(dataDir: string, keep: readonly string[]): Promise<string | undefined> {
  const found = await stat(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  // Private: it is to hold every record of the store.
  if (!found) return mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (!found.isDirectory())
    throw new BackupError(
      'TargetNotEmpty',
      `${dataDir} is a file, not a folder: restore into a new or empty folder`,
    );
  const others = (await readdir(dataDir)).filter((name) => !keep.includes(name)).sort();
  if (others.length > 0)
    throw new BackupError(
      'TargetNotEmpty',
      `the data dir ${dataDir} is not empty (it holds ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}): restore into a new folder, or an empty one (the secret key file may be there already)`,
    );
  return undefined;
}

/** Makes the new name itself durable: a crash right after the restore does not lose the file. */
async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
