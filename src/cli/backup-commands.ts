/**
 * @module `typeplane backup` (a running server's store, saved to a file, through its admin API) and
 * `typeplane restore` (a backup written into an empty data dir or PostgreSQL schema, no server
 * involved). The runbook is `docs/operations.md`, "Backup and restore".
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { recordRestore, type RestoreFacts } from '../audit/restore-event.js';
import {
  BackupError,
  DATABASE_FILE,
  openBackup,
  refuseOtherStore,
  restoreBackup,
  type BackupHeader,
  type RestoreTarget,
} from '../backup/index.js';
import { TYPEPLANE_VERSION } from '../backup/format.js';
import { SCHEMA_NAME } from '../store/postgresql/migrations.js';
import {
  createSealer,
  loadSecretKey,
  SecretKeyError,
  SECRET_KEY_ENV,
  SECRET_KEY_FILE_NAME,
} from '../secrets/index.js';
import { formatBytes } from '../schema/bounded-file.js';
import { redactUrl } from '../store/redact-url.js';
import { action, clientFor, common, examples, type Common } from './api-commands.js';
import { ApiError, render } from './client.js';
import { EXIT, UsageError } from './usage.js';

interface BackupOptions extends Common {
  out: string;
}

interface RestoreOptions {
  dataDir?: string;
  databaseUrl?: string;
  databaseSchema?: string;
  secretKeyFile?: string;
}

/** As `action`, with a refused backup or restore, or an unusable key, said as `error: <code>: message` (exit 1). */
function backupAction<A extends unknown[]>(fn: (...args: A) => Promise<number | void>) {
  return action(async (...args: A) => {
    try {
      return await fn(...args);
    } catch (e) {
      if (!(e instanceof BackupError || e instanceof SecretKeyError)) throw e;
      process.stderr.write(`error: ${e.code}: ${e.message}\n`);
      return EXIT.failed;
    }
  });
}

const describe = (h: BackupHeader) =>
  `${h.store} store, schema version ${h.schemaVersion}, secret key id ${h.keyId}, taken ${h.createdAt} by Typeplane ${h.typeplaneVersion}`;

