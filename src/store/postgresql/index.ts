/**
 * @module The PostgreSQL store, for several server replicas over one database.
 */
export { PostgresStore, openPostgresStore, redactUrl, type PostgresStoreOptions } from './store.js';
