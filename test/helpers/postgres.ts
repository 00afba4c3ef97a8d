/**
 * The PostgreSQL server tests may use: TYPEPLANE_TEST_POSTGRES_URL, default 127.0.0.1:5432/test
 * (`.ci/run` starts it) — the one default of every test. Tests that need it pass `{ skip: pgSkip }`:
 * they skip, saying why, when no server answers (under CI the file fails instead: see
 * `requirements.ts`). Each test works in a schema of its own, dropped when it ends.
 */
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { requirement } from './requirements.js';

export const PG_URL = process.env.TYPEPLANE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why PostgreSQL tests skip, or false when the server answers (under CI, importing this throws). */
export const pgSkip: string | false = requirement(
  await (async () => {
    // A loaded machine (several test files and servers at once on two cores) can take seconds to
    // connect: a refusal is final at once, a timeout is tried again before the server counts as absent.
    let last: Error | undefined;
    for (const timeout of [3_000, 10_000]) {
      const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: timeout });
      try {
        await client.connect();
        return false;
      } catch (error) {
        last = error as Error;
        if (!/timeout/i.test(last.message)) break;
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    return `PostgreSQL not reachable at ${new URL(PG_URL).host}: ${last?.message}; start one, or point TYPEPLANE_TEST_POSTGRES_URL at one`;
  })(),
);

/** A fresh schema name, dropped (with everything in it) when the test ends. */
export function freshSchema(t: TestContext, prefix = 'tp_test'): string {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  t.after(() => dropSchema(schema));
  return schema;
}

export async function dropSchema(schema: string): Promise<void> {
  await pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** One query on a connection of its own. */
export async function pgQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
