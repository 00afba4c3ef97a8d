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
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { startCheckpointer, type Checkpointer } from '../src/store/sqlite/checkpointer.js';

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : fallback;
  if (value === undefined) {
    process.stderr.write(`bare-server: --${name} is required\n`);
    process.exit(2);
  }
  return value;
}

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

const app = Fastify();

app.post<{
  Params: { typeName: string };
  Body: { desiredState?: Record<string, unknown>; clientToken?: string };
}>('/v1/resources/:typeName', async (request, reply) => {
  const { typeName } = request.params;
  const desiredState = request.body?.desiredState;
  const identifier = desiredState?.Name;
  if (typeof identifier !== 'string')
    return reply.status(400).send({ code: 'InvalidRequest', message: 'desiredState.Name is required' });
  const now = new Date().toISOString();
  try {
    insert.run(typeName, identifier, JSON.stringify(desiredState), request.body.clientToken ?? null, now);
    committed();
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT'))
      return reply.status(409).send({ code: 'AlreadyExists', message: `${identifier} exists` });
    throw e;
  }
  return reply.status(202).send({
    progressEvent: {
      typeName,
      requestToken: randomUUID(),
      operation: 'CREATE',
      operationStatus: 'SUCCESS',
      eventTime: now,
      identifier,
      resourceModel: desiredState,
    },
  });
});

app.get<{ Params: { typeName: string; identifier: string } }>(
  '/v1/resources/:typeName/:identifier',
  async (request, reply) => {
    const { typeName, identifier } = request.params;
    const row = select.get(typeName, identifier);
    if (!row) return reply.status(404).send({ code: 'NotFound', message: `${identifier} does not exist` });
    return { typeName, identifier, properties: JSON.parse(row.properties_json) as unknown };
  },
);

await app.listen({ host: arg('host', '127.0.0.1'), port: Number(arg('port', '0')) });
const address = app.server.address();
if (typeof address !== 'object' || address === null) throw new Error('no address');
process.stdout.write(`listening on http://${address.address}:${address.port}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void app
    .close()
    .then(() => checkpointer?.stop())
    .finally(() => {
      db.close();
      process.exit(0);
    });
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
