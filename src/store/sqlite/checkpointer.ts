/**
 * @module The SQLite store's checkpointer: a worker thread with a connection of its own that copies
 * pages from the WAL into the database file (PASSIVE checkpoints) as they are written. The store's
 * event loop then never stops for a checkpoint's copying and fsyncs; the store's own automatic
 * checkpoint stays as the backstop (it then finds almost nothing left to copy), so the WAL stays
 * bounded even if this thread falls behind or fails.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface Checkpointer {
  /** Stops the thread after its current pass and closes its connection. */
  stop(): Promise<void>;
  /** Passes that copied frames into the database file so far (read from memory shared with the thread). */
  passes(): number;
}

/**
 * The thread's code, plain CommonJS JavaScript: it runs as it is whether Typeplane runs built or from
 * its TypeScript source, and it is a constant (nothing in it comes from outside but the file path).
 *
 * A pass right after one that left at least 1,024 frames behind, else after 200 ms; an idle store is
 * looked at less and less often, down to every 500 ms. A pass copies each page once, however many
 * frames hold it: passes further apart copy the pages every group writes (the operations' last
 * leaf and its request-token index) less often. Every 20 ms, this thread cost 3.5% of a create's
 * CPU more (bench:api:baseline, 120 paired slices); the store's own checkpoint (4,000 frames) stays
 * far off either way. PASSIVE never waits for the writer; `busy` is
 * 1 when another process's checkpoint runs (that one does the work). A pass copied frames when more
 * are checkpointed than after the last pass, or any after the WAL started again from its beginning.
 */
const SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const flag = new Int32Array(workerData.stop);
const passes = new BigInt64Array(workerData.passes);
const db = new Database(workerData.path);
try {
  db.pragma('busy_timeout = 1000');
  db.pragma('synchronous = NORMAL');
  let pause = 200;
  let lastLog = -1;
  let lastCheckpointed = 0;
  while (Atomics.load(flag, 0) === 0) {
    const result = db.pragma('wal_checkpoint(PASSIVE)')[0] || { log: 0, checkpointed: 0 };
    const before = result.log < lastLog ? 0 : lastCheckpointed;
    if (result.checkpointed > before) Atomics.add(passes, 0, 1n);
    lastCheckpointed = Math.max(0, result.checkpointed);
    if (result.log - result.checkpointed >= 1024) pause = 1;
    else if (result.log === lastLog) pause = Math.min(500, pause * 2);
    else pause = 200;
    lastLog = result.log;
    Atomics.wait(flag, 0, 0, pause);
  }
} finally {
  db.close();
}
`;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/** Start checkpointing the database file at `path` in the background. */
export function startCheckpointer(path: string): Checkpointer {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const passes = new BigInt64Array(new SharedArrayBuffer(8));
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { path, driver: DRIVER, stop: stop.buffer, passes: passes.buffer },
  });
  // Never what keeps a process alive.
  worker.unref();
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => resolve());
    // Followed by 'exit'; the store's automatic checkpoint carries on alone.
    worker.once('error', () => undefined);
  });
  return {
    passes: () => Number(Atomics.load(passes, 0)),
    async stop() {
      // Held open until the thread is gone, so that its exit is waited for.
      worker.ref();
      Atomics.store(stop, 0, 1);
      Atomics.notify(stop, 0);
      await exited;
    },
  };
}
