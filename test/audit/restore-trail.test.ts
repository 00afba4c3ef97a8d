/**
 * A restore is in the restored store's audit trail: `typeplane restore` (a child process) appends a
 * record — verb `restore`, the backup file, its size and when it was taken, who ran it — chained
 * after the backup's last record, so the trail a server then serves verifies as one chain. On each
 * store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { test, type TestContext } from 'node:test';
import { chainKey, verifyTrail } from '../../src/audit/index.js';
import { Client } from '../../src/cli/client.js';
import type { ServiceOptions } from '../../src/service.js';
import { exits, runCli } from '../helpers/cli.js';
import { freshSchema, PG_URL, pgSkip } from '../helpers/postgres.js';
import { startTestService, tempDir, WIDGET, type TestService } from '../helpers/service.js';

const audit = { store: true, batch: { maxWaitMs: 20 } };

/** The store's trail, oldest first, once it holds `count` records. */
async function trail(svc: TestService, count: number): Promise<any[]> {
  for (const until = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const records = (await svc.call('GET', '/v1/audit')).body.records;
    if (records.length >= count) return records.reverse();
    assert.ok(Date.now() < until, JSON.stringify(records));
  }
}

async function restoreIsRecorded(
  t: TestContext,
  source: Partial<ServiceOptions>,
  target: string[],
  restored: Partial<ServiceOptions>,
) {
  const secretKey = randomBytes(32).toString('base64');
  const before = await startTestService({ ...source, secretKey, audit });
  t.after(() => before.close());
  assert.equal((await before.call('POST', '/v1/types', WIDGET)).status, 201);
  const [registration] = await trail(before, 1);
  const file = join(tempDir('typeplane-restore-trail-'), 'store.backup');
  await pipeline(await new Client(before.url, before.token).download('/v1/backup'), createWriteStream(file));
  const header = JSON.parse(readFileSync(file, 'utf8').split('\n', 1)[0]!);

  const run = await runCli(['restore', file, ...target], {
    env: { PATH: process.env.PATH, TYPEPLANE_SECRET_KEY: secretKey },
  });
  exits(run, 0);
  assert.match(run.stdout, /recorded in its audit trail/);

  const after = await startTestService({ ...restored, secretKey, adminToken: before.token, audit });
  t.after(() => after.close());
  const records = await trail(after, 2);
  assert.equal(records.length, 2, JSON.stringify(records));
  const [first, restore] = records;
  assert.deepEqual(first, registration);
  assert.equal(restore.verb, 'restore');
  assert.deepEqual(restore.objectRef, { resource: 'backup' });
  assert.deepEqual(restore.user, {});
  assert.equal(restore.responseStatus.code, 200);
  assert.equal(restore.requestURI, `typeplane restore ${file}`);
  assert.equal(restore.annotations['typeplane.dev/backup-file'], file);
  assert.equal(restore.annotations['typeplane.dev/backup-bytes'], String(statSync(file).size));
  assert.equal(restore.annotations['typeplane.dev/backup-taken'], header.createdAt);
  assert.match(restore.annotations['typeplane.dev/restored-by'], /^\S+@\S+$/);
  // Chained after the backup's last record, under the store's key.
  assert.equal(restore.previousHash, registration.hash);
  const report = verifyTrail(
    [{ name: 'trail', text: records.map((r) => JSON.stringify(r)).join('\n') }],
    chainKey(Buffer.from(secretKey, 'base64')),
  );
  assert.deepEqual(report.problems, []);
  assert.equal(report.records, 2);
}

test('a restore is recorded in the restored store’s trail [sqlite]', async (t) => {
  const dataDir = join(tempDir('typeplane-restore-trail-'), 'restored');
  await restoreIsRecorded(t, {}, ['--data-dir', dataDir], { dataDir });
});

test('a restore is recorded in the restored store’s trail [postgresql]', { skip: pgSkip }, async (t) => {
  const schema = freshSchema(t, 'tp_restore_trail');
  await restoreIsRecorded(
    t,
    { database: { url: PG_URL, schema: freshSchema(t, 'tp_restore_src') } },
    ['--database-url', PG_URL, '--database-schema', schema],
    { database: { url: PG_URL, schema } },
  );
});
