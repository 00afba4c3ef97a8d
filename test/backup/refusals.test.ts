/**
 * What backup and restore refuse, and that a refusal leaves nothing behind: a backup without a token
 * (401) or with a token that is not an admin's (403), a second backup while one runs (429, until the
 * first one's client goes away); a restore into a target that is not empty, with another key or no
 * key, of a backup cut short or changed, or of one store's backup into the other kind of store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, test } from 'node:test';
import { Client } from '../../src/cli/client.js';
import { exits, runCli } from '../helpers/cli.js';
import { freshSchema, PG_URL, pgQuery, pgSkip } from '../helpers/postgres.js';
import { api, startTestService, tempDir, WIDGET, type TestService } from '../helpers/service.js';

let svc: TestService;
const dir = tempDir('typeplane-backup-refusals-');
const backupFile = join(dir, 'sqlite.backup');
const env = (extra: Record<string, string> = {}) => {
  const base: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (extra.TYPEPLANE_SECRET_KEY === undefined) delete base.TYPEPLANE_SECRET_KEY;
  return base;
};
const restore = (args: string[], extra: Record<string, string> = {}) =>
  runCli(['restore', ...args], { env: env(extra) });

async function save(server: TestService, file: string): Promise<void> {
  await pipeline(await new Client(server.url, server.token).download('/v1/backup'), createWriteStream(file));
}

/** A data dir holding only the source's key file: the one thing restore may find there. */
function dirWithKey(name: string): string {
  const target = join(dir, name);
  mkdirSync(target, { mode: 0o700 });
  writeFileSync(join(target, 'secret.key'), readFileSync(join(svc.dataDir, 'secret.key')), { mode: 0o600 });
  return target;
}

before(async () => {
  svc = await startTestService();
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  await save(svc, backupFile);
});
after(() => svc.close());

test('a backup needs an admin token: 401 without one, 403 with a writer or reader token', async () => {
  const none = await api(svc.url).call('GET', '/v1/backup');
  assert.equal(none.status, 401);
  assert.equal(none.body.errorCode, 'InvalidCredentials');
  for (const role of ['writer', 'reader']) {
    const created = await svc.call('POST', '/v1/tokens', { role });
    const refused = await api(svc.url, created.body.token).call('GET', '/v1/backup');
    assert.equal(refused.status, 403, role);
    assert.equal(refused.body.errorCode, 'AccessDenied');
    assert.match(refused.body.message, new RegExp(`a ${role} token cannot take a backup`));
  }
  const reader = await svc.call('POST', '/v1/tokens', { role: 'reader' });
  const cli = await runCli(['backup', '--out', join(dir, 'refused.backup')], {
    env: { ...process.env, TYPEPLANE_ENDPOINT: svc.url, TYPEPLANE_TOKEN: reader.body.token },
  });
  exits(cli, 1);
  assert.match(cli.stderr, /error: AccessDenied: a reader token cannot take a backup/);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('refused')),
    [],
    'no file, not even a partial one',
  );
});

