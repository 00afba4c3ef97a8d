/**
 * @module The PostgreSQL schema as a versioned list of migrations, the same tables and indexes as the
 * SQLite store's latest schema. Every store lives in a schema of its own (default `typeplane`); a
 * `schema_version` table records how many migrations have run. Opening a store runs the rest in one
 * transaction under an advisory lock, so replicas starting at once do not run one twice.
 * Append only: never edit a released migration.
 *
 * Text columns that are keys or compared (identifiers, times, tokens) use the "C" collation: byte
 * order, as SQLite's, whatever the database's locale — ISO times then compare as times, and keyset
 * pagination orders identifiers the same way in both stores.
 */
import type pg from 'pg';
import { RESERVED, changeLogMigration } from '../rows.js';

const ACTIVE = `('PENDING','IN_PROGRESS','CANCEL_IN_PROGRESS')`;
const TERMINAL = `('SUCCESS','FAILED','CANCEL_COMPLETE')`;

export const MIGRATIONS: readonly string[] = [
  // 1: everything the SQLite store has after its fourth migration.
  `
  CREATE SEQUENCE types_seq;
  CREATE TABLE types (
    type_name     text COLLATE "C" NOT NULL,
    version       text COLLATE "C" NOT NULL,
    model_json    text NOT NULL,
    source        text NOT NULL,
    registered_at text COLLATE "C" NOT NULL,
    seq           bigint NOT NULL,
    PRIMARY KEY (type_name, version)
  );
  CREATE INDEX types_latest ON types (type_name, seq);

  CREATE TABLE resources (
    type_name       text COLLATE "C" NOT NULL,
    identifier      text COLLATE "C" NOT NULL,
    properties_json text NOT NULL,
    sealed          text,
    created_at      text COLLATE "C" NOT NULL,
    updated_at      text COLLATE "C" NOT NULL,
    PRIMARY KEY (type_name, identifier)
  );

  CREATE TABLE operations (
    seq                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_token         text COLLATE "C" NOT NULL UNIQUE,
    type_name             text COLLATE "C" NOT NULL,
    identifier            text COLLATE "C",
    operation             text NOT NULL,
    status                text NOT NULL,
    event_time            text COLLATE "C" NOT NULL,
    resource_model_json   text,
    status_message        text,
    error_code            text,
    retry_after           text COLLATE "C",
    request_json          text NOT NULL,
    callback_context_json text,
    started_at            text COLLATE "C" NOT NULL,
    deadline_at           text COLLATE "C" NOT NULL,
    attempts              integer NOT NULL DEFAULT 0,
    client_token          text COLLATE "C",
    request_hash          text,
    lease_owner           text,
    lease_until           text COLLATE "C"
  );
  CREATE UNIQUE INDEX operations_one_active ON operations (type_name, identifier)
    WHERE status IN ${ACTIVE} AND identifier IS NOT NULL;
  CREATE INDEX operations_active ON operations (seq) WHERE status IN ${ACTIVE};
  CREATE INDEX operations_by_type ON operations (type_name, seq);
  CREATE INDEX operations_terminal ON operations (event_time) WHERE status IN ${TERMINAL};
  CREATE UNIQUE INDEX operations_client_token ON operations (client_token) WHERE client_token IS NOT NULL;

  CREATE TABLE resource_refs (
    from_type text COLLATE "C" NOT NULL,
    from_id   text COLLATE "C" NOT NULL,
    to_type   text COLLATE "C" NOT NULL,
    to_id     text COLLATE "C" NOT NULL,
    PRIMARY KEY (from_type, from_id, to_type, to_id)
  );
  CREATE INDEX resource_refs_to ON resource_refs (to_type, to_id);

  CREATE TABLE kv (
    namespace  text COLLATE "C" NOT NULL,
    key        text COLLATE "C" NOT NULL,
    value_json text NOT NULL,
    written_by text NOT NULL,
    PRIMARY KEY (namespace, key)
  );
  `,
  // 2: as the SQLite store's fifth: two B-trees fewer written per operation. No API lists operations
  // by type, and expiry walks the oldest operations in seq order instead of an index of terminal ones.
  `
  DROP INDEX operations_by_type;
  DROP INDEX operations_terminal;
  `,
  // Type versions (as the SQLite store's migration of the same purpose): numbers in registration
  // order, and the version each resource was last written with.
  `
  UPDATE types SET version = 'v' || seq;
  UPDATE types t SET version = r.n::text
    FROM (SELECT type_name, seq, row_number() OVER (PARTITION BY type_name ORDER BY seq) AS n FROM types) r
    WHERE t.type_name = r.type_name AND t.seq = r.seq;
  ALTER TABLE resources ADD COLUMN type_version text COLLATE "C";
  UPDATE resources SET type_version = (SELECT version FROM types t WHERE t.type_name = resources.type_name ORDER BY seq DESC LIMIT 1);
  CREATE INDEX resources_by_version ON resources (type_name, type_version);
  `,
  // Additional identifiers: each value unique within its type, and resolvable to the resource holding it.
  `
  CREATE TABLE resource_identifiers (
    type_name  text NOT NULL,
    name       text NOT NULL,
    value      text NOT NULL,
    identifier text NOT NULL,
    PRIMARY KEY (type_name, name, value)
  );
  CREATE INDEX resource_identifiers_of ON resource_identifiers (type_name, identifier);
  `,
  // A claim within a type's share asks each type for its oldest due operations: they are found without
  // walking another type's backlog.
  `
  CREATE INDEX operations_active_by_type ON operations (type_name, seq) WHERE status IN ${ACTIVE};
  `,
  // What reads observe of a resource beside its record (a provider's NotFound, and since when).
  `
  ALTER TABLE resources ADD COLUMN observed_status text;
  ALTER TABLE resources ADD COLUMN observed_since text COLLATE "C";
  `,
  // The audit trail (serve --audit-store): one chained record a row, found by time, type and token.
  `
  CREATE TABLE audit_records (
    sequence   bigint PRIMARY KEY,
    hash       text NOT NULL,
    time       text COLLATE "C" NOT NULL,
    verb       text NOT NULL,
    type_name  text COLLATE "C",
    token_id   text COLLATE "C",
    code       integer NOT NULL,
    error_code text,
    record     text NOT NULL
  );
  CREATE INDEX audit_records_time ON audit_records (time);
  CREATE INDEX audit_records_type ON audit_records (type_name, sequence) WHERE type_name IS NOT NULL;
  CREATE INDEX audit_records_token ON audit_records (token_id, sequence) WHERE token_id IS NOT NULL;
  `,
  // No index on (type_name, type_version). Until the table was first analysed, the planner's generic
  // plan looked a resource up by its key through it (the type's entries, each row's identifier then
  // compared), so that every create and read read all of its type's rows: 1.3 million rows for 3,061
  // creates. Counting a type's resources per version (a type's describe, a version's removal; nothing
  // a create or read does) reads the type's rows instead, about 0.3 us a row. (The SQLite store keeps
  // a count per version by triggers; here concurrent creates of a type would queue on that row's lock.)
  `
  DROP INDEX resources_by_version;
  `,
  // What admission policies and hooks warned of when an operation began (its events carry them).
  `
  ALTER TABLE operations ADD COLUMN warnings_json text;
  `,
  // Who asked for an operation (an API token's id): its end is recorded as theirs in the audit trail.
  `
  ALTER TABLE operations ADD COLUMN requested_by text;
  `,
  // 11–13: empty — numbers once set aside for work that turned out to need none. They stay empty: a
  // store already past them would never run anything put there later (append only).
  ...RESERVED(3),
  // 14: the change log (watch), as the SQLite store's migration 17. Versions are drawn from the
  // sequence of operations.seq, which never goes back: the horizon only says what expired.
  changeLogMigration('bigint'),
  // 15: a claim within a caller's share (src/fairness) asks each caller for its oldest due operations,
  // found without walking another caller's backlog.
  `
  CREATE INDEX operations_active_by_requester ON operations (requested_by, seq)
    WHERE status IN ${ACTIVE} AND requested_by IS NOT NULL;
  `,
];

/** Schema names Typeplane accepts: plain lower-case identifiers, so they never need quoting. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Bring `schema` up to date, creating it if needed. Throws if it was written by a newer Typeplane.
 * `client` must not be in a transaction.
 */
export async function migrate(client: pg.ClientBase, schema: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  await client.query('BEGIN');
  try {
    // One migrator per schema at a time, across every process on the database.
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `typeplane:migrate:${schema}`,
    ]);
    // Created only when absent: a role without CREATE on the database can use a schema made for it.
    const exists = await client.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_version (version integer NOT NULL)`);
    const rows = (await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`))
      .rows;
    let version = rows[0]?.version ?? 0;
    if (rows.length === 0) await client.query(`INSERT INTO ${schema}.schema_version VALUES (0)`);
    if (version > MIGRATIONS.length) {
      throw new Error(
        `The store schema ${schema} is version ${version}, newer than this Typeplane knows (${MIGRATIONS.length}): upgrade Typeplane.`,
      );
    }
    await client.query(`SET LOCAL search_path TO ${schema}`);
    for (; version < MIGRATIONS.length; version++) await client.query(MIGRATIONS[version]!);
    await client.query(`UPDATE ${schema}.schema_version SET version = $1`, [version]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
