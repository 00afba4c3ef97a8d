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
  TypeVersionExpectation,
  TypeVersionEntry,
  TypeUsage,
} from './types.js';
export { OperationMovedOn, DefaultVersionMoved, TypeChangedMeanwhile } from './types.js';
export { resourceCursor } from './cursor.js';
export { SqliteStore, openSqliteStore, type SqliteStoreOptions } from './sqlite/index.js';
export {
  PostgresStore,
  openPostgresStore,
  redactUrl,
  type PostgresStoreOptions,
} from './postgresql/index.js';
