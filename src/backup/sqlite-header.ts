/**
 * @module What the first bytes of a SQLite database file say (https://sqlite.org/fileformat.html):
 * whether it is one, and its `user_version`, where the store records how many migrations have run.
 */

const MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');
/** The database header's length, and where `PRAGMA user_version` keeps its 4-byte big-endian value. */
export const SQLITE_HEADER_BYTES = 100;
const USER_VERSION_OFFSET = 60;

/** The file's `user_version`, or undefined when `start` (its first 100 bytes) is no SQLite database. */
export function sqliteUserVersion(start: Buffer): number | undefined {
  if (start.length < SQLITE_HEADER_BYTES || !start.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  return start.readInt32BE(USER_VERSION_OFFSET);
}