export function registerBackupCommands(program: Command): void {
  examples(
    common(
      program
        .command('backup')
        .description(
          "save a consistent snapshot of the running server's whole store to a file (needs an admin token)",
        )
        .requiredOption(
          '--out <file>',
          'where to save it (mode 0600); written whole, checked, then moved into place',
        ),
      ['table', 'json'],
    ),
    [
      'typeplane backup --out typeplane-$(date -u +%Y%m%dT%H%M%SZ).backup',
      'TYPEPLANE_ENDPOINT=https://typeplane.internal typeplane backup --out /backups/typeplane.backup',
    ],
  ).action(
    backupAction(async (options: BackupOptions) => {
      const out = resolve(options.out);
      const response = await clientFor(options).download('/v1/backup');
      // Beside the target, so that the move into place is a rename; private, as the store is.
      const partial = join(dirname(out), `.${basename(out)}.${randomBytes(4).toString('hex')}.partial`);
      const file = await open(partial, 'wx', 0o600).catch((e: Error) => {
        response.destroy();
        throw new UsageError(`cannot write the backup next to ${out}: ${e.message}`);
      });
      let bytes = 0;
      try {
        async function* saved(): AsyncGenerator<Buffer> {
          try {
            for await (const chunk of response) {
              await file.write(chunk as Buffer);
              bytes += (chunk as Buffer).length;
              yield chunk as Buffer;
            }
          } catch (e) {
            throw new ApiError(
              0,
              'NetworkFailure',
              `the backup stopped before its end (${(e as Error).message}); nothing was saved: the server's log says why`,
              [],
            );
          }
        }
        // The file is read back as restore reads it: a backup saved is one that restores.
        const backup = await openBackup(saved());
        for await (const chunk of backup.payload) void chunk;
        await file.sync();
        await file.close();
        await rename(partial, out);
        process.stdout.write(
          render(
            { file: out, bytes, ...backup.header },
            options.output,
            () => `saved ${out} (${formatBytes(bytes)}): ${describe(backup.header)}`,
          ) + '\n',
        );
      } catch (e) {
        response.destroy();
        await file.close().catch(() => undefined);
        await rm(partial, { force: true });
        throw e;
      }
    }),
  );

  examples(
    program
      .command('restore')
      .argument('<file>', "a backup saved by 'typeplane backup'")
      .description(
        'write a backup into a new or empty data dir (a SQLite backup) or PostgreSQL schema (a PostgreSQL backup), then serve it with the same secret key',
      )
      .option('--data-dir <dir>', 'the SQLite data dir: new, or empty but for the secret key file')
      .option(
        '--database-url <url>',
        'the PostgreSQL database to restore into (env TYPEPLANE_DATABASE_URL), as serve takes it',
      )
      .option(
        '--database-schema <name>',
        'the schema to restore into: new, or without tables (env TYPEPLANE_DATABASE_SCHEMA; default typeplane)',
      )
      .option(
        '--secret-key-file <file>',
        `the backup's secret key, as serve takes it; ignored when env ${SECRET_KEY_ENV} is set (default <data-dir>/${SECRET_KEY_FILE_NAME})`,
      )
      .addHelpText(
        'after',
        `
The key must be the one the backup names (its id); restore checks it and writes nothing otherwise.
A damaged or cut-short backup is refused with nothing left written. Exit codes: 0 restored, 1
refused (the message says why), 2 usage.`,
      ),
    [
      'typeplane restore typeplane.backup --data-dir /var/lib/typeplane   # its key file copied there first',
      'typeplane restore typeplane.backup --database-url postgres://typeplane@db:5432/platform   # its key in TYPEPLANE_SECRET_KEY',
    ],
  ).action(
    backupAction(async (file: string, options: RestoreOptions) => {
      const startedAt = new Date();
      const target = restoreTarget(options);
      if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
      if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not a backup file`);
      const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
      try {
        const backup = await openBackup(stream);
        // Before the key is looked for: no key makes such a restore possible.
        refuseOtherStore(backup.header, target);
        const keyFile =
          options.secretKeyFile !== undefined
            ? resolve(options.secretKeyFile)
            : target.store === 'sqlite'
              ? join(target.dataDir, SECRET_KEY_FILE_NAME)
              : undefined;
        const key = secretKey(keyFile, backup.header).key;
        const sealer = createSealer(key);
        if (target.store === 'sqlite' && keyFile !== undefined && dirname(keyFile) === target.dataDir)
          target.keep = [basename(keyFile)];
        await restoreBackup(backup, target, sealer.keyId);
        const where =
          target.store === 'sqlite'
            ? target.dataDir
            : `the schema ${target.schema} of ${redactUrl(target.url)}`;
        process.stdout.write(`restored into ${where}: ${describe(backup.header)}\n`);
        const facts: RestoreFacts = {
          file: resolve(file),
          bytes: statSync(file).size,
          backup: backup.header,
          by: whoRuns(),
          typeplaneVersion: TYPEPLANE_VERSION,
          startedAt,
        };
        // The store is restored whether or not its trail takes the record: a failure is said, not fatal.
        await recordRestoreIn(target, key, facts).then(
          () =>
            process.stdout.write(`recorded in its audit trail (GET /v1/audit, with serve --audit-store)\n`),
          (e: Error) =>
            process.stderr.write(
              `warning: the restore could not be recorded in its audit trail: ${e.message}\n`,
            ),
        );
        process.stdout.write(
          `serve it with the same key; operations that were in flight resume once their lease runs out\n`,
        );
      } finally {
        stream.destroy();
      }
    }),
  );
}

/** Appends the restore's record to the trail of the store it wrote (opened as serve opens it). */
async function recordRestoreIn(target: RestoreTarget, key: Buffer, facts: RestoreFacts): Promise<void> {
  // Loaded here: `typeplane backup`, in this module too, opens no store.
  const { openPostgresStore, openSqliteStore } = await import('../store/index.js');
  const store =
    target.store === 'sqlite'
      ? await openSqliteStore(join(target.dataDir, DATABASE_FILE))
      : await openPostgresStore(target.url, { schema: target.schema });
  try {
    await recordRestore(store, key, facts);
  } finally {
    await store.close();
  }
}

/** `user@host` of whoever runs this (the uid when the system has no name for it). */
function whoRuns(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = String(process.getuid?.() ?? 'unknown');
  }
  return `${user}@${hostname()}`;
}

/** The target the options name; a usage error when they name none, or both. */
function restoreTarget(options: RestoreOptions): RestoreTarget {
  if (options.dataDir !== undefined && options.databaseUrl !== undefined)
    throw new UsageError(
      'give --data-dir (a SQLite backup) or --database-url (a PostgreSQL backup), not both',
    );
  if (options.dataDir !== undefined) {
    if (options.databaseSchema !== undefined) throw new UsageError('--database-schema needs --database-url');
    return { store: 'sqlite', dataDir: resolve(options.dataDir) };
  }
  // Empty environment variables count as unset, as serve reads them.
  const url = options.databaseUrl ?? (process.env.TYPEPLANE_DATABASE_URL || undefined);
  if (url === undefined)
    throw new UsageError(
      'say where to restore: --data-dir <dir> for a SQLite backup, --database-url <url> for a PostgreSQL one',
    );
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new UsageError('--database-url must be a PostgreSQL URL, like postgres://user@host:5432/database');
  const schema = options.databaseSchema ?? (process.env.TYPEPLANE_DATABASE_SCHEMA || 'typeplane');
  if (!SCHEMA_NAME.test(schema))
    throw new UsageError(
      `--database-schema must be lower-case letters, digits and _ (at most 63), not '${schema.slice(0, 80)}'`,
    );
  return { store: 'postgresql', url, schema };
}

/** The key from the environment, or from `keyFile`: never one made up (serve would make one). */
function secretKey(keyFile: string | undefined, header: BackupHeader): ReturnType<typeof loadSecretKey> {
  // An empty TYPEPLANE_SECRET_KEY counts as unset.
  const fromEnvironment = process.env[SECRET_KEY_ENV] || undefined;
  const how = `give the backup's key (id ${header.keyId}) with ${SECRET_KEY_ENV} or --secret-key-file`;
  if (fromEnvironment !== undefined) return loadSecretKey({ key: fromEnvironment, file: '' });
  if (keyFile === undefined) throw new UsageError(`no secret key: ${how}`);
  if (!existsSync(keyFile)) throw new UsageError(`no secret key: there is no ${keyFile}; ${how}`);
  return loadSecretKey({ file: keyFile });
}
