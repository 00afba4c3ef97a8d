/**
 * @module The SQLite store's resource counts (per type and version, in `resource_counts`), their
 * changes held in this connection between flushes. Counted on every resource write, the counts' page
 * was written by every group commit: a twentieth of a create's bytes to the WAL. Triggers of this
 * connection's own (TEMP, so nothing of them reaches the file) add each change to `count_deltas`, a
 * table in memory that a transaction's rollback undoes with the rest; a group applies them to
 * `resource_counts` at most once a second (FLUSH_EVERY_MS). This connection reads its counts as the
 * file's plus its deltas: exact.
 *
 * While it holds deltas, the connection's id is written in `resource_counts_holder` (once, in the
 * transaction that first made one): a store that opens the file and finds a holder recounts from the
 * resources themselves, so counts whose deltas a crash lost are right again. A holder still alive
 * finds its id gone at its next group and drops its deltas, which that recount took in (the recount's
 * transaction came after theirs). While another connection holds, this one applies its changes in the
 * group that made them, as every group did before. What another process reads meanwhile lags by at
 * most a second; the checks that must be exact (a type or version deleted while resources remain)
 * look at the resources themselves.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';

/** How long a connection holds its deltas before applying them. */
export const FLUSH_EVERY_MS = 1000;

const TEMP_SCHEMA = `
  CREATE TEMP TABLE IF NOT EXISTS count_deltas (
    type_name    TEXT NOT NULL,
    type_version TEXT NOT NULL,
    delta        INTEGER NOT NULL,
    PRIMARY KEY (type_name, type_version)
  ) WITHOUT ROWID;
  CREATE TEMP TRIGGER IF NOT EXISTS count_delta_insert AFTER INSERT ON main.resources BEGIN
    INSERT INTO count_deltas (type_name, type_version, delta) VALUES (NEW.type_name, COALESCE(NEW.type_version, ''), 1)
      ON CONFLICT (type_name, type_version) DO UPDATE SET delta = delta + 1;
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS count_delta_delete AFTER DELETE ON main.resources BEGIN
    INSERT INTO count_deltas (type_name, type_version, delta) VALUES (OLD.type_name, COALESCE(OLD.type_version, ''), -1)
      ON CONFLICT (type_name, type_version) DO UPDATE SET delta = delta - 1;
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS count_delta_version AFTER UPDATE OF type_version ON main.resources
    WHEN OLD.type_version IS NOT NEW.type_version BEGIN
    INSERT INTO count_deltas (type_name, type_version, delta) VALUES (OLD.type_name, COALESCE(OLD.type_version, ''), -1)
      ON CONFLICT (type_name, type_version) DO UPDATE SET delta = delta - 1;
    INSERT INTO count_deltas (type_name, type_version, delta) VALUES (NEW.type_name, COALESCE(NEW.type_version, ''), 1)
      ON CONFLICT (type_name, type_version) DO UPDATE SET delta = delta + 1;
  END;
  -- The counts as this connection sees them: the file's and its own changes not applied yet.
  CREATE TEMP VIEW IF NOT EXISTS counts_now AS
    SELECT type_name, type_version, count FROM main.resource_counts
    UNION ALL SELECT type_name, type_version, delta FROM temp.count_deltas;
`;

/** The holder as a group found it: this connection, none, or another. */
type Holder = 'self' | 'none' | 'other';

export class ResourceCounts {
  /** This connection's id in `resource_counts_holder` while it holds deltas. */
  private readonly id = randomUUID();
  private lastFlush = Date.now();
  /** The holder as last read or written here; undefined once another connection committed. */
  private known: Holder | undefined;
  /** Whether count_deltas held changes at the end of the last group (true when unsure). */
  private held = false;
  private readonly sql;

