/**
 * A server killed (SIGKILL) in the middle of a backup leaves its snapshot file in the data dir; the
 * next start removes it — and only it: a snapshot file of a process that still runs, and files that
 * do not match the snapshot name exactly, are left alone. A snapshot this process holds is never
 * taken for a left one.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { removeLeftSnapshots } from '../../src/backup/index.js';
import { Client } from '../../src/cli/client.js';
import { pino } from 'pino';
import { api, spawnServer, startTestService, tempDir, WIDGET } from '../helpers/service.js';

const snapshots = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.includes('typeplane-backup'))
    .sort();

test('the snapshot file of a server killed mid-backup is removed at its next start, nothing else', async (t) => {
  const dataDir = tempDir('typeplane-left-snapshot-');
  // A store holding 48 MB of free pages, as a long-lived one holds its deleted rows' space: the
  // snapshot copies every page, so its payload is more than loopback's socket buffers take, and the
  // server is still sending it when it is killed (a small one would be sent, and removed, at once).
  const filler = new Database(join(dataDir, 'typeplane.db'));
  filler.exec('CREATE TABLE filler (b BLOB)');
  filler.exec(
    'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 48) ' +
      'INSERT INTO filler SELECT zeroblob(1048576) FROM n',
  );
  filler.exec('DROP TABLE filler');
  filler.close();
  const first = await spawnServer(dataDir);
  assert.equal((await api(first.url, first.token).call('POST', '/v1/types', WIDGET)).status, 201);
  // The backup's answer has begun; its client reads nothing, so the server holds its snapshot.
  const download = await new Client(first.url, first.token).download('/v1/backup');
  const killed = `.typeplane-backup-${first.child.pid}-`;
  assert.equal(snapshots(dataDir).filter((f) => f.startsWith(killed)).length, 1, snapshots(dataDir).join());
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  await exited;
  download.destroy();
  const left = snapshots(dataDir).find((f) => f.startsWith(killed))!;
  assert.ok(left, 'the killed server left its snapshot file');

  // The test runner's process runs: its (planted) snapshot is another server's, under way.
  const running = `.typeplane-backup-${process.ppid}-0123456789ab.db`;
  const lookAlikes = [
    '.typeplane-backup-notes.db',
    'typeplane-backup-1-0123456789ab.db',
    '.typeplane-backup-1-0123456789ab.db.bak',
  ];
  for (const name of [running, ...lookAlikes]) writeFileSync(join(dataDir, name), 'not mine to remove');

  // The next start, in this process (the same start as `typeplane serve`'s, a process start fewer).
  let logs = '';
  const second = await startTestService({
    dataDir,
    adminToken: first.token,
    logger: pino({ level: 'info' }, { write: (line: string) => void (logs += line) }),
  });
  t.after(() => second.close());
  assert.deepEqual(snapshots(dataDir), [running, ...lookAlikes].sort());
  assert.match(logs, /removed the snapshot files of a backup its server stopped/);
  assert.ok(logs.includes(left), 'the log names the file removed');
  // The data is untouched, and backups go on.
  const types = await second.call('GET', '/v1/types');
  assert.equal(types.body.types.length, 1);
  const again = await second.call('GET', '/v1/backup');
  assert.equal(again.status, 200);
});

test('a snapshot this process holds is not taken for a left one', async (t) => {
  const svc = await startTestService();
  t.after(() => svc.close());
  const download = await new Client(svc.url, svc.token).download('/v1/backup');
  try {
    const held = snapshots(svc.dataDir);
    assert.equal(held.length, 1);
    assert.ok(held[0]!.startsWith(`.typeplane-backup-${process.pid}-`));
    assert.deepEqual(await removeLeftSnapshots(svc.dataDir), []);
    assert.deepEqual(snapshots(svc.dataDir), held);
  } finally {
    // Before the server closes: it waits for the answers it is sending.
    download.destroy();
  }
});
