/**
 * @module The SQLite schema as a versioned list of migrations. `PRAGMA user_version` records how many
 * have run; opening a store runs the rest, each in its own IMMEDIATE transaction so that processes
 * opening the same file at once do not run one twice. Append only: never edit a released migration.
 */
import type Database from 'better-sqlite3';

import { ACTIVE_SQL, ACTIVE_WHERE, RESERVED, TERMINAL_SQL, changeLogMigration } from '../rows.js';

/** Every column of the operations table (migration 5 copies them). */
const OPERATION_TABLE_COLUMNS = `seq, request_token, type_name, identifier, operation, status, event_time,
  resource_model_json, status_message, error_code, retry_after, request_json, callback_context_json, started_at,
  deadline_at, attempts, client_token, lease_owner, lease_until, request_hash`;

export const MIGRATIONS: readonly string[] = [
  // 1: the tables.
  `
  CREATE TABLE types (
    type_name     TEXT NOT NULL,
    version       TEXT NOT NULL,
    model_json    TEXT NOT NULL,
    source        TEXT NOT NULL,
    registered_at TEXT NOT NULL,
    -- Registration order across all types: the default version of a type is its highest seq.
    seq           INTEGER NOT NULL,
    PRIMARY KEY (type_name, version)
  ) WITHOUT ROWID;
  CREATE INDEX types_latest ON types (type_name, seq);

  CREATE TABLE resources (
    type_name       TEXT NOT NULL,
    identifier      TEXT NOT NULL,
    properties_json TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (type_name, identifier)
  ) WITHOUT ROWID;

  CREATE TABLE operations (
    -- Start order, never reused (AUTOINCREMENT): the keyset of listOperations.
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    request_token         TEXT NOT NULL UNIQUE,
    type_name             TEXT NOT NULL,
    identifier            TEXT,
    operation             TEXT NOT NULL,
    status                TEXT NOT NULL,
    event_time            TEXT NOT NULL,
    resource_model_json   TEXT,
    status_message        TEXT,
    error_code            TEXT,
    retry_after           TEXT,
    request_json          TEXT NOT NULL,
    callback_context_json TEXT,
    started_at            TEXT NOT NULL,
    deadline_at           TEXT NOT NULL,
    attempts              INTEGER NOT NULL DEFAULT 0,
    client_token          TEXT,
    lease_owner           TEXT,
    lease_until           TEXT
  );
  -- At most one active operation per resource.
  CREATE UNIQUE INDEX operations_one_active ON operations (type_name, identifier)
    WHERE status IN ${ACTIVE_SQL} AND identifier IS NOT NULL;
  -- What claimOperations scans.
  CREATE INDEX operations_active ON operations (seq) WHERE status IN ${ACTIVE_SQL};
  CREATE INDEX operations_by_type ON operations (type_name, seq);
  CREATE INDEX operations_terminal ON operations (event_time) WHERE status IN ${TERMINAL_SQL};

  CREATE TABLE client_tokens (
    client_token  TEXT PRIMARY KEY,
    request_token TEXT NOT NULL REFERENCES operations (request_token) ON DELETE CASCADE,
    request_hash  TEXT,
    created_at    TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX client_tokens_created ON client_tokens (created_at);
  CREATE INDEX client_tokens_request ON client_tokens (request_token);

  CREATE TABLE kv (
    namespace  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value_json TEXT NOT NULL,
    written_by TEXT NOT NULL,
    PRIMARY KEY (namespace, key)
  ) WITHOUT ROWID;
  `,
  // 2: references between resources, both directions indexed.
  `
  CREATE TABLE resource_refs (
    from_type TEXT NOT NULL,
    from_id   TEXT NOT NULL,
    to_type   TEXT NOT NULL,
    to_id     TEXT NOT NULL,
    PRIMARY KEY (from_type, from_id, to_type, to_id)
  ) WITHOUT ROWID;
  CREATE INDEX resource_refs_to ON resource_refs (to_type, to_id);
  `,
  // 3: a resource's write-only values, sealed by the engine, beside the rest of its model.
  `
  ALTER TABLE resources ADD COLUMN sealed TEXT;
  `,
  // 4: a client token becomes a column of its operation (one unique index instead of a table with
  // three B-trees and a foreign key: a third of the cost of writing an operation). Only tokens the
  // table still held stay, so the tokens kept are unique.
  `
  ALTER TABLE operations ADD COLUMN request_hash TEXT;
  UPDATE operations SET client_token = NULL
    WHERE client_token IS NOT NULL
      AND request_token NOT IN (SELECT request_token FROM client_tokens WHERE client_token = operations.client_token);
  UPDATE operations SET request_hash = (SELECT request_hash FROM client_tokens t WHERE t.request_token = operations.request_token)
    WHERE client_token IS NOT NULL;
  CREATE UNIQUE INDEX operations_client_token ON operations (client_token) WHERE client_token IS NOT NULL;
  DROP TABLE client_tokens;
  `,
  // 5: fewer B-trees written per operation (a tenth of a create's cost). seq becomes a plain rowid: the
  // AUTOINCREMENT bookkeeping (a sqlite_sequence write per insert) goes; a seq is then reused only
  // after every newer operation expired. operations_by_type (no API lists by type) and
  // operations_terminal go too: expiry walks the oldest operations in seq order instead.
  `
  CREATE TABLE operations_v5 (
    seq                   INTEGER PRIMARY KEY,
    request_token         TEXT NOT NULL UNIQUE,
    type_name             TEXT NOT NULL,
    identifier            TEXT,
    operation             TEXT NOT NULL,
    status                TEXT NOT NULL,
    event_time            TEXT NOT NULL,
    resource_model_json   TEXT,
    status_message        TEXT,
    error_code            TEXT,
    retry_after           TEXT,
    request_json          TEXT NOT NULL,
    callback_context_json TEXT,
    started_at            TEXT NOT NULL,
    deadline_at           TEXT NOT NULL,
    attempts              INTEGER NOT NULL DEFAULT 0,
    client_token          TEXT,
    lease_owner           TEXT,
    lease_until           TEXT,
    request_hash          TEXT
  );
  INSERT INTO operations_v5 (${OPERATION_TABLE_COLUMNS}) SELECT ${OPERATION_TABLE_COLUMNS} FROM operations ORDER BY seq;
  DROP TABLE operations;
  ALTER TABLE operations_v5 RENAME TO operations;
  DELETE FROM sqlite_sequence WHERE name IN ('operations', 'operations_v5');
  CREATE UNIQUE INDEX operations_one_active ON operations (type_name, identifier)
    WHERE status IN ${ACTIVE_SQL} AND identifier IS NOT NULL;
  CREATE INDEX operations_active ON operations (seq) WHERE status IN ${ACTIVE_SQL};
  CREATE UNIQUE INDEX operations_client_token ON operations (client_token) WHERE client_token IS NOT NULL;
  `,
  // Type versions: a type's versions become numbers in registration order ('1', '2', …; the default
  // is still the highest seq), and every resource records the version it was last written with (the
  // default version when this runs). Renamed in two steps, so no new name meets an old one.
  `
  UPDATE types SET version = 'v' || seq;
  UPDATE types SET version = CAST((SELECT COUNT(*) FROM types t WHERE t.type_name = types.type_name AND t.seq <= types.seq) AS TEXT);
  ALTER TABLE resources ADD COLUMN type_version TEXT;
  UPDATE resources SET type_version = (SELECT version FROM types t WHERE t.type_name = resources.type_name ORDER BY seq DESC LIMIT 1);
  CREATE INDEX resources_by_version ON resources (type_name, type_version);
  `,
  // Additional identifiers: each value unique within its type, and resolvable to the resource holding it.
  `
  CREATE TABLE resource_identifiers (
    type_name  TEXT NOT NULL,
    name       TEXT NOT NULL,
    value      TEXT NOT NULL,
    identifier TEXT NOT NULL,
    PRIMARY KEY (type_name, name, value)
  ) WITHOUT ROWID;
  CREATE INDEX resource_identifiers_of ON resource_identifiers (type_name, identifier);
  `,
  // A claim within a type's share asks each type for its oldest due operations: they are found without
  // walking another type's backlog.
  `
  CREATE INDEX operations_active_by_type ON operations (type_name, seq) WHERE status IN ${ACTIVE_SQL};
  `,
  // What reads observe of a resource beside its record (a provider's NotFound, and since when).
  `
  ALTER TABLE resources ADD COLUMN observed_status TEXT;
  ALTER TABLE resources ADD COLUMN observed_since TEXT;
  `,
  // Resources counted per type version in a row each, kept by triggers, instead of an index on
  // (type_name, type_version): that index took a leaf page at a random place per create (a quarter of
  // a create's WAL bytes); the counts are one page that a group commit writes once. A resource written
  // with no version counts under ''.
  `
  CREATE TABLE resource_counts (
    type_name    TEXT NOT NULL,
    type_version TEXT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (type_name, type_version)
  ) WITHOUT ROWID;
  INSERT INTO resource_counts (type_name, type_version, count)
    SELECT type_name, COALESCE(type_version, ''), COUNT(*) FROM resources GROUP BY 1, 2;
  CREATE TRIGGER resources_count_insert AFTER INSERT ON resources BEGIN
    INSERT INTO resource_counts (type_name, type_version, count) VALUES (NEW.type_name, COALESCE(NEW.type_version, ''), 1)
      ON CONFLICT (type_name, type_version) DO UPDATE SET count = count + 1;
  END;
  CREATE TRIGGER resources_count_delete AFTER DELETE ON resources BEGIN
    UPDATE resource_counts SET count = count - 1
      WHERE type_name = OLD.type_name AND type_version = COALESCE(OLD.type_version, '');
  END;
  CREATE TRIGGER resources_count_version AFTER UPDATE OF type_version ON resources
    WHEN OLD.type_version IS NOT NEW.type_version BEGIN
    UPDATE resource_counts SET count = count - 1
      WHERE type_name = OLD.type_name AND type_version = COALESCE(OLD.type_version, '');
    INSERT INTO resource_counts (type_name, type_version, count) VALUES (NEW.type_name, COALESCE(NEW.type_version, ''), 1)
      ON CONFLICT (type_name, type_version) DO UPDATE SET count = count + 1;
  END;
  DROP INDEX resources_by_version;
  `,
  // The audit trail (serve --audit-store): one chained record a row, found by time, type and token.
  `
  CREATE TABLE audit_records (
    sequence   INTEGER PRIMARY KEY,
    hash       TEXT NOT NULL,
    time       TEXT NOT NULL,
    verb       TEXT NOT NULL,
    type_name  TEXT,
    token_id   TEXT,
    code       INTEGER NOT NULL,
    error_code TEXT,
    record     TEXT NOT NULL
  );
  CREATE INDEX audit_records_time ON audit_records (time);
  CREATE INDEX audit_records_type ON audit_records (type_name, sequence) WHERE type_name IS NOT NULL;
  CREATE INDEX audit_records_token ON audit_records (token_id, sequence) WHERE token_id IS NOT NULL;
  `,
  // What admission policies and hooks warned of when an operation began (its events carry them).
  `
  ALTER TABLE operations ADD COLUMN warnings_json TEXT;
  `,
  // Who asked for an operation (an API token's id): its end is recorded as theirs in the audit trail.
  `
  ALTER TABLE operations ADD COLUMN requested_by TEXT;
  `,
  // 14–16: empty — numbers once set aside for work that turned out to need none. They stay empty: a
  // store already past them would never run anything put there later (append only).
  ...RESERVED(3),
  // 17: the change log (watch), the same in both stores. An operation's version is its seq while it
  // has not changed since it began (a record-backed create writes nothing more than before); each
  // later change (progress, the end of an asynchronous operation) takes the next version into
  // change_version, found through a partial index that only those rows enter, at its right edge. seq
  // and change_version share one counter, which the horizon (the latest version expiry removed)
  // keeps from ever going back.
  changeLogMigration('INTEGER'),
  // 18: a claim within a caller's share (src/fairness) asks each caller for its oldest due operations,
  // found without walking another caller's backlog.
  `
  CREATE INDEX operations_active_by_requester ON operations (requested_by, seq)
    WHERE status IN ${ACTIVE_SQL} AND requested_by IS NOT NULL;
  `,
  // 19: kv as a rowid table, its stamp before its value. Without a rowid, a row is kept in its key's
  // B-tree, where more than about 1 KB of it spills onto overflow pages: a stack's record (2 KB) was
  // read through them for its stamp alone (the stamp came after the value), and rewritten across them
  // (a stamp read 88 µs, not 28; a 2 KB update 546 µs, not 215, measured with better-sqlite3 here).
  `
  CREATE TABLE kv_rows (
    namespace  TEXT NOT NULL,
    key        TEXT NOT NULL,
    written_by TEXT NOT NULL,
    value_json TEXT NOT NULL
  );
  INSERT INTO kv_rows (namespace, key, written_by, value_json)
    SELECT namespace, key, written_by, value_json FROM kv ORDER BY namespace, key;
  DROP TABLE kv;
  ALTER TABLE kv_rows RENAME TO kv;
  CREATE UNIQUE INDEX kv_by_key ON kv (namespace, key);
  `,
  // 20: client tokens indexed in batches (client-tokens.ts), not by each create: a token's index entry
  // sits at a random place, so each create wrote a page of the index of its own (4 KiB to the WAL and
  // again to the database: a create with a token wrote 21 KiB, one without 12). A token whose batch is
  // not yet indexed is found in memory, rebuilt at start from the operations after the watermark.
  `
  CREATE TABLE client_token_index (
    client_token TEXT PRIMARY KEY,
    seq          INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO client_token_index (client_token, seq)
    SELECT client_token, seq FROM operations WHERE client_token IS NOT NULL ORDER BY client_token;
  CREATE TABLE client_token_watermark (seq INTEGER NOT NULL);
  INSERT INTO client_token_watermark (seq) SELECT COALESCE(MAX(seq), 0) FROM operations;
  DROP INDEX operations_client_token;
  `,
  // Resource counts kept by each connection's own triggers, in memory, and applied at most once a
  // second (resource-counts.ts): the triggers of migration 10 wrote the counts' page in every group
  // commit. The holder is the connection holding changes not applied yet; one found at open means
  // the counts are recounted from the resources.
  `
  DROP TRIGGER resources_count_insert;
  DROP TRIGGER resources_count_delete;
  DROP TRIGGER resources_count_version;
  CREATE TABLE resource_counts_holder (holder TEXT);
  INSERT INTO resource_counts_holder (holder) VALUES (NULL);
  `,
  // The partial indexes of active operations, their condition written as equalities (ACTIVE_WHERE):
  // with an IN list of three statuses, SQLite built a table of them for each index on every insert and
  // update of an operation. Queries repeat the same text, so the indexes still serve them.
  `
  DROP INDEX operations_one_active;
  CREATE UNIQUE INDEX operations_one_active ON operations (type_name, identifier)
    WHERE ${ACTIVE_WHERE} AND identifier IS NOT NULL;
  DROP INDEX operations_active;
  CREATE INDEX operations_active ON operations (seq) WHERE ${ACTIVE_WHERE};
  DROP INDEX operations_active_by_type;
  CREATE INDEX operations_active_by_type ON operations (type_name, seq) WHERE ${ACTIVE_WHERE};
  DROP INDEX operations_active_by_requester;
  CREATE INDEX operations_active_by_requester ON operations (requested_by, seq)
    WHERE ${ACTIVE_WHERE} AND requested_by IS NOT NULL;
  `,
];

/** Bring the schema of `db` up to date. Throws if the file was written by a newer Typeplane. */
export function migrate(db: Database.Database): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  if (version() > MIGRATIONS.length) {
    throw new Error(
      `The store schema is version ${version()}, newer than this Typeplane knows (${MIGRATIONS.length}): upgrade Typeplane.`,
    );
  }
  const step = db.transaction((index: number) => {
    // Another process may have run it between our read and our lock.
    if (version() !== index) return;
    db.exec(MIGRATIONS[index] ?? '');
    db.pragma(`user_version = ${index + 1}`);
  });
  for (let index = version(); index < MIGRATIONS.length; index = version()) step.immediate(index);
}