  constructor(private readonly db: Database.Database) {
    // Kept in memory whatever the build's default: a temp file would be written to disk.
    db.pragma('temp_store = MEMORY');
    db.exec(TEMP_SCHEMA);
    this.sql = {
      holder: db.prepare<[], string | null>('SELECT holder FROM resource_counts_holder').pluck(true),
      claim: db.prepare<[string]>('UPDATE resource_counts_holder SET holder = ?'),
      release: db.prepare<[string]>('UPDATE resource_counts_holder SET holder = NULL WHERE holder = ?'),
      anyDelta: db
        .prepare<[], number>('SELECT EXISTS (SELECT 1 FROM count_deltas WHERE delta <> 0)')
        .pluck(true),
      apply: db.prepare(
        `INSERT INTO resource_counts (type_name, type_version, count)
           SELECT type_name, type_version, delta FROM count_deltas WHERE delta <> 0 ORDER BY 1, 2
           ON CONFLICT (type_name, type_version) DO UPDATE SET count = count + excluded.count`,
      ),
      clear: db.prepare('DELETE FROM count_deltas'),
      clearType: db.prepare<[string]>('DELETE FROM count_deltas WHERE type_name = ?'),
      recountClear: db.prepare('DELETE FROM resource_counts'),
      recount: db.prepare(
        `INSERT INTO resource_counts (type_name, type_version, count)
           SELECT type_name, COALESCE(type_version, ''), COUNT(*) FROM resources GROUP BY 1, 2`,
      ),
      unhold: db.prepare('UPDATE resource_counts_holder SET holder = NULL'),
    };
    // Left held (a crash, or a process still running that holds some): counted again from the resources.
    db.transaction(() => {
      if (this.sql.holder.get() == null) return;
      this.sql.recountClear.run();
      this.sql.recount.run();
      this.sql.unhold.run();
    }).immediate();
    this.known = 'none';
  }

  /** Another connection committed (SQLite's data_version moved): the holder may have changed. */
  othersCommitted(): void {
    this.known = undefined;
  }

  /** A group was rolled back: what its end decided is undone with it. */
  rolledBack(): void {
    this.known = undefined;
    this.held = true;
  }

  private holder(): Holder {
    if (this.known === undefined) {
      const holder = this.sql.holder.get();
      this.known = holder == null ? 'none' : holder === this.id ? 'self' : 'other';
    }
    return this.known;
  }

  /**
   * At a group's start, in its transaction (after data_version was read): deltas held while another
   * connection's recount took them in (its id is no longer the holder; see the module) are dropped.
   */
  begin(): void {
    if (this.held && this.holder() !== 'self') {
      this.sql.clear.run();
      this.held = false;
    }
  }

  /** At a group's end, in its transaction: the deltas it made are held, or applied. */
  end(): void {
    this.held = this.sql.anyDelta.get() === 1;
    if (!this.held) return;
    const holder = this.holder();
    if (holder === 'other' || (holder === 'self' && Date.now() - this.lastFlush >= FLUSH_EVERY_MS)) {
      this.apply(holder === 'self');
    } else if (holder === 'none') {
      this.sql.claim.run(this.id);
      this.known = 'self';
    }
  }

  /** Whether this connection holds deltas that a flush is due to apply. */
  due(): boolean {
    return this.held && Date.now() - this.lastFlush >= FLUSH_EVERY_MS;
  }

  /**
   * In a write transaction (a group's piece, or the close's): the deltas held are applied, and the
   * holder released. The holder is read afresh: outside a group no data_version was read.
   */
  flush(): void {
    this.known = undefined;
    this.begin();
    const mine = this.holder() === 'self';
    if (this.sql.anyDelta.get() === 1) {
      this.apply(mine);
    } else {
      // Deltas that came to nothing (made and undone) leave no holder behind.
      this.sql.clear.run();
      if (mine) this.release();
    }
  }

  private apply(release: boolean): void {
    this.sql.apply.run();
    this.sql.clear.run();
    if (release) this.release();
    this.held = false;
    this.lastFlush = Date.now();
  }

  private release(): void {
    this.sql.release.run(this.id);
    this.known = 'none';
  }

  /** In a transaction deleting a type: its deltas go with its counts. */
  dropType(typeName: string): void {
    this.sql.clearType.run(typeName);
  }

  /** Whether another connection holds deltas this one cannot see (its counts may lag by them). */
  othersHold(): boolean {
    // Read from the file: outside a group, what is known here may be older than another's commit.
    this.known = undefined;
    return this.holder() === 'other';
  }
}
