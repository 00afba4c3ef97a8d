/**
 * @module The store's front door: the interface every store implements, and the embedded one.
 */
export type {
  Store,
  StoredType,
  StoredResource,
  OperationRecord,
  OperationFilter,
  Page,
  BeginResult,
  ResourceChange,
  KvEntry,
  KvKey,
  KvWrite,
  TypeVersionExpectation,
  TypeVersionEntry,
  TypeUsage,
  StoreObserver,
  StoreStats,
  Change,
  ChangePage,
} from './types.js';
export { OperationMovedOn, DefaultVersionMoved, TypeChangedMeanwhile } from './types.js';
export { resourceCursor, encodeCursor, decodeCursor } from './cursor.js';
export { RESOURCE_PAGE_BYTES } from './rows.js';
export { SqliteStore, openSqliteStore, type SqliteStoreOptions } from './sqlite/index.js';
import type { PostgresStore, PostgresStoreOptions } from './postgresql/index.js';

export type { PostgresStore, PostgresStoreOptions };
export { redactUrl } from './redact-url.js';

/**
 * Open the PostgreSQL store. Its module, and the `pg` driver with it, load on the first call: a
 * server on the embedded store, and every CLI command, start without them.
 */
export async function openPostgresStore(url: string, options?: PostgresStoreOptions): Promise<PostgresStore> {
  const { openPostgresStore: open } = await import('./postgresql/index.js');
  return open(url, options);
}
