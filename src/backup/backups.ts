/**
 * @module Taking a backup of the store a server runs on: a snapshot of it, framed as a backup file
 * (see `format.ts`) and streamed as it is read. One at a time per server.
 */
import { TypeplaneError } from '../errors.js';
import { FORMAT, FORMAT_VERSION, TYPEPLANE_VERSION, framed, type BackupHeader } from './format.js';
import { snapshotPostgres } from './postgresql-export.js';
import { snapshotSqlite } from './sqlite-snapshot.js';
import type { Snapshot } from './snapshot.js';

/** Where the server's store is. */
export type BackupSource =
  { store: 'sqlite'; path: string } | { store: 'postgresql'; url: string; schema: string };

export interface TakenBackup {
  header: BackupHeader;
  /** The backup file's bytes, read once; what the snapshot holds is let go when they end or stop. */
  body: AsyncGenerator<Buffer>;
  /** Lets go of the snapshot now (the body was not read to its end); safe to call more than once. */
  release(): Promise<void>;
}

export class Backups {
  private taking = false;

  /** `keyId`: the id of the secret key the store's values are sealed with, named in every backup. */
  constructor(
    private readonly source: BackupSource,
    private readonly keyId: string,
  ) {}

  /**
   * Takes the snapshot (SQLite: a whole copy made; PostgreSQL: its transaction begun) before it
   * resolves, so a backup that cannot start is an error, not a cut stream.
   *
   * @throws TypeplaneError `Throttling` while another backup of this server is under way.
   */
  async take(): Promise<TakenBackup> {
    if (this.taking)
      throw new TypeplaneError(
        'Throttling',
        'a backup of this server is under way; take another once it has finished',
      );
    this.taking = true;
    const createdAt = new Date().toISOString();
    let snapshot: Snapshot;
    try {
      snapshot =
        this.source.store === 'sqlite'
          ? await snapshotSqlite(this.source.path)
          : await snapshotPostgres(this.source.url, this.source.schema);
    } catch (error) {
      this.taking = false;
      throw error;
    }
    const header: BackupHeader = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      typeplaneVersion: TYPEPLANE_VERSION,
      store: this.source.store,
      schemaVersion: snapshot.schemaVersion,
      keyId: this.keyId,
      createdAt,
    };
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      this.taking = false;
      await snapshot.release();
    };
    async function* body(): AsyncGenerator<Buffer> {
      try {
        yield* framed(header, snapshot.payload);
      } finally {
        await release();
      }
    }
    return { header, body: body(), release };
  }
}