test('one backup at a time: a second is refused (429) until the first one ends, its snapshot file removed', async () => {
  const first = await new Client(svc.url, svc.token).download('/v1/backup');
  const snapshots = () => readdirSync(svc.dataDir).filter((f) => f.startsWith('.typeplane-backup-'));
  assert.equal(snapshots().length, 1, 'the snapshot is held while its client reads');
  const second = await svc.call('GET', '/v1/backup');
  assert.equal(second.status, 429);
  assert.equal(second.body.errorCode, 'Throttling');
  // The first client goes away without reading: the server lets go of its snapshot.
  first.destroy();
  for (let i = 0; i < 200 && snapshots().length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.deepEqual(snapshots(), []);
  await save(svc, join(dir, 'again.backup'));
  assert.ok(readFileSync(join(dir, 'again.backup')).length > 0);
});

test('restore refuses a data dir that holds anything but the key file, and leaves it as it was', async () => {
  const target = dirWithKey('not-empty');
  writeFileSync(join(target, 'notes.txt'), 'mine');
  const run = await restore([backupFile, '--data-dir', target]);
  exits(run, 1);
  assert.match(run.stderr, /error: TargetNotEmpty: the data dir .* is not empty \(it holds notes\.txt\)/);
  assert.deepEqual(readdirSync(target).sort(), ['notes.txt', 'secret.key']);
});

test('restore refuses another key, and no key, before writing anything', async () => {
  const header = JSON.parse(readFileSync(backupFile, 'utf8').split('\n', 1)[0]!);
  const target = join(dir, 'other-key');
  const other = await restore([backupFile, '--data-dir', target], {
    TYPEPLANE_SECRET_KEY: randomBytes(32).toString('base64'),
  });
  exits(other, 1);
  assert.match(
    other.stderr,
    new RegExp(
      `error: KeyMismatch: the secret key given \\(id \\S+\\) is not the key this backup's values were sealed with \\(id ${header.keyId}\\)`,
    ),
  );
  assert.equal(existsSync(target), false);
  const none = await restore([backupFile, '--data-dir', target]);
  exits(none, 2);
  assert.match(
    none.stderr,
    new RegExp(`no secret key: there is no .*secret\\.key; give the backup's key \\(id ${header.keyId}\\)`),
  );
  assert.equal(existsSync(target), false);
});

test('restore refuses a backup cut short or changed, and leaves no data dir behind', async () => {
  const whole = readFileSync(backupFile);
  const headerEnd = whole.indexOf(0x0a) + 1;
  const cases: [string, Buffer, RegExp][] = [
    [
      'cut in the data',
      whole.subarray(0, Math.floor(whole.length / 2)),
      /BackupDamaged: .*before its trailer/,
    ],
    ['cut in the trailer', whole.subarray(0, whole.length - 20), /BackupDamaged: .*before its trailer/],
    [
      'cut in the header',
      whole.subarray(0, 30),
      /NotABackup: the file does not start with a Typeplane backup header/,
    ],
    [
      'a byte changed',
      Buffer.from(whole).fill(0x41, headerEnd + 2000, headerEnd + 2001),
      /BackupDamaged: .*checksum does not match/,
    ],
  ];
  for (const [name, bytes, message] of cases) {
    const file = join(dir, `${name.replace(/ /g, '-')}.backup`);
    writeFileSync(file, bytes);
    const target = join(dir, `restored-${name.replace(/ /g, '-')}`);
    const run = await restore([
      file,
      '--data-dir',
      target,
      '--secret-key-file',
      join(svc.dataDir, 'secret.key'),
    ]);
    exits(run, 1);
    assert.match(run.stderr, message, name);
    assert.equal(existsSync(target), false, `${name}: the data dir it made is removed again`);
  }
  // Into a folder that was there (with the key): it is left as it was found.
  const target = dirWithKey('kept-as-found');
  const cut = join(dir, 'cut-in-the-data.backup');
  exits(await restore([cut, '--data-dir', target]), 1);
  assert.deepEqual(readdirSync(target), ['secret.key']);
});

test('restore refuses a SQLite backup into PostgreSQL, saying why and what to do, before asking for a key', async () => {
  // No key given: the refusal does not wait for one.
  const run = await restore([backupFile, '--database-url', 'postgres://nobody@127.0.0.1:1/none']);
  exits(run, 1);
  assert.match(
    run.stderr,
    /error: StoreMismatch: this is a backup of a sqlite store: it restores into a data dir \(--data-dir\), not into a PostgreSQL schema/,
  );
  // Why, and what to do instead.
  assert.match(run.stderr, /Typeplane does not convert one store's into the other's/);
  assert.match(
    run.stderr,
    /to move from SQLite to PostgreSQL, see docs\/operations\.md, "Moving between SQLite and PostgreSQL"/,
  );
});

test(
  'PostgreSQL: restore refuses a schema with tables, and a backup cut short leaves no schema behind',
  { skip: pgSkip },
  async (t) => {
    const secretKey = randomBytes(32).toString('base64');
    const source = await startTestService({
      database: { url: PG_URL, schema: freshSchema(t, 'tp_backup_src') },
      secretKey,
    });
    t.after(() => source.close());
    assert.equal((await source.call('POST', '/v1/types', WIDGET)).status, 201);
    const file = join(dir, 'postgresql.backup');
    await save(source, file);

    const intoDataDir = await restore([file, '--data-dir', join(dir, 'pg-into-sqlite')], {
      TYPEPLANE_SECRET_KEY: secretKey,
    });
    exits(intoDataDir, 1);
    assert.match(
      intoDataDir.stderr,
      /StoreMismatch: this is a backup of a postgresql store: it restores into a PostgreSQL schema/,
    );
    assert.match(intoDataDir.stderr, /to move from PostgreSQL to SQLite, see docs\/operations\.md/);

    const taken = freshSchema(t, 'tp_backup_taken');
    await pgQuery(`CREATE SCHEMA ${taken}; CREATE TABLE ${taken}.mine (x int)`);
    const occupied = await restore([file, '--database-url', PG_URL, '--database-schema', taken], {
      TYPEPLANE_SECRET_KEY: secretKey,
    });
    exits(occupied, 1);
    assert.match(
      occupied.stderr,
      new RegExp(`TargetNotEmpty: the schema ${taken} is not empty \\(it holds mine\\)`),
    );

    const whole = readFileSync(file);
    const cut = join(dir, 'postgresql-cut.backup');
    writeFileSync(cut, whole.subarray(0, whole.length - 40));
    const fresh = freshSchema(t, 'tp_backup_cut');
    const damaged = await restore([cut, '--database-url', PG_URL, '--database-schema', fresh], {
      TYPEPLANE_SECRET_KEY: secretKey,
    });
    exits(damaged, 1);
    assert.match(damaged.stderr, /BackupDamaged/);
    assert.deepEqual(
      await pgQuery(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [fresh]),
      [],
      'rolled back whole',
    );
  },
);
