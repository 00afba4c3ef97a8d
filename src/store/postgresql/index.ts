/**
 * @module The PostgreSQL store, for several server replicas over one database.
 */
export { PostgresStore, openPostgresStore, type PostgresStoreOptions } from './store.js';
