/**
 * @module Backup and restore: a running server streams a consistent snapshot of its store as a
 * backup file (`Backups`, served as `GET /v1/backup`); `restoreBackup` writes one into an empty SQLite
 * data dir or PostgreSQL schema. The file names the secret key's id, never the key; see
 * `docs/operations.md` (Backup and restore) for the runbook.
 */
export { Backups, type BackupSource, type TakenBackup } from './backups.js';
export { BackupError, type BackupErrorCode } from './errors.js';
export { openBackup, type BackupHeader, type OpenedBackup, type StoreKind } from './format.js';
export { refuseOtherStore, restoreBackup, type RestoreTarget } from './restore.js';
export { DATABASE_FILE } from './sqlite-restore.js';
export { removeLeftSnapshots } from './sqlite-snapshot.js';
