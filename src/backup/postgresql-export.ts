/**
 * @module A PostgreSQL store's snapshot: every table of its schema, read in one REPEATABLE READ,
 * READ ONLY transaction (one consistent state, as `pg_dump` reads it; writers are not held up), and
 * streamed as it is read through a cursor, a batch at a time.
 *
 * Tables and columns are read from the catalogue rather than listed here, so a table a later
 * migration adds is in every backup without a change here. Values travel as PostgreSQL's own text
 * form of them, which reads back into the same column type unchanged.
 */
import type pg from 'pg';
import { encodeLines, SCHEMA_VERSION_TABLE } from './postgresql-lines.js';
import type { Snapshot } from './snapshot.js';

/** About this much data per FETCH, whatever the size of a table's rows. */
const BATCH_BYTES = 256 * 1024;
const MAX_BATCH_ROWS = 1000;
const CURSOR = 'typeplane_backup';

/** A snapshot of the store in `schema` of the database at `url`: its transaction stays open until released. */
export async function snapshotPostgres(url: string, schema: string): Promise<Snapshot> {
  const { default: driver } = await import('pg');
  const client = new driver.Client({ connectionString: url, application_name: 'typeplane backup' });
  // A lost connection fails the query waiting on it; the event itself must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const name = (relation: string) =>
      `${driver.escapeIdentifier(schema)}.${driver.escapeIdentifier(relation)}`;
    // The transaction's first statement: the snapshot every later one reads is taken here.
    const version = await client.query<{ version: number }>(
      `SELECT version FROM ${name(SCHEMA_VERSION_TABLE)}`,
    );
    const schemaVersion = version.rows[0]?.version;
    if (schemaVersion === undefined) throw new Error(`the schema ${schema} has no schema version`);
    return { schemaVersion, payload: rows(client, driver, schema), release };
  } catch (error) {
    await release();
    throw error;
  }
}

async function* rows(client: pg.Client, driver: typeof pg, schema: string): AsyncGenerator<Buffer> {
  const name = (relation: string) =>
    `${driver.escapeIdentifier(schema)}.${driver.escapeIdentifier(relation)}`;
  const tables = await client.query<{ oid: number; relname: string }>(
    `SELECT c.oid::int AS oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> $2 ORDER BY c.relname`,
    [schema, SCHEMA_VERSION_TABLE],
  );
  for (const table of tables.rows) {
    // Generated columns are computed again on insert: they cannot be written.
    const columns = (
      await client.query<{ attname: string }>(
        `SELECT attname FROM pg_attribute
          WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
        [table.oid],
      )
    ).rows.map((c) => c.attname);
    yield encodeLines([{ table: table.relname, columns }]);
    // Each row as its JSON line, made by the database: the server only passes the text on.
    const values = columns.map((c) => `${driver.escapeIdentifier(c)}::text`).join(', ');
    await client.query(
      `DECLARE ${CURSOR} NO SCROLL CURSOR FOR SELECT array_to_json(ARRAY[${values}])::text FROM ${name(table.relname)}`,
    );
    let batch = 100;
    for (;;) {
      const fetched = await client.query<[string]>({
        text: `FETCH ${batch} FROM ${CURSOR}`,
        rowMode: 'array',
      });
      if (fetched.rows.length === 0) break;
      const chunk = Buffer.from(`${fetched.rows.map((row) => row[0]).join('\n')}\n`);
      yield chunk;
      batch = Math.max(
        1,
        Math.min(MAX_BATCH_ROWS, Math.floor((BATCH_BYTES * fetched.rows.length) / chunk.length)),
      );
    }
    await client.query(`CLOSE ${CURSOR}`);
  }
  // Read last: a sequence is not rolled back nor held to the snapshot, so where it stands now is at
  // or past every value the rows above hold.
  const sequences = await client.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'S' ORDER BY c.relname`,
    [schema],
  );
  for (const { relname } of sequences.rows) {
    const at = await client.query<{ lastValue: string; isCalled: boolean }>(
      `SELECT last_value::text AS "lastValue", is_called AS "isCalled" FROM ${name(relname)}`,
    );
    const { lastValue, isCalled } = at.rows[0]!;
    yield encodeLines([{ sequence: relname, lastValue, isCalled }]);
  }
  await client.query('COMMIT');
}
