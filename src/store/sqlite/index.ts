/**
 * @module The embedded SQLite store.
 */
export { SqliteStore, openSqliteStore, type SqliteStoreOptions } from './store.js';
