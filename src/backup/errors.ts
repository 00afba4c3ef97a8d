/**
 * @module What a backup or a restore refuses, each with a stable code: match on it, not on the text.
 */

export type BackupErrorCode =
  /** The file is not a Typeplane backup, or of a format version this Typeplane does not read. */
  | 'NotABackup'
  /** Truncated, or changed since it was written: its length or checksum does not hold. */
  | 'BackupDamaged'
  /** Made by a newer Typeplane: its store schema is one this Typeplane does not know. */
  | 'BackupTooNew'
  /** The secret key given is not the one the backup's values were sealed with. */
  | 'KeyMismatch'
  /** A SQLite backup restores into a data dir, a PostgreSQL one into a PostgreSQL schema. */
  | 'StoreMismatch'
  /** The target data dir or PostgreSQL schema already holds something. */
  | 'TargetNotEmpty';

/** A backup or restore refused. A refused restore leaves its target as it found it. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
  constructor(
    readonly code: BackupErrorCode,
    message: string,
  ) {
    super(message);
  }
}
