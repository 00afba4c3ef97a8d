/**
 * What a SQLite store does, in figures that do not depend on the machine: the statements its
 * connection runs and the frames its commits append to the WAL.
 *
 * Statements are counted by patching better-sqlite3's Statement.prototype in this process (run, get,
 * all, iterate; its transactions run BEGIN and COMMIT through them too), so the store must run in
 * this process. Each statement's program is read once (EXPLAIN, on its own connection, with the
 * values it was run with) for the temporary b-trees it builds on each run.
 *
 * WAL frames are read from the wal-index header (mxFrame, see https://www.sqlite.org/walformat.html)
 * while a second connection holds a read transaction open: the WAL can then not be restarted (a
 * checkpoint copies no further than that reader's snapshot), so every frame committed since stays in
 * it and can be counted and read back.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import Database from 'better-sqlite3';

export interface StatementTally {
  /** Statements other than transaction control (BEGIN, COMMIT, SAVEPOINT, RELEASE, ROLLBACK). */
  statements: number;
  /** Of those, INSERT, UPDATE, DELETE and REPLACE. */
  writes: number;
  /** BEGINs: each a transaction, committed or rolled back. */
  transactions: number;
  /** SAVEPOINTs: each a nested transaction. */
  savepoints: number;
  /**
   * Temporary b-trees built by the statements run (OpenEphemeral in their programs: an IN list of
   * three or more constants, a sort or DISTINCT no index serves): each is built again on every run.
   */
  temporary: number;
  /** The statements (shortened, as in `log`) that built them, once each. */
  temporaryIn: string[];
  /** Each statement's SQL, shortened, in the order run (transaction control included). */
  log: string[];
}

export interface StatementMeter {
  /** What the connections to the file ran since the last take (or since the meter started). */
  take(): StatementTally;
  /** Stop counting and put better-sqlite3's methods back. */
  stop(): void;
}

/**
 * The tables the SQLite store's resource counts write on their own clock, at most once a second
 * (resource-counts.ts), not with each operation: on a loaded machine a flush lands in one measured
 * operation and not in another.
 */
export const COUNTS_TABLES: readonly string[] = ['resource_counts', 'resource_counts_holder', 'count_deltas'];
const COUNTS_SQL = new RegExp(`\\b(${COUNTS_TABLES.join('|')})\\b`);
/** Whether a statement (as a tally logs it) is one of the counts'. */
export const isCountsSql = (sql: string): boolean => COUNTS_SQL.test(sql);

