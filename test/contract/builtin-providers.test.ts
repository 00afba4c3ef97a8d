import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSchemaType, runContractSuite } from '../../src/contract/index.js';
import { createFileProvider } from '../../src/providers/file/index.js';
import { createPostgresProvider } from '../../src/providers/postgresql/index.js';
import { explain, failedTests, root } from './helpers.js';
import { PG_URL, pgSkip } from '../helpers/postgres.js';

const fileSchema = join(root, 'examples/typeplane-local-file.yaml');

async function fileSuite(type: Awaited<ReturnType<typeof readSchemaType>>, seed: number) {
  const dir = mkdtempSync(join(tmpdir(), 'typeplane-contract-files-'));
  try {
    return await runContractSuite({ type, provider: createFileProvider({ root: dir }), seed });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the file provider passes the whole suite with its schema', async () => {
  const report = await fileSuite(await readSchemaType(fileSchema), 1);
  assert.deepEqual(failedTests(report), [], explain(report));
  assert.equal(report.ok, true);
});

test('the PostgreSQL provider passes the whole suite', { skip: pgSkip }, async (t) => {
  const type = await readSchemaType(join(root, 'examples/typeplane-postgresql-database.json'));
  // A scope of its own: other tests create databases of this type on the same server meanwhile, and
  // the suite's list must see only the ones it made.
  const provider = createPostgresProvider({ url: PG_URL, scope: `contract-suite-${process.pid}` });
  try {
    const report = await runContractSuite({ type, provider, seed: 1, runs: 3 });
    t.diagnostic(`${report.durationMs} ms`);
    assert.deepEqual(failedTests(report), [], explain(report));
    assert.equal(report.ok, true);
  } finally {
    await provider.close?.();
  }
});
