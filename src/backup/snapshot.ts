/**
 * @module What a store's snapshot hands the backup: the schema version it has and its data.
 */

export interface Snapshot {
  /** How many of the store's migrations the snapshot's schema had run. */
  schemaVersion: number;
  /** The data, read once. */
  payload: AsyncIterable<Buffer>;
  /** Lets go of what the snapshot holds (a file, a transaction); safe to call more than once. */
  release(): Promise<void>;
}
