/**
 * @module A PostgreSQL backup written into a new or empty schema, in one transaction: the schema is
 * made as the backup's Typeplane made it (its migrations, up to the backup's schema version), its
 * rows inserted and its sequences set, and all of it is committed only once the whole backup has
 * come and its checksum holds. A refused or failed restore leaves the database as it found it.
 *
 * It holds the lock the store's migrations take, so a server started on the schema meanwhile waits
 * for the restore and then finds it whole; a later Typeplane migrates it further on its first start.
 */
import { StringDecoder } from 'node:string_decoder';
import type pg from 'pg';
import { MIGRATIONS } from '../store/postgresql/migrations.js';
import { BackupError } from './errors.js';
import type { BackupHeader } from './format.js';
import { SCHEMA_VERSION_TABLE, type RowLine, type SequenceLine, type TableLine } from './postgresql-lines.js';

/** PostgreSQL takes at most 65,535 parameters a statement; rows are inserted a batch at a time. */
const MAX_PARAMETERS = 60_000;
const BATCH_BYTES = 4 * 1024 * 1024;

export async function restorePostgres(
  url: string,
  schema: string,
  header: BackupHeader,
  payload: AsyncGenerator<Buffer>,
): Promise<void> {
  const { default: driver } = await import('pg');
  const client = new driver.Client({ connectionString: url, application_name: 'typeplane restore' });
  // A lost connection fails the query waiting on it; the event itself must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN');
    // The lock src/store/postgresql/migrations.ts takes to migrate this schema.
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `typeplane:migrate:${schema}`,
    ]);
    await createSchema(client, driver, schema, header.schemaVersion);
    await insertPayload(client, driver, schema, payload);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The schema, new or empty, with the tables of `version` migrations. */
async function createSchema(
  client: pg.Client,
  driver: typeof pg,
  schema: string,
  version: number,
): Promise<void> {
  const quoted = driver.escapeIdentifier(schema);
  const found = await client.query<{ oid: number }>(
    `SELECT oid::int AS oid FROM pg_namespace WHERE nspname = $1`,
    [schema],
  );
  const oid = found.rows[0]?.oid;
  if (oid === undefined) await client.query(`CREATE SCHEMA ${quoted}`);
  else {
    const held = await client.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relnamespace = $1 ORDER BY relname LIMIT 4`,
      [oid],
    );
    const names = held.rows.map((r) => r.relname);
    if (names.length > 0)
      throw new BackupError(
        'TargetNotEmpty',
        `the schema ${schema} is not empty (it holds ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}): restore into a new schema (--database-schema), or drop this one first`,
      );
  }
  await client.query(`CREATE TABLE ${quoted}.${SCHEMA_VERSION_TABLE} (version integer NOT NULL)`);
  await client.query(`INSERT INTO ${quoted}.${SCHEMA_VERSION_TABLE} VALUES ($1)`, [version]);
  await client.query(`SET LOCAL search_path TO ${quoted}`);
  for (const migration of MIGRATIONS.slice(0, version)) await client.query(migration);
}

/**
 * Inserts the payload's rows as its lines come. Should an insert fail, the rest of the payload is
 * still read: when the file is damaged past that point, that is what is said.
 */
async function insertPayload(
  client: pg.Client,
  driver: typeof pg,
  schema: string,
  payload: AsyncGenerator<Buffer>,
): Promise<void> {
  const name = (relation: string) =>
    `${driver.escapeIdentifier(schema)}.${driver.escapeIdentifier(relation)}`;
  const decoder = new StringDecoder('utf8');
  let table: TableLine | undefined;
  let rows: RowLine[] = [];
  let rowChars = 0;
  let lineNumber = 1; // the header's
  const flush = async () => {
    if (rows.length === 0 || !table) return;
    const width = table.columns.length;
    const values = rows.map(
      (_, r) => `(${table!.columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`,
    );
    await client.query(
      `INSERT INTO ${name(table.table)} (${table.columns.map((c) => driver.escapeIdentifier(c)).join(', ')})
        OVERRIDING SYSTEM VALUE VALUES ${values.join(', ')}`,
      rows.flat(),
    );
    rows = [];
    rowChars = 0;
  };
  const take = async (text: string) => {
    lineNumber++;
    const line = parseLine(text, lineNumber);
    if (Array.isArray(line)) {
      if (!table || line.length !== table.columns.length)
        throw damagedLine(
          lineNumber,
          table ? `${line.length} values for ${table.columns.length} columns` : 'a row before any table',
        );
      rows.push(line);
      rowChars += text.length;
      if ((rows.length + 1) * table.columns.length > MAX_PARAMETERS || rowChars >= BATCH_BYTES) await flush();
    } else if ('table' in line) {
      await flush();
      table = line;
    } else {
      await flush();
      await client.query(`SELECT setval($1::regclass, $2::bigint, $3::boolean)`, [
        name(line.sequence),
        line.lastValue,
        line.isCalled,
      ]);
    }
  };
  let pending = '';
  let failure: unknown;
  for (;;) {
    // Read by hand: a for-await loop would stop the payload, and its check, at the first failure.
    const next = await payload.next();
    if (next.done) break;
    if (failure !== undefined) continue;
    try {
      pending += decoder.write(next.value);
      let from = 0;
      for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', from)) {
        await take(pending.slice(from, end));
        from = end + 1;
      }
      pending = pending.slice(from);
    } catch (error) {
      failure = error;
    }
  }
  if (failure !== undefined) throw failure;
  if (pending + decoder.end() !== '') throw damagedLine(lineNumber + 1, 'it is not ended by a newline');
  await flush();
}

const damagedLine = (lineNumber: number, why: string) =>
  new BackupError('BackupDamaged', `the backup is damaged: line ${lineNumber}: ${why}`);

function parseLine(text: string, lineNumber: number): TableLine | RowLine | SequenceLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damagedLine(lineNumber, 'it is not JSON');
  }
  if (Array.isArray(value) && value.every((v) => v === null || typeof v === 'string'))
    return value as RowLine;
  const v = (value ?? {}) as Record<string, unknown>;
  if (
    typeof v.table === 'string' &&
    Array.isArray(v.columns) &&
    v.columns.length > 0 &&
    v.columns.every((c) => typeof c === 'string')
  )
    return { table: v.table, columns: v.columns as string[] };
  if (typeof v.sequence === 'string' && typeof v.lastValue === 'string' && typeof v.isCalled === 'boolean')
    return { sequence: v.sequence, lastValue: v.lastValue, isCalled: v.isCalled };
  throw damagedLine(lineNumber, 'it is neither a table, a row nor a sequence');
}
