/**
 * @module The payload of a PostgreSQL backup: JSON lines. A table line names a table and its
 * columns, the rows that follow are arrays of those columns' values as PostgreSQL writes them as
 * text (or null); sequence lines come last, with where each sequence stood.
 *
 * ```
 * {"table":"kv","columns":["namespace","key","value_json","written_by"]}
 * ["typeplane:tokens","3f…","{…}","typeplane:auth"]
 * {"sequence":"types_seq","lastValue":"12","isCalled":true}
 * ```
 */

export interface TableLine {
  table: string;
  columns: string[];
}

export type RowLine = (string | null)[];

export interface SequenceLine {
  sequence: string;
  lastValue: string;
  isCalled: boolean;
}

export type PayloadLine = TableLine | RowLine | SequenceLine;

/** Lines, each ended by a newline, as one chunk. */
export function encodeLines(lines: readonly PayloadLine[]): Buffer {
  return Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

/** The schema's table that records its migrations: the restore writes it, it is not copied. */
export const SCHEMA_VERSION_TABLE = 'schema_version';
