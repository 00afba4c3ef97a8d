/**
 * @module A SQLite store's snapshot, through SQLite's online backup API, into a private file beside
 * the database, then read out as the backup's payload.
 *
 * The copy runs on a worker thread with a connection of its own, in one step: the server's event
 * loop never waits for it, and the step reads one consistent state of the database (a WAL reader:
 * writers go on meanwhile). Copied in small steps instead, a copy whose source another connection
 * writes between two steps starts over, so on a busy store it might never finish.
 *
 * The file is named after the process that made it (`.typeplane-backup-<pid>-<random>.db`): one a
 * server left when it was killed mid-backup is removed at the next start (`removeLeftSnapshots`).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SQLITE_HEADER_BYTES, sqliteUserVersion } from './sqlite-header.js';
import type { Snapshot } from './snapshot.js';

/**
 * The thread's code, plain CommonJS (it runs as it is from the TypeScript sources and built), and a
 * constant: nothing in it comes from outside but the two paths. The first step (0 pages) starts the
 * backup; the second copies every page.
 */
const SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.source, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.backup(workerData.destination, { progress: () => 0x7fffffff })
  .then((progress) => parentPort.postMessage(progress.totalPages))
  .finally(() => db.close());
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/** Chunks read from the snapshot file at a time. */
const READ_BYTES = 256 * 1024;

/** A snapshot file's name (and its journal's, should a copy be cut short): the pid that made it. */
const SNAPSHOT_NAME = /^\.typeplane-backup-(\d{1,10})-[0-9a-f]{12}\.db(?:-journal)?$/;

/** The snapshot files (names) this process holds: from before its first byte until removed. */
const held = new Set<string>();

/** A snapshot of the SQLite database at `path`, held in a file beside it until released. */
export async function snapshotSqlite(path: string): Promise<Snapshot> {
  const name = `.typeplane-backup-${process.pid}-${randomBytes(6).toString('hex')}.db`;
  const file = join(dirname(path), name);
  held.add(name);
  // Off the event loop: unlinking a file of hundreds of MB took the server's loop up to ~90 ms.
  const remove = async () => {
    await Promise.all(['', '-journal'].map((suffix) => rm(file + suffix, { force: true })));
    held.delete(name);
  };
  try {
    // Made private before a byte is copied into it: it holds the whole store.
    closeSync(openSync(file, 'wx', 0o600));
    await copy(path, file);
    const schemaVersion = sqliteUserVersion(firstBytes(file));
    if (schemaVersion === undefined) throw new Error('the snapshot is not a SQLite database');
    const payload = createReadStream(file, { highWaterMark: READ_BYTES });
    return {
      schemaVersion,
      payload,
      release: async () => {
        payload.destroy();
        await remove();
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Removes the snapshot files in `dataDir` that a backup left behind when its server stopped mid-way
 * (killed, or crashed): those whose process no longer runs, and those of this process's pid that it
 * does not hold (an earlier process's, the pid since reused — a restarted container's is often 1).
 * A file another running process holds (a second server on the same data dir) is left alone. Only
 * names of the exact snapshot pattern are touched. Returns the names it removed.
 */
export async function removeLeftSnapshots(dataDir: string): Promise<string[]> {
  const names = await readdir(dataDir).catch(() => [] as string[]);
  const left = names.filter((name) => {
    const match = SNAPSHOT_NAME.exec(name);
    return match !== null && !held.has(name.replace(/-journal$/, '')) && !runsElsewhere(Number(match[1]));
  });
  // One that cannot be removed now (its folder's permissions) stays, to be tried at the next start.
  const removed = await Promise.allSettled(left.map((name) => rm(join(dataDir, name), { force: true })));
  return left.filter((_, i) => removed[i]!.status === 'fulfilled');
}

/** Whether `pid` is a process that runs now, other than this one. */
function runsElsewhere(pid: number): boolean {
  // 0 would signal this process's group; no process made a file under it.
  if (pid === process.pid || pid === 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function copy(source: string, destination: string): Promise<void> {
  const worker = new Worker(SOURCE, { eval: true, workerData: { driver: DRIVER, source, destination } });
  return new Promise((resolve, reject) => {
    let copied = false;
    worker.once('message', () => (copied = true));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      copied
        ? resolve()
        : reject(new Error(`the backup thread stopped (exit code ${code}) before the copy was made`)),
    );
  });
}

function firstBytes(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const start = Buffer.alloc(SQLITE_HEADER_BYTES);
    readSync(fd, start, 0, SQLITE_HEADER_BYTES, 0);
    return start;
  } finally {
    closeSync(fd);
  }
}
