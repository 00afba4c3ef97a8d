/**
 * `typeplane audit verify`: an intact log passes; a changed, a removed and an inserted record are each
 * reported with their line and auditID; a rotated set verifies as one chain, as does a log a restarted
 * server continued; the wrong key passes nothing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startTestService, tempDir } from '../helpers/service.js';
import { awaitRecords } from './helpers.js';

const key = randomBytes(32).toString('base64');

/** A log of `count` token creations (and the server's own records), written by a real server. */
async function logOf(count: number, options: { maxBytes?: number; file?: string } = {}): Promise<string> {
  const file = options.file ?? join(tempDir('typeplane-audit-'), 'audit.log');
  const svc = await startTestService({
    secretKey: key,
    audit: { log: file, ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}) },
  });
  try {
    for (let i = 0; i < count; i++)
      assert.equal(
        (await svc.call('POST', '/v1/tokens', { role: 'reader', description: `t${i}` })).status,
        201,
      );
    if (options.maxBytes === undefined) await awaitRecords(file, count);
    else await new Promise((r) => setTimeout(r, 300));
  } finally {
    await svc.close();
  }
  return file;
}

const verify = (files: string[], env: Record<string, string> = { TYPEPLANE_SECRET_KEY: key }) =>
  runCli(['audit', 'verify', ...files], { env: { PATH: process.env.PATH, ...env } });

test('an intact log verifies; a changed, removed or inserted record is named by line and auditID', async () => {
  const file = await logOf(6);
  const intact = await verify([file]);
  assert.equal(intact.code, 0, intact.stdout + intact.stderr);
  assert.match(intact.stdout, /ok: 6 records chained intact, head sequence 6/);

  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const idOf = (line: string) => JSON.parse(line).auditID as string;

  // Changed: line 2's outcome rewritten.
  const changed = [...lines];
  changed[1] = changed[1]!.replace('"code":201', '"code":500');
  writeFileSync(file, `${changed.join('\n')}\n`);
  let run = await verify([file]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, new RegExp(`:2: changed \\(auditID ${idOf(lines[1]!)}\\)`));
  assert.equal(run.stdout.match(/: (changed|removed|inserted|malformed)/g)?.length, 1, run.stdout);

  // Removed: line 3 dropped; the record now on line 3 (the old line 4) says so.
  writeFileSync(file, `${lines.filter((_, i) => i !== 2).join('\n')}\n`);
  run = await verify([file]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, new RegExp(`:3: removed \\(auditID ${idOf(lines[3]!)}\\): 1 record was removed`));
  assert.equal(run.stdout.match(/: (changed|removed|inserted|malformed)/g)?.length, 1, run.stdout);

  // Inserted: a forged record (a copy of line 2 with another auditID) before line 4.
  const forged = lines[1]!.replace(idOf(lines[1]!), '00000000-0000-4000-8000-000000000000');
  writeFileSync(file, `${[...lines.slice(0, 3), forged, ...lines.slice(3)].join('\n')}\n`);
  run = await verify([file]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /:4: inserted \(auditID 00000000-0000-4000-8000-000000000000\)/);
  assert.equal(run.stdout.match(/: (changed|removed|inserted|malformed)/g)?.length, 1, run.stdout);

  // Inserted: a genuine record copied to another place.
  writeFileSync(file, `${[...lines.slice(0, 4), lines[1], ...lines.slice(4)].join('\n')}\n`);
  run = await verify([file]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, new RegExp(`:5: inserted \\(auditID ${idOf(lines[1]!)}\\)`));

  // The wrong key: nothing verifies.
  writeFileSync(file, `${lines.join('\n')}\n`);
  run = await verify([file], { TYPEPLANE_SECRET_KEY: randomBytes(32).toString('base64') });
  assert.equal(run.code, 1);
  // No key at all: said, not guessed (and no key file is created).
  run = await runCli(['audit', 'verify', file, '--data-dir', tempDir()], { env: { PATH: process.env.PATH } });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /no secret key/);
});

test('rotated files, and a log a restarted server continued, verify as one chain', async () => {
  const file = await logOf(8, { maxBytes: 1200 });
  await logOf(2, { file, maxBytes: 1200 });
  const rotated = [5, 4, 3, 2, 1]
    .map((n) => `${file}.${n}`)
    .filter((f) => {
      try {
        readFileSync(f);
        return true;
      } catch {
        return false;
      }
    });
  assert.ok(rotated.length >= 2, `the log rotated (${rotated.length} rotated files)`);
  const run = await verify([...rotated, file]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  // A rotated file's first record names the previous file's last hash.
  const newest = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!);
  const before = readFileSync(`${file}.1`, 'utf8').trimEnd().split('\n').pop()!;
  assert.equal(newest.previousHash, JSON.parse(before).hash);
  // Out of order, the seam is reported.
  const swapped = await verify([file, ...rotated]);
  assert.equal(swapped.code, 1);
});