const METHODS = ['run', 'get', 'all', 'iterate'] as const;
const CONTROL = /^(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const WRITE = /^(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** A statement's SQL on one line, its column lists elided: enough to tell statements apart. */
function shortSql(source: string): string {
  return source
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^SELECT .+? FROM /i, 'SELECT … FROM ')
    .replace(/^((?:INSERT|REPLACE)(?: OR \w+)? INTO \w+) .*/i, '$1 …')
    .replace(/^UPDATE (\w+) SET .+? WHERE /i, 'UPDATE $1 SET … WHERE ')
    .replace(/ IN \('[^)]*\)/g, ' IN (…)')
    .slice(0, 120);
}

/**
 * Counts the statements run on connections to the database file at `path` (its absolute path, as
 * the store opens it), except on `ignored` ones. Start it before the store opens.
 */
export function meterStatements(path: string, ignored: ReadonlySet<Database.Database>): StatementMeter {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  let tally = empty();
  const originals = METHODS.map((name) => [name, proto[name]] as const);
  for (const [name, original] of originals) {
    const call = original as (...args: unknown[]) => unknown;
    proto[name] = function (this: Database.Statement, ...args: unknown[]) {
      if (!explaining && this.database.name === path && !ignored.has(this.database)) {
        count(tally, this.source);
        const trees = temporaryTrees(this, args);
        if (trees > 0) {
          tally.temporary += trees;
          const sql = shortSql(this.source.trimStart());
          if (!tally.temporaryIn.includes(sql)) tally.temporaryIn.push(sql);
        }
      }
      return call.apply(this, args);
    };
  }
  return {
    take() {
      const taken = tally;
      tally = empty();
      return taken;
    },
    stop() {
      for (const [name, original] of originals) proto[name] = original;
    },
  };
}

function empty(): StatementTally {
  return { statements: 0, writes: 0, transactions: 0, savepoints: 0, temporary: 0, temporaryIn: [], log: [] };
}

/** Set while a statement's program is read: that EXPLAIN is not one of the store's statements. */
let explaining = false;
const treesOf = new WeakMap<Database.Statement, number>();

/** How many temporary b-trees `statement`'s program opens (read once per statement). */
function temporaryTrees(statement: Database.Statement, args: unknown[]): number {
  const known = treesOf.get(statement);
  if (known !== undefined) return known;
  if (CONTROL.test(statement.source.trimStart()) || /^\s*PRAGMA\b/i.test(statement.source)) return 0;
  explaining = true;
  try {
    const program = statement.database.prepare(`EXPLAIN ${statement.source}`).all(...args) as {
      opcode: string;
    }[];
    const trees = program.filter((op) => op.opcode === 'OpenEphemeral').length;
    treesOf.set(statement, trees);
    return trees;
  } finally {
    explaining = false;
  }
}

function count(tally: StatementTally, source: string): void {
  const sql = source.trimStart();
  tally.log.push(shortSql(sql));
  if (/^BEGIN\b/i.test(sql)) tally.transactions++;
  else if (/^SAVEPOINT\b/i.test(sql)) tally.savepoints++;
  if (CONTROL.test(sql)) return;
  tally.statements++;
  if (WRITE.test(sql)) tally.writes++;
}

export interface WalMeter {
  /** The connection holding the WAL in place: ignore its statements. */
  readonly pin: Database.Database;
  readonly pageSize: number;
  /** Frames committed since the last take (or since the meter started), and the page each wrote. */
  take(): { frames: number; pages: number[] };
  /** Which table or index each page belongs to now (`(not a b-tree page)` for the others). */
  ownersOf(pages: Iterable<number>): Map<number, string>;
  close(): void;
}

/** Meter the WAL of the database at `path`, which must be in WAL mode and hold uncheckpointed frames. */
export function meterWal(path: string): WalMeter {
  const pin = new Database(path);
  const pageSize = pin.pragma('page_size', { simple: true }) as number;
  pin.prepare('BEGIN').run();
  pin.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get();
  const start = walIndexHeader(path);
  if (start.mxFrame === 0) {
    pin.close();
    throw new Error('meterWal: the WAL is empty, so a reader would not hold it in place; write first');
  }
  let seen = start.mxFrame;
  return {
    pin,
    pageSize,
    take() {
      const now = walIndexHeader(path);
      // New salts mean the WAL was started again from its first frame: the frames since are lost.
      if (now.salts !== start.salts)
        throw new Error('meterWal: the WAL was restarted although a reader held it: frames not counted');
      const pages = framePages(path, pageSize, seen, now.mxFrame);
      seen = now.mxFrame;
      return { frames: pages.length, pages };
    },
    ownersOf(pages) {
      const reader = new Database(path, { readonly: true });
      try {
        const statement = reader.prepare<[number], { name: string }>(
          'SELECT name FROM dbstat WHERE pageno = ? LIMIT 1',
        );
        return new Map(
          [...pages].map((page) => [page, statement.get(page)?.name ?? '(not a b-tree page)'] as const),
        );
      } finally {
        reader.close();
      }
    },
    close() {
      pin.close();
    },
  };
}

/** mxFrame and the salts from the first copy of the wal-index header, at the start of the -shm file. */
function walIndexHeader(path: string): { mxFrame: number; salts: string } {
  const header = readAt(`${path}-shm`, 0, 48);
  const mxFrame = endianness() === 'LE' ? header.readUInt32LE(16) : header.readUInt32BE(16);
  return { mxFrame, salts: header.subarray(32, 40).toString('hex') };
}

/** The page numbers of WAL frames `after`+1 … `upTo` (a frame header starts with its page, big-endian). */
function framePages(path: string, pageSize: number, after: number, upTo: number): number[] {
  const pages: number[] = [];
  const fd = openSync(`${path}-wal`, 'r');
  try {
    const header = Buffer.alloc(4);
    for (let frame = after + 1; frame <= upTo; frame++) {
      readSync(fd, header, 0, 4, 32 + (frame - 1) * (pageSize + 24));
      pages.push(header.readUInt32BE(0));
    }
  } finally {
    closeSync(fd);
  }
  return pages;
}

function readAt(file: string, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, length, position);
  } finally {
    closeSync(fd);
  }
  return buffer;
}
