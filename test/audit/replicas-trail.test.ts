/**
 * One ordered trail across PostgreSQL replicas: two `typeplane serve --audit-store` processes on one
 * schema, written to at once, store one gap-free chain holding both's records, which either serves,
 * and whose export (as `typeplane audit export` writes it) `typeplane audit verify` passes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stopServer } from '../faults/helpers.js';
import { runCli } from '../helpers/cli.js';
import { freshSchema, pgSkip } from '../helpers/postgres.js';
import { replicas } from '../helpers/replicas.js';
import { api, tempDir } from '../helpers/service.js';

const EACH = 25;

test(
  'two replicas writing at once store one gap-free chain that verifies',
  { skip: pgSkip, timeout: 120_000 },
  async (t) => {
    const schema = freshSchema(t, 'tp_audit');
    const key = randomBytes(32).toString('base64');
    const servers = await replicas(schema, 2, ['--audit-store', '--audit-level', 'Request'], {
      TYPEPLANE_SECRET_KEY: key,
    });
    t.after(() => Promise.all(servers.map((s) => stopServer(s))));
    const [one, two] = servers.map((s) => api(s.url, s.token));
    await Promise.all(
      [one!, two!].flatMap((client, replica) =>
        Array.from({ length: EACH }, async (_, i) => {
          const made = await client.call('POST', '/v1/tokens', {
            role: 'reader',
            description: `r${replica}-${i}`,
          });
          assert.equal(made.status, 201);
        }),
      ),
    );
    // Every record, oldest first, once both replicas have stored theirs (batches follow the answers).
    let records: any[] = [];
    for (const until = Date.now() + 20_000; records.length < 2 * EACH;) {
      assert.ok(Date.now() < until, `${records.length} records stored, not ${2 * EACH}`);
      await new Promise((r) => setTimeout(r, 100));
      const page = await two!.call('GET', '/v1/audit?maxResults=1000');
      assert.equal(page.status, 200);
      records = page.body.records.reverse();
    }
    assert.equal(records.length, 2 * EACH);
    records.forEach((r, i) => {
      assert.equal(r.sequence, i + 1, 'a gap or a repeat in the sequence');
      assert.equal(r.previousHash, i === 0 ? '0'.repeat(64) : records[i - 1].hash);
    });
    // Both replicas' records are in it, each once.
    const expected = [0, 1].flatMap((replica) => Array.from({ length: EACH }, (_, i) => `r${replica}-${i}`));
    assert.deepEqual(records.map((r) => r.requestObject.description).sort(), expected.sort());
    const sameOnOne = await one!.call('GET', '/v1/audit?maxResults=1000');
    assert.deepEqual(sameOnOne.body.records.reverse(), records, 'the replicas serve different trails');

    const file = join(tempDir('typeplane-audit-replicas-'), 'trail.jsonl');
    writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const verified = await runCli(['audit', 'verify', file], {
      env: { PATH: process.env.PATH, TYPEPLANE_SECRET_KEY: key },
    });
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, new RegExp(`ok: ${2 * EACH} records chained intact`));
  },
);
