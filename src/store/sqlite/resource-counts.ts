/**
 * @module The SQLite store's resource counts (per type and version, in `resource_counts`), their
 * changes held in this connection between flushes. Counted on every resource write, the counts' page
 * was written by every group commit: a twentieth of a create's bytes to the WAL. The store tells each
 * change it writes (`added`: a resource inserted, deleted, or moved to another version) and this
 * class holds them in memory, with a journal of the changes since the last commit that a rollback
 * undoes (`mark`, `undo`, `committed`); a group applies them to `resource_counts` at most once a
 * second (FLUSH_EVERY_MS). This connection reads its counts as the file's plus its changes: exact.
 * (The changes were first held by TEMP triggers in a TEMP table: the trigger and its statement journal
 * cost a resource insert ~14,500 instructions more, nearly twice the insert's own.)
 *
 * While it holds changes, the connection's id is written in `resource_counts_holder` (once, in the
 * transaction that first made one): a store that opens the file and finds a holder recounts from the
 * resources themselves, so counts whose changes a crash lost are right again. A holder still alive
 * finds its id gone at its next group and drops its changes, which that recount took in (the
 * recount's transaction came after theirs). While another connection holds, this one applies its
 * changes in the group that made them, as every group did before. What another process reads
 * meanwhile lags by at most a second; the checks that must be exact (a type or version deleted while
 * resources remain) look at the resources themselves.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';

/** How long a connection holds its changes before applying them. */
export const FLUSH_EVERY_MS = 1000;

/** A change's key: the type's name and its version ('' for a resource written with none). */
const keyOf = (typeName: string, version: string | null | undefined) => `${typeName}\u0000${version ?? ''}`;

/** The holder as a group found it: this connection, none, or another. */
type Holder = 'self' | 'none' | 'other';

export class ResourceCounts {
  /** This connection's id in `resource_counts_holder` while it holds changes. */
  private readonly id = randomUUID();
  private lastFlush = Date.now();
  /** The holder as last read or written here; undefined once another connection committed. */
  private known: Holder | undefined;
  /** The changes not applied to the file yet, by keyOf; none is 0 (a change to 0 removes its key). */
  private readonly deltas = new Map<string, number>();
  /** Since the last commit: each change's key and amount, in pairs, for a rollback to undo. */
  private readonly journal: (string | number)[] = [];
  private readonly sql;

