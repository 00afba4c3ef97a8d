/**
 * @module The SQLite store's point reads, run together. A read asked for alone, between one
 * request's parsing, checks and answer and the next's, ran on caches those had filled with other
 * things: a one-row SELECT cost ~20 µs there, ~2 µs right after another (measured on the 2-core
 * machine; bench:api's reads went from 0.81 of the bare server's to 1.05). Reads asked for in one
 * turn of the event loop are run one after another at its end (setImmediate): only the first pays.
 * Several are run in one read transaction (`together`): each statement run alone begins and ends one
 * of its own, ~5 µs of the WAL's shared-memory locks (a one-row SELECT outside a transaction 5.3 µs,
 * inside one 0.13 µs). Each sees what was committed when the batch runs, which is after it was asked for.
 */
interface Pending {
  read: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class ReadBatch {
  private pending: Pending[] = [];
  private readonly drainSoon = () => this.drain();

  /** `together` runs its function in one read transaction (or as it is, inside one already). */
  constructor(private readonly together: (reads: () => void) => void = (reads) => reads()) {}

  /** `read`'s result, run with the others asked for in this turn of the event loop. */
  run<T>(read: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.pending.push({ read, resolve: resolve as (value: unknown) => void, reject }) === 1)
        setImmediate(this.drainSoon);
    });
  }

  /** Runs every read waiting now (also before the store closes: none is left to fail on a closed file). */
  drain(): void {
    const batch = this.pending;
    this.pending = [];
    const all = () => {
      for (const { read, resolve, reject } of batch) {
        try {
          resolve(read());
        } catch (error) {
          reject(error);
        }
      }
    };
    if (batch.length > 1) this.together(all);
    else all();
  }
}
