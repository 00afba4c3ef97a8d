/**
 * @module Restoring a backup: checks that it fits the target and the key given, before anything is
 * written, then writes it (SQLite: `sqlite-restore.ts`; PostgreSQL: `postgresql-restore.ts`).
 */
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../store/postgresql/migrations.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../store/sqlite/migrations.js';
import { BackupError } from './errors.js';
import { TYPEPLANE_VERSION, type BackupHeader, type OpenedBackup } from './format.js';
import { restorePostgres } from './postgresql-restore.js';
import { restoreSqlite } from './sqlite-restore.js';

/** Where a backup goes: a SQLite data dir, or a PostgreSQL database and schema. */
export type RestoreTarget =
  | {
      store: 'sqlite';
      dataDir: string;
      /** Files the data dir may hold already (the secret key file, put there to be used). */
      keep?: readonly string[];
    }
  | { store: 'postgresql'; url: string; schema: string };

const WHERE: Record<RestoreTarget['store'], string> = {
  sqlite: 'a data dir (--data-dir)',
  postgresql: 'a PostgreSQL schema (--database-url, --database-schema)',
};
const NAME: Record<RestoreTarget['store'], string> = { sqlite: 'SQLite', postgresql: 'PostgreSQL' };
/** What a backup's data is, in its store's own form. */
const DATA: Record<RestoreTarget['store'], string> = {
  sqlite: 'a SQLite database file',
  postgresql: "a PostgreSQL schema's rows",
};

/**
 * Writes `backup` into `target`. `keyId`: the id of the secret key the restored store will be served
 * with; it must be the backup's.
 *
 * @throws BackupError `StoreMismatch`, `BackupTooNew` or `KeyMismatch` before anything is written;
 * `TargetNotEmpty`, or `BackupDamaged` (cut short, or changed) with nothing left written.
 */
export async function restoreBackup(
  backup: OpenedBackup,
  target: RestoreTarget,
  keyId: string,
): Promise<void> {
  const { header, payload } = backup;
  refuseOtherStore(header, target);
  const known = (header.store === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS).length;
  if (header.schemaVersion > known)
    throw new BackupError(
      'BackupTooNew',
      `the backup was taken by Typeplane ${header.typeplaneVersion}, at store schema version ${header.schemaVersion}; this Typeplane (${TYPEPLANE_VERSION}) knows schema versions up to ${known}: restore it with a Typeplane as new as that one`,
    );
  if (header.keyId !== keyId)
    throw new BackupError(
      'KeyMismatch',
      `the secret key given (id ${keyId}) is not the key this backup's values were sealed with (id ${header.keyId}): give that key (the TYPEPLANE_SECRET_KEY environment variable or --secret-key-file); without it the sealed values cannot be read`,
    );
  if (target.store === 'sqlite') await restoreSqlite(target.dataDir, header, payload, target.keep ?? []);
  else await restorePostgres(target.url, target.schema, header, payload);
}

/**
 * Refuses a backup of one kind of store for a target of the other, saying why and what to do
 * instead: across stores would mean converting every table, sealed values and operations in flight
 * included, which Typeplane does not do. Checked first, before a key is needed.
 *
 * @throws BackupError `StoreMismatch`
 */
export function refuseOtherStore(header: BackupHeader, target: Pick<RestoreTarget, 'store'>): void {
  if (header.store !== target.store)
    throw new BackupError(
      'StoreMismatch',
      `this is a backup of a ${header.store} store: it restores into ${WHERE[header.store]}, not into ${WHERE[target.store]}. A backup holds its store's data in that store's own form (${DATA[header.store]}), and Typeplane does not convert one store's into the other's. Restore it into ${WHERE[header.store]} and serve it there; to move from ${NAME[header.store]} to ${NAME[target.store]}, see docs/operations.md, "Moving between SQLite and PostgreSQL"`,
    );
}
