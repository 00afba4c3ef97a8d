/**
 * A test run against a real server over each store: SQLite in a temporary folder, and PostgreSQL in
 * a fresh schema (skipped without a PostgreSQL server, failed under CI).
 */
import { test, type TestContext } from 'node:test';
import type { ServiceOptions } from '../../src/service.js';
import { freshSchema, PG_URL, pgSkip } from './postgres.js';
import { startTestService, type TestService } from './service.js';

export type StoreKind = 'sqlite' | 'postgresql';

/** A server on `kind`; with PostgreSQL, `schema` names the schema its tables are in. */
export type StoreService = TestService & { schema?: string };

export async function serviceOn(
  t: TestContext,
  kind: StoreKind,
  options: Partial<ServiceOptions> = {},
): Promise<StoreService> {
  const schema = kind === 'postgresql' ? freshSchema(t, 'tp_versions') : undefined;
  const svc = await startTestService({
    ...(schema !== undefined ? { database: { url: PG_URL, schema } } : {}),
    ...options,
  });
  t.after(() => svc.close());
  return Object.assign(svc, schema !== undefined ? { schema } : {});
}

/** `name [sqlite]` and `name [postgresql]`, each with a server of its own (made with `options()`). */
export function eachStoreService(
  name: string,
  fn: (svc: StoreService, t: TestContext, kind: StoreKind) => Promise<void>,
  options: () => Partial<ServiceOptions> = () => ({}),
): void {
  test(`${name} [sqlite]`, async (t) => fn(await serviceOn(t, 'sqlite', options()), t, 'sqlite'));
  test(`${name} [postgresql]`, { skip: pgSkip }, async (t) =>
    fn(await serviceOn(t, 'postgresql', options()), t, 'postgresql'),
  );
}