  constructor(db: Database.Database) {
    this.sql = {
      holder: db.prepare<[], string | null>('SELECT holder FROM resource_counts_holder').pluck(true),
      claim: db.prepare<[string]>('UPDATE resource_counts_holder SET holder = ?'),
      release: db.prepare<[string]>('UPDATE resource_counts_holder SET holder = NULL WHERE holder = ?'),
      apply: db.prepare<[string, string, number]>(
        `INSERT INTO resource_counts (type_name, type_version, count) VALUES (?, ?, ?)
           ON CONFLICT (type_name, type_version) DO UPDATE SET count = count + excluded.count`,
      ),
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

  /**
   * In a write transaction: a resource of `typeName` at `version` was inserted (1) or deleted (-1);
   * moved from one version to another, it is both.
   */
  added(typeName: string, version: string | null | undefined, delta: 1 | -1): void {
    this.change(keyOf(typeName, version), delta);
  }

  /** A change made in the transaction: kept in the journal, for a rollback to undo. */
  private change(key: string, delta: number): void {
    this.adjust(key, delta);
    this.journal.push(key, delta);
  }

  private adjust(key: string, delta: number): void {
    const sum = (this.deltas.get(key) ?? 0) + delta;
    if (sum === 0) this.deltas.delete(key);
    else this.deltas.set(key, sum);
  }

  /** Where a transaction (or a savepoint) starts: `undo` takes the changes back to here. */
  mark(): number {
    return this.journal.length;
  }

  /** The transaction or savepoint begun at `mark` was rolled back: its changes are undone with it. */
  undo(mark: number): void {
    for (let i = this.journal.length - 2; i >= mark; i -= 2)
      this.adjust(this.journal[i] as string, -(this.journal[i + 1] as number));
    this.journal.length = mark;
  }

  /** The transaction committed: its changes stand. */
  committed(): void {
    this.journal.length = 0;
  }

  /** Another connection committed (SQLite's data_version moved): the holder may have changed. */
  othersCommitted(): void {
    this.known = undefined;
  }

  /** A group was rolled back (its changes undone by `undo`): what its end decided is undone with it. */
  rolledBack(): void {
    this.known = undefined;
  }

  private holder(): Holder {
    if (this.known === undefined) {
      const holder = this.sql.holder.get();
      this.known = holder == null ? 'none' : holder === this.id ? 'self' : 'other';
    }
    return this.known;
  }

  /**
   * At a group's start, in its transaction (after data_version was read): changes held while another
   * connection's recount took them in (its id is no longer the holder; see the module) are dropped.
   */
  begin(): void {
    if (this.deltas.size > 0 && this.holder() !== 'self') this.clear();
  }

  /** At a group's end, in its transaction: the changes it made are held, or applied. */
  end(): void {
    if (this.deltas.size === 0) return;
    const holder = this.holder();
    if (holder === 'other' || (holder === 'self' && Date.now() - this.lastFlush >= FLUSH_EVERY_MS)) {
      this.apply(holder === 'self');
    } else if (holder === 'none') {
      this.sql.claim.run(this.id);
      this.known = 'self';
    }
  }

  /** Whether this connection holds changes that a flush is due to apply. */
  due(): boolean {
    return this.deltas.size > 0 && Date.now() - this.lastFlush >= FLUSH_EVERY_MS;
  }

  /**
   * In a write transaction (a group's piece, or the close's): the changes held are applied, and the
   * holder released. The holder is read afresh: outside a group no data_version was read.
   */
  flush(): void {
    this.known = undefined;
    this.begin();
    if (this.deltas.size > 0) this.apply(this.holder() === 'self');
    // Changes that came to nothing (made and undone) leave no holder behind.
    else if (this.holder() === 'self') this.release();
  }

  private apply(release: boolean): void {
    // In the order of the keys: two connections applying at once take the rows' locks alike.
    for (const key of [...this.deltas.keys()].sort()) {
      const at = key.indexOf('\u0000');
      this.sql.apply.run(key.slice(0, at), key.slice(at + 1), this.deltas.get(key)!);
    }
    this.clear();
    if (release) this.release();
    this.lastFlush = Date.now();
  }

  private clear(): void {
    for (const [key, delta] of [...this.deltas]) this.change(key, -delta);
  }

  private release(): void {
    this.sql.release.run(this.id);
    this.known = 'none';
  }

  /** In a transaction deleting a type: its changes go with its counts. */
  dropType(typeName: string): void {
    for (const [version, delta] of this.pendingByVersion(typeName))
      this.change(keyOf(typeName, version), -delta);
  }

  /** This connection's changes not applied yet to the count of `typeName` (at `version`, or all). */
  pending(typeName: string, version?: string): number {
    if (version !== undefined) return this.deltas.get(keyOf(typeName, version)) ?? 0;
    let sum = 0;
    for (const delta of this.pendingByVersion(typeName).values()) sum += delta;
    return sum;
  }

  /** This connection's changes not applied yet to `typeName`'s counts, by version ('' for none). */
  pendingByVersion(typeName: string): Map<string, number> {
    const prefix = keyOf(typeName, '');
    const byVersion = new Map<string, number>();
    for (const [key, delta] of this.deltas)
      if (key.startsWith(prefix)) byVersion.set(key.slice(prefix.length), delta);
    return byVersion;
  }

  /** Whether another connection holds changes this one cannot see (its counts may lag by them). */
  othersHold(): boolean {
    // Read from the file: outside a group, what is known here may be older than another's commit.
    this.known = undefined;
    return this.holder() === 'other';
  }
}
