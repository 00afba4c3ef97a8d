/**
 * The baseline for bench/api-postgres.ts (not a test, not part of Typeplane): the least a server
 * answering the same API shape over PostgreSQL can do — fastify + `pg`, one INSERT per POST and one
 * SELECT per GET, each a named (prepared) statement on a pool of as many connections as Typeplane's
 * store opens (10). No engine, no operations, no validation. Same table as bench/bare-server.ts.
 *
 *   node --import tsx bench/bare-pg-server.ts --url postgres://user@127.0.0.1:5432/db [--port 0] [--host 127.0.0.1]
 *
 * Prints `listening on http://host:port` on stdout once ready; SIGTERM/SIGINT close it.
 */
import pg from 'pg';
import { arg, serveBare } from './bare-api.js';

const pool = new pg.Pool({ connectionString: arg('url'), max: 10 });
pool.on('error', () => undefined);
// Keys in the "C" collation, as Typeplane's store makes them: the comparison is of engines, not collations.
await pool.query(`CREATE TABLE IF NOT EXISTS resources (
  type_name       text COLLATE "C" NOT NULL,
  identifier      text COLLATE "C" NOT NULL,
  properties_json text NOT NULL,
  client_token    text,
  created_at      text NOT NULL,
  PRIMARY KEY (type_name, identifier)
)`);
const INSERT = {
  name: 'bare_insert',
  text: 'INSERT INTO resources (type_name, identifier, properties_json, client_token, created_at) VALUES ($1, $2, $3, $4, $5)',
};
const SELECT = {
  name: 'bare_select',
  text: 'SELECT properties_json FROM resources WHERE type_name = $1 AND identifier = $2',
};

await serveBare({
  async insert(typeName, identifier, propertiesJson, clientToken, createdAt) {
    try {
      await pool.query({ ...INSERT, values: [typeName, identifier, propertiesJson, clientToken, createdAt] });
      return true;
    } catch (e) {
      if ((e as { code?: string }).code === '23505') return false;
      throw e;
    }
  },
  async select(typeName, identifier) {
    const { rows } = await pool.query<{ properties_json: string }>({
      ...SELECT,
      values: [typeName, identifier],
    });
    return rows[0]?.properties_json;
  },
  close: () => pool.end(),
});
