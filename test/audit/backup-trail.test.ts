/**
 * Backups are in the audit trail: `GET /v1/backup` is recorded (verb `backup`) with who took it,
 * when, its outcome and the bytes sent — once it has ended, so a backup its client abandons is
 * recorded too, as not complete, with what was sent — and a refused one as any refusal. Over real
 * HTTP on each store.
 */
import assert from 'node:assert/strict';
import { createWriteStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Client } from '../../src/cli/client.js';
import { eachStoreService, type StoreService } from '../helpers/each-store.js';
import { api, tempDir, WIDGET, WIDGET_TYPE } from '../helpers/service.js';

/** The trail's backup records, newest first, once there are `count`. */
async function backupRecords(svc: StoreService, count: number): Promise<any[]> {
  for (const until = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const records = (await svc.call('GET', '/v1/audit?verb=backup')).body.records;
    if (records.length >= count) return records;
    assert.ok(Date.now() < until, JSON.stringify(records));
  }
}

eachStoreService(
  'a backup is recorded when it ends, with who took it, its outcome and its size',
  async (svc, _t, kind) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const file = join(tempDir('typeplane-backup-trail-'), 'whole.backup');
    await pipeline(await new Client(svc.url, svc.token).download('/v1/backup'), createWriteStream(file));
    const size = statSync(file).size;
    const reader = await svc.call('POST', '/v1/tokens', { role: 'reader', description: 'nosy' });
    assert.equal((await api(svc.url, reader.body.token).call('GET', '/v1/backup')).status, 403);

    const [refused, whole] = await backupRecords(svc, 2);
    const admin = (await svc.call('GET', '/v1/tokens')).body.tokens.find((t: any) => t.role === 'admin');
    assert.equal(whole.verb, 'backup');
    assert.deepEqual(whole.objectRef, { resource: 'backup' });
    assert.equal(whole.user.tokenId, admin.id);
    assert.deepEqual(whole.responseStatus, { code: 200 });
    assert.deepEqual(whole.annotations, {
      'typeplane.dev/bytes-sent': String(size),
      'typeplane.dev/complete': 'true',
    });
    assert.ok(whole.requestReceivedTimestamp <= whole.stageTimestamp);
    assert.equal(refused.user.tokenId, reader.body.id);
    assert.equal(refused.responseStatus.code, 403);
    assert.equal(refused.responseStatus.errorCode, 'AccessDenied');

    if (kind !== 'sqlite') return;
    // A store too big for the connection's buffers (about 24 MB), so a client that reads one chunk
    // and goes away leaves most of it unsent.
    const big = 'x'.repeat(1_000_000);
    for (let i = 0; i < 24; i++) {
      const made = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}`, {
        desiredState: { Name: `big${i}`, Color: big },
      });
      assert.equal(made.status, 202);
    }
    const abandoned = await new Client(svc.url, svc.token).download('/v1/backup');
    for await (const chunk of abandoned) {
      assert.ok((chunk as Buffer).length > 0);
      break;
    }
    const [cut] = await backupRecords(svc, 3);
    assert.equal(cut.annotations['typeplane.dev/complete'], 'false');
    const sent = Number(cut.annotations['typeplane.dev/bytes-sent']);
    assert.ok(sent > 0 && sent < 24_000_000, `${sent} bytes sent`);
    assert.match(cut.responseStatus.message, new RegExp(`stopped after ${sent} bytes, before its end`));
  },
  () => ({ audit: { store: true, batch: { maxWaitMs: 20 } } }),
);
