/**
 * @module The SQLite store's client tokens, indexed in batches. Each operation keeps its (scoped)
 * client token in its own row, appended in `seq` order; the token-ordered index (client_token_index,
 * migration 20) is filled from those rows a batch at a time, each batch up to a watermark written in
 * the same transaction. The tokens of the rows after the watermark are held here, in memory (the
 * tail), rebuilt from those rows when the store opens. A create then writes no page of a token-ordered
 * index (a random place each time: a page a create), and a batch writes each index page it touches
 * once for all its tokens.
 *
 * Another process may write the same file: whenever SQLite's `data_version` says another connection
 * committed (the store reads it once per group, under the write lock, and before a lookup outside
 * one), the rows after the last one seen are read into the tail, so a token another process used is
 * found as surely as one of this process's. Within a group transaction, the tokens its pieces added are
 * undone with them when a piece, or the group, is rolled back.
 */
import type Database from 'better-sqlite3';

/**
 * Index once this many tokens wait, or every INDEX_EVERY_MS while any does. A batch writes each index
 * page it touches once: the larger the batch against the index, the fewer pages a token costs (4,096
 * tokens a batch wrote 14.6 KiB a create in bench:api, whose index grows past a thousand pages;
 * without tokens a create writes 12.0). Held here, a token costs about a hundred bytes.
 */
export const INDEX_AFTER = 32_768;
export const INDEX_EVERY_MS = 10_000;

/** The seq of the operation whose (indexed) client token is the one parameter; no row when none is. */
export const INDEXED_TOKEN_SQL = 'SELECT seq FROM client_token_index WHERE client_token = ?';

export class ClientTokens {
  /** Token → seq of its operation, for the operations after the watermark. */
  private readonly tail = new Map<string, number>();
  /** The tokens added by the group being run, in order (undone by a rollback). */
  private added: string[] = [];
  private through: number;
  /** The last operation read from the file (this process's own tokens are added as they are used). */
  private seen: number;
  private readonly sql: ReturnType<typeof statements>;

  constructor(
    db: Database.Database,
    private readonly batch = INDEX_AFTER,
  ) {
    this.sql = statements(db);
    this.through = this.sql.watermark.get() ?? 0;
    this.seen = this.through;
    this.readAfter(this.through);
  }

  private readAfter(seq: number): void {
    // The last operation first: one committed while the rows are read comes after it, read next time
    // (outside a group another connection may commit between two statements).
    const last = this.sql.lastSeq.get() ?? 0;
    for (const row of this.sql.between.iterate(seq, last) as Iterable<{ client_token: string; seq: number }>)
      this.tail.set(row.client_token, row.seq);
    // The operations without a token are not read again either.
    this.seen = Math.max(seq, last);
  }

  /**
   * Another connection committed (the store's data_version moved, checked once per group and before a
   * lookup outside one): reads in the tokens of the operations after the last one seen.
   */
  othersCommitted(): void {
    this.through = Math.max(this.through, this.sql.watermark.get() ?? 0);
    this.readAfter(Math.max(this.seen, this.through));
  }

  /** The seq of the operation that used `token`, if one did. */
  seqOf(token: string): number | undefined {
    return this.held(token) ?? this.sql.indexed.get(token);
  }

  /**
   * The seq of the operation that used `token`, if it is held here (after the watermark); the others
   * are in the index, found by {@link INDEXED_TOKEN_SQL} (a lookup the store may make part of a
   * statement of its own).
   */
  held(token: string): number | undefined {
    return this.tail.get(token);
  }

  /** An operation just inserted (in the group being run) used `token`. */
  add(token: string, seq: number): void {
    this.tail.set(token, seq);
    this.added.push(token);
  }

  /** Where the group (or a piece of it) begins: what {@link undo} goes back to. */
  mark(): number {
    return this.added.length;
  }

  /** The pieces since `mark` were rolled back: their tokens were never used. */
  undo(mark: number): void {
    for (const token of this.added.splice(mark)) this.tail.delete(token);
  }

  /** The group committed: its tokens stay. */
  committed(): void {
    this.added = [];
  }

  /** Whether enough tokens wait (or any, when `any`) for a batch. */
  due(any: boolean): boolean {
    return this.tail.size >= (any ? 1 : this.batch);
  }

  /**
   * Index every token held, inside a group transaction (an atomic piece of its own); returns the new
   * watermark, to be handed to {@link indexed} once the group commits.
   */
  index(): number {
    const from = Math.max(this.through, this.sql.watermark.get() ?? 0);
    let to = from;
    for (const seq of this.tail.values()) if (seq > to) to = seq;
    if (to === from) return to;
    this.sql.index.run(from, to);
    this.sql.setWatermark.run(to);
    return to;
  }

  /** A batch up to `to` committed: its tokens are found in the index from now on. */
  indexed(to: number): void {
    if (to <= this.through) return;
    this.through = to;
    for (const [token, seq] of this.tail) if (seq <= to) this.tail.delete(token);
  }

  /**
   * Inside the expiry's transaction, before the operations expiring go: their tokens leave the index;
   * returns those held here, to {@link forget} once it commits.
   */
  expiring(expiredWhere: string, before: string): string[] {
    this.sql.db
      .prepare(
        `DELETE FROM client_token_index WHERE client_token IN (SELECT client_token FROM operations WHERE ${expiredWhere} AND client_token IS NOT NULL)`,
      )
      .run({ before });
    return (
      this.sql.db
        .prepare(
          `SELECT client_token FROM operations WHERE ${expiredWhere} AND client_token IS NOT NULL AND seq > @through`,
        )
        .pluck()
        .all({ before, through: this.through }) as string[]
    ).filter((token) => this.tail.has(token));
  }

  forget(tokens: readonly string[]): void {
    for (const token of tokens) this.tail.delete(token);
  }
}

function statements(db: Database.Database) {
  return {
    db,
    watermark: db.prepare<[], number>('SELECT seq FROM client_token_watermark').pluck(),
    lastSeq: db.prepare<[], number | null>('SELECT MAX(seq) FROM operations').pluck(),
    setWatermark: db.prepare<[number]>('UPDATE client_token_watermark SET seq = MAX(seq, ?)'),
    between: db.prepare<[number, number]>(
      'SELECT client_token, seq FROM operations WHERE seq > ? AND seq <= ? AND client_token IS NOT NULL',
    ),
    indexed: db.prepare<[string], number>(INDEXED_TOKEN_SQL).pluck(),
    // In token order: the index's pages are filled left to right.
    index: db.prepare<[number, number]>(
      // Another process may have indexed some of them already.
      `INSERT OR IGNORE INTO client_token_index (client_token, seq)
         SELECT client_token, seq FROM operations WHERE seq > ? AND seq <= ? AND client_token IS NOT NULL
         ORDER BY client_token`,
    ),
  };
}
