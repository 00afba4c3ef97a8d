/**
 * A test run against a real server over each store: SQLite in a temporary folder, and PostgreSQL in
 * a fresh schema (skipped without a PostgreSQL server, failed under CI).
 */
import { test, type TestContext } from 'node:test';
import type { ServiceOptions } from '../../src/service.js';
import { freshSchema, PG_URL, pgSkip } from './postgres.js';
import { startTestService, type TestService } from './service.js';

export type StoreKind = 'sqlite' | 'postgresql';

export async function serviceOn(
  t: TestContext,
  kind: StoreKind,
  options: Partial<ServiceOptions> = {},
): Promise<TestService> {
  const svc = await startTestService({
    ...(kind === 'postgresql' ? { database: { url: PG_URL, schema: freshSchema(t, 'tp_versions') } } : {}),
    ...options,
  });
  t.after(() => svc.close());
  return svc;
}

/** `name [sqlite]` and `name [postgresql]`, each with a server of its own (made with `options()`). */
export function eachStoreService(
  name: string,
  fn: (svc: TestService, t: TestContext, kind: StoreKind) => Promise<void>,
  options: () => Partial<ServiceOptions> = () => ({}),
): void {
  test(`${name} [sqlite]`, async (t) => fn(await serviceOn(t, 'sqlite', options()), t, 'sqlite'));
  test(`${name} [postgresql]`, { skip: pgSkip }, async (t) =>
    fn(await serviceOn(t, 'postgresql', options()), t, 'postgresql'),
  );
}
