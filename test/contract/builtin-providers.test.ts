import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { readSchemaType, runContractSuite } from '../../src/contract/index.js';
import { createFileProvider } from '../../src/providers/file/index.js';
import { createPostgresProvider } from '../../src/providers/postgresql/index.js';
import { explain, failedTests, root } from './helpers.js';

const POSTGRES_URL = process.env.TYPEPLANE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const fileSchema = join(root, 'examples/typeplane-local-file.yaml');

async function postgresReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (e) {
    return `PostgreSQL is not reachable at ${POSTGRES_URL}: ${(e as Error).message}`;
  } finally {
    await client.end().catch(() => {});
  }
}

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

test('the PostgreSQL provider passes the whole suite', async (t) => {
  const unreachable = await postgresReachable();
  if (unreachable) return t.skip(unreachable);
  const type = await readSchemaType(join(root, 'examples/typeplane-postgresql-database.json'));
  const provider = createPostgresProvider({ url: POSTGRES_URL });
  try {
    const report = await runContractSuite({ type, provider, seed: 1, runs: 3 });
    t.diagnostic(`${report.durationMs} ms`);
    assert.deepEqual(failedTests(report), [], explain(report));
    assert.equal(report.ok, true);
  } finally {
    await provider.close?.();
  }
});
