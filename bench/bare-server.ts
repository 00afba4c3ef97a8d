/**
 * The baseline for bench/api.ts (not a test, not part of Typeplane): the least a server answering the
 * same API shape can do — fastify + better-sqlite3, one prepared INSERT per POST and one prepared
 * SELECT per GET. No engine, no operations, no validation. SQLite is tuned as Typeplane's store tunes
 * it (WAL, `synchronous = NORMAL`, `wal_autocheckpoint`, `journal_size_limit`, `cache_size`, and the
 * same background checkpoint thread once busy), so the ratios compare the engines, not the tuning.
 *
 *   node --import tsx bench/bare-server.ts --db /tmp/bare.db [--port 0] [--host 127.0.0.1]
 *
 * Prints `listening on http://host:port` on stdout once ready; SIGTERM/SIGINT close it.
 */
import Database from 'better-sqlite3';
import { startCheckpointer, type Checkpointer } from '../src/store/sqlite/checkpointer.js';
import { arg, serveBare } from './bare-api.js';

const path = arg('db');
const db = new Database(path);
// As src/store/sqlite/store.ts opens its file.
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 4000');
db.pragma('journal_size_limit = 67108864');
db.pragma('cache_size = -32768');
// As the store does, after 100 commits: checkpoints move to a thread with a connection of its own.
let commitsBeforeCheckpointer = 100;
let checkpointer: Checkpointer | undefined;
function committed(): void {
  if (commitsBeforeCheckpointer-- === 0) checkpointer = startCheckpointer(path);
}
db.exec(`CREATE TABLE IF NOT EXISTS resources (
  type_name       TEXT NOT NULL,
  identifier      TEXT NOT NULL,
  properties_json TEXT NOT NULL,
  client_token    TEXT,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (type_name, identifier)
) WITHOUT ROWID`);
const insert = db.prepare<[string, string, string, string | null, string]>(
  'INSERT INTO resources (type_name, identifier, properties_json, client_token, created_at) VALUES (?, ?, ?, ?, ?)',
);
const select = db.prepare<[string, string], { properties_json: string }>(
  'SELECT properties_json FROM resources WHERE type_name = ? AND identifier = ?',
);

await serveBare({
  insert(typeName, identifier, propertiesJson, clientToken, createdAt) {
    try {
      insert.run(typeName, identifier, propertiesJson, clientToken, createdAt);
    } catch (e) {
      if ((e as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) return false;
      throw e;
    }
    committed();
    return true;
  },
  select: (typeName, identifier) => select.get(typeName, identifier)?.properties_json,
  async close() {
    await checkpointer?.stop();
    db.close();
  },
});
