/**
 * The store's audit trail (`--audit-store`) over real HTTP on each store: changes and refusals are
 * kept as one chain, served newest first on GET /v1/audit to admins only, filtered by time, verb,
 * type, token and outcome, paged without a record lost or repeated; `typeplane audit export` writes
 * it as lines `typeplane audit verify` passes, and a changed record in the export fails.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eachStoreService } from '../helpers/each-store.js';
import { runCli } from '../helpers/cli.js';
import { api, tempDir, WIDGET, WIDGET_TYPE, type Api } from '../helpers/service.js';

const key = randomBytes(32).toString('base64');

/** Every record of the trail, newest first, once at least `count` are stored (they are written in batches). */
async function trail(client: Api, count: number, query = ''): Promise<any[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const answer = await client.call('GET', `/v1/audit${query}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    if (answer.body.records.length >= count) return answer.body.records;
    if (Date.now() > until) throw new Error(`${answer.body.records.length} records stored, not ${count}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

eachStoreService(
  'the store keeps every change and refusal as one chain, served to admins newest first',
  async (svc) => {
    const startedAt = new Date().toISOString();
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    const created = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
      desiredState: { Name: 'w1', Secret: 'hunter2-write-only', Color: 'red' },
    });
    assert.equal(created.status, 202);
    const reader = await svc.call('POST', '/v1/tokens', { role: 'reader', description: 'trail reader' });
    assert.equal(reader.status, 201);
    const readerApi = api(svc.url, reader.body.token);
    assert.equal((await readerApi.call('DELETE', `/v1/resources/${WIDGET_TYPE}/w1`)).status, 403);
    // The trail itself is for admins only; the refusal is recorded as any other.
    const refusedTrail = await readerApi.call('GET', '/v1/audit');
    assert.equal(refusedTrail.status, 403);
    assert.equal(refusedTrail.body.errorCode, 'AccessDenied');

    const records = await trail(svc, 6);
    assert.equal(records.length, 6);
    assert.ok(!JSON.stringify(records).includes('hunter2'), 'a write-only value is in the trail');
    // Newest first, one chain: each record names the hash of the one below it.
    records.forEach((r, i) => {
      assert.equal(r.sequence, records.length - i);
      const older = records[i + 1];
      assert.equal(r.previousHash, older ? older.hash : '0'.repeat(64));
    });
    assert.deepEqual(
      records.map((r) => `${r.verb} ${r.objectRef.resource} ${r.responseStatus.code}`),
      [
        'list audit 403',
        'delete resources 403',
        'create tokens 201',
        'create resources 202',
        'create resources 200',
        'create types 201',
      ],
    );
    // The create's operation ended within its request: its end is recorded first, then the 202.
    assert.equal(records[3].objectRef.requestToken, created.body.progressEvent.requestToken);
    assert.equal(records[4].objectRef.requestToken, created.body.progressEvent.requestToken);
    assert.deepEqual(
      records.map((r) => r.stage),
      [
        'ResponseComplete',
        'ResponseComplete',
        'ResponseComplete',
        'ResponseComplete',
        'OperationComplete',
        'ResponseComplete',
      ],
    );
    assert.equal(records[4].responseStatus.operationStatus, 'SUCCESS');

    const only = async (query: string) => (await trail(svc, 0, query)).map((r) => r.sequence);
    assert.deepEqual(await only('?verb=create'), [4, 3, 2, 1]);
    assert.deepEqual(await only(`?typeName=${encodeURIComponent(WIDGET_TYPE)}`), [5, 3, 2]);
    assert.deepEqual(await only(`?tokenId=${reader.body.id}`), [6, 5]);
    assert.deepEqual(await only('?outcome=4xx'), [6, 5]);
    assert.deepEqual(await only('?outcome=202'), [3]);
    assert.deepEqual(await only('?outcome=AccessDenied'), [6, 5]);
    // By the time each was made (records 5 and 6 were made after the token's was answered).
    assert.deepEqual(await only(`?since=${records[2].stageTimestamp}`), [6, 5, 4]);
    const later = new Date(Date.now() + 60_000).toISOString();
    assert.deepEqual(await only(`?since=${startedAt}&until=${later}`), [6, 5, 4, 3, 2, 1]);
    assert.deepEqual(await only(`?until=${startedAt}`), []);
    assert.deepEqual(await only(`?since=${later}`), []);

    // Pages of two: every record once, in order.
    const paged: number[] = [];
    for (let next: string | undefined, pages = 0; pages < 10; pages++) {
      const answer = await svc.call('GET', `/v1/audit?maxResults=2${next ? `&nextToken=${next}` : ''}`);
      paged.push(...answer.body.records.map((r: any) => r.sequence));
      next = answer.body.nextToken;
      if (!next) break;
    }
    assert.deepEqual(paged, [6, 5, 4, 3, 2, 1]);

    for (const bad of ['?outcome=4x', '?since=yesterday', '?maxResults=0', '?colour=red', '?nextToken=abc'])
      assert.equal((await svc.call('GET', `/v1/audit${bad}`)).status, 400, bad);

    // Exported oldest first, the trail verifies; a record changed in the export does not.
    const file = join(tempDir('typeplane-audit-export-'), 'trail.jsonl');
    const env = { PATH: process.env.PATH, TYPEPLANE_SECRET_KEY: key };
    const exported = await runCli(
      ['audit', 'export', '--endpoint', svc.url, '--token', svc.token, '--out', file],
      {
        env,
      },
    );
    assert.equal(exported.code, 0, exported.stderr);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 6);
    const verified = await runCli(['audit', 'verify', file], { env });
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /ok: 6 records chained intact, head sequence 6/);
    writeFileSync(
      file,
      lines.map((l, i) => (i === 3 ? l.replace('"code":201', '"code":200') : l)).join('\n'),
    );
    const tampered = await runCli(['audit', 'verify', file], { env });
    assert.equal(tampered.code, 1);
    assert.match(tampered.stdout, /:4: changed/);
  },
  () => ({ secretKey: key, audit: { store: true, level: 'Request' } }),
);

eachStoreService(
  'without --audit-store the API keeps no trail',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/tokens', { role: 'reader' })).status, 201);
    const answer = await svc.call('GET', '/v1/audit');
    assert.equal(answer.status, 404);
  },
  () => ({ audit: { log: join(tempDir('typeplane-audit-'), 'audit.log') } }),
);
