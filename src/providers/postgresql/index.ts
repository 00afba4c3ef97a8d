/**
 * @module The built-in PostgreSQL provider: a real database with its own login role (same name, the
 * database's owner), on the server named by the provider's `url`. It serves two types with one
 * behaviour: `Typeplane::PostgreSQL::Database` (resource schema) and `Typeplane.Data/postgresDatabases`
 * (manifest).
 *
 * - Size is the connection limit of the database and of its role (S 10, M 50, L 200, XL 1000); a read
 *   derives it back from the database's limit, so it shows the server's truth.
 * - What the provider manages is marked with a comment on the database (and on its role):
 *   `typeplane:managed "<type>" "<scope>" {"token":…,"tags":…}`. `list` only shows databases marked
 *   for its type and scope, and read/update/delete treat anything else as not there. The token is the
 *   creating request's, so a create re-invoked after a crash recognises its own work (the role's
 *   marker is written in the same transaction as the role, so even a database whose own marker was
 *   never written is recognised by its owner).
 * - Names reach SQL only after the type's name pattern has accepted them, and then only quoted
 *   (`escapeIdentifier`); every other value is a bound parameter or an escaped literal.
 * - Passwords are sent as SCRAM-SHA-256 secrets computed here (as psql's `\password` does), so the
 *   plain text is not in any statement the server could log; never in a model nor a message.
 */
import { createHash, createHmac, pbkdf2, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Model } from '../../model/index.js';
import type { ErrorCode } from '../../errors.js';
import { RESOURCE_NAME_PATTERN } from '../../schema/manifest/names.js';
import { defineProvider, progress, type ProviderDefinition } from '../sdk.js';
import { HandlerError, type HandlerEvent, type HandlerRequest } from '../../handler/index.js';
import { saslprep } from './saslprep.js';

export const DATABASE_TYPE = 'Typeplane::PostgreSQL::Database';
export const MANIFEST_TYPE = 'Typeplane.Data/postgresDatabases';

export const CONNECTION_LIMITS = { S: 10, M: 50, L: 200, XL: 1000 } as const;
export type Size = keyof typeof CONNECTION_LIMITS;
const SIZES = Object.keys(CONNECTION_LIMITS) as Size[];

/** The `Name` pattern of examples/typeplane-postgresql-database.json (a test keeps them equal). */
export const DATABASE_NAME_PATTERN = '^[a-z_][a-z0-9_]{0,62}$';
/** The `name` pattern every manifest type gets. */
export const MANIFEST_NAME_PATTERN = RESOURCE_NAME_PATTERN;

export const MARKER_PREFIX = 'typeplane:managed ';
const SCOPE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
const DEFAULT_MAX_RESULTS = 100;
const MAX_RESULTS = 1000;
const SCRAM_ITERATIONS = 4096;

export interface PostgresProviderConfig {
  /** `postgres://user[:password]@host[:port]/database`: a role that may create databases and roles. */
  url?: string;
  /**
   * Set when several Typeplane installations share one server: each then sees (lists, reads,
   * updates, deletes) only the databases it created under its scope.
   */
  scope?: string;
}

/** The provider's view of a resource, whichever type it comes as. */
interface Database {
  name: string;
  size: Size;
  password?: string;
  tags?: unknown;
}

interface Binding {
  host: string;
  port: number;
}

interface Marker {
  type: string;
  scope: string;
  token: string;
  tags?: unknown;
}

/** One type's property names and name rule, mapped to and from the neutral view. */
interface Shape {
  pattern: RegExp;
  rule: string;
  read(model: Model): Database;
  write(db: Database, binding: Binding): Model;
}

const asSize = (value: unknown): Size =>
  typeof value === 'string' && (SIZES as string[]).includes(value) ? (value as Size) : 'S';

const SHAPES: Record<string, Shape> = {
  [DATABASE_TYPE]: {
    pattern: new RegExp(DATABASE_NAME_PATTERN),
    rule: "lower-case letters, digits and '_', not starting with a digit, at most 63",
    read: (m) => ({
      name: typeof m.Name === 'string' ? m.Name : '',
      size: asSize(m.Size),
      ...(typeof m.Password === 'string' ? { password: m.Password } : {}),
      ...(m.Tags !== undefined ? { tags: m.Tags } : {}),
    }),
    write: (db, b) => ({
      Name: db.name,
      Size: db.size,
      Binding: { Host: b.host, Port: b.port, Username: db.name },
      ...(db.tags !== undefined ? { Tags: db.tags } : {}),
    }),
  },
  [MANIFEST_TYPE]: {
    pattern: new RegExp(MANIFEST_NAME_PATTERN),
    rule: "letters, digits and '-', starting with a letter, at most 63",
    read: (m) => ({
      name: typeof m.name === 'string' ? m.name : '',
      size: asSize(m.size),
      ...(typeof m.password === 'string' ? { password: m.password } : {}),
    }),
    write: (db, b) => ({
      name: db.name,
      size: db.size,
      status: { binding: { host: b.host, port: b.port, username: db.name } },
    }),
  },
};

interface Connection {
  pool: pg.Pool;
  binding: Binding;
  scope: string;
  /** The password in the url, kept out of messages. */
  secret?: string;
}

type Settings =
  | { ok: true; url: string; binding: Binding; scope: string; secret?: string }
  | { ok: false; problem: string };

export function createPostgresProvider(config: PostgresProviderConfig = {}): ProviderDefinition {
  let settings = readSettings(config);
  let pool: pg.Pool | undefined;

  const connect = (): Connection => {
    if (!settings.ok) throw new HandlerError('InvalidTypeConfiguration', settings.problem);
    if (!pool) {
      pool = new pg.Pool({
        connectionString: settings.url,
        max: 4,
        connectionTimeoutMillis: 5000,
        idleTimeoutMillis: 10_000,
        application_name: 'typeplane',
      });
      // An idle connection the server drops must not take the process down; the next query reconnects.
      pool.on('error', () => undefined);
    }
    return {
      pool,
      binding: settings.binding,
      scope: settings.scope,
      ...(settings.secret ? { secret: settings.secret } : {}),
    };
  };

  const endPool = async () => {
    const old = pool;
    pool = undefined;
    await old?.end();
  };

  /** Run a handler: refusals and server errors become FAILED events with contract codes. */
  const handle = async (
    request: HandlerRequest,
    work: (c: Connection, shape: Shape, wanted: Database) => Promise<HandlerEvent>,
  ): Promise<HandlerEvent> => {
    const secrets: string[] = [];
    for (const model of [request.desiredState, request.previousState]) {
      for (const key of ['Password', 'password']) {
        const value = model?.[key];
        if (typeof value === 'string' && value !== '') secrets.push(value);
      }
    }
    try {
      const c = connect();
      if (c.secret) secrets.push(c.secret);
      const shape = SHAPES[request.typeName];
      if (!shape)
        throw new HandlerError(
          'InvalidTypeConfiguration',
          `the postgresql provider does not serve ${request.typeName} (it serves ${Object.keys(SHAPES).join(', ')})`,
        );
      return await work(c, shape, shape.read(request.desiredState));
    } catch (e) {
      const code = e instanceof HandlerError ? e.code : errorCode(e);
      const message = e instanceof HandlerError ? e.message : `postgresql: ${describeError(e)}`;
      if (!(e instanceof HandlerError))
        request.logger.warn('postgresql request failed', { errorCode: code, sqlState: sqlState(e) });
      return progress.failed(code, scrub(message, secrets));
    }
  };

  const checkedName = (shape: Shape, name: string): string => {
    if (!shape.pattern.test(name))
      throw new HandlerError(
        'InvalidRequest',
        `${JSON.stringify(name.slice(0, 80))} is not a database name this type allows: ${shape.rule}`,
      );
    return name;
  };

  const describe = (typeName: string, c: Connection, name: string, limit: number, tags: unknown) =>
    SHAPES[typeName]!.write(
      { name, size: sizeForLimit(limit), ...(tags !== undefined ? { tags } : {}) },
      c.binding,
    );

  return defineProvider({
    name: 'postgresql',
    types: [DATABASE_TYPE, MANIFEST_TYPE],
    schemas: [
      fileURLToPath(new URL('../../../examples/typeplane-postgresql-database.json', import.meta.url)),
      fileURLToPath(new URL('../../../examples/postgresDatabases.yaml', import.meta.url)),
    ],
    async configure(section) {
      // A bad configuration is reported by every handler (InvalidTypeConfiguration), not by a crash.
      settings = readSettings({ url: section.url ?? config.url, scope: section.scope ?? config.scope });
      await endPool();
    },
    close: endPool,

    create: (request) =>
      handle(request, async (c, shape, wanted) => {
        const name = checkedName(shape, wanted.name);
        const q = pg.escapeIdentifier(name);
        const limit = CONNECTION_LIMITS[wanted.size];
        const marker: Marker = {
          type: request.typeName,
          scope: c.scope,
          token: request.clientRequestToken,
          ...(wanted.tags !== undefined ? { tags: wanted.tags } : {}),
        };
        const existing = await findDatabase(c.pool, name);
        if (existing) {
          const mark = parseMarker(existing.comment);
          const ours = (m: Marker | undefined) =>
            m?.token === request.clientRequestToken && m.type === request.typeName && m.scope === c.scope;
          // Our own database, from an invocation that did not get to report back.
          if (ours(mark))
            return progress.success(describe(request.typeName, c, name, existing.datconnlimit, mark?.tags));
          // … or one that crashed before marking the database: its role carries our token.
          if (!mark && existing.owner === name && ours(parseMarker(existing.ownerComment))) {
            await setComment(c.pool, 'DATABASE', name, marker);
            return progress.success(describe(request.typeName, c, name, existing.datconnlimit, wanted.tags));
          }
          return progress.failed('AlreadyExists', `database ${name} already exists`);
        }

        const role = await findRole(c.pool, name);
        const roleMark = parseMarker(role?.comment ?? null);
        // A role of the same name that Typeplane did not make (a user, an application) is never taken over.
        if (role && !(roleMark && roleMark.type === request.typeName && roleMark.scope === c.scope))
          return progress.failed(
            'AlreadyExists',
            `a role named ${name} already exists and is not managed by Typeplane: the database's login role would take it over`,
          );
        const password = await passwordClause(wanted.password);
        // The role and its marker in one transaction: either both exist or neither does.
        await transaction(c.pool, async (client) => {
          // A role left by an earlier attempt whose database was never made: brought up to date.
          await client.query(
            `${role ? 'ALTER' : 'CREATE'} ROLE ${q} LOGIN CONNECTION LIMIT ${limit} PASSWORD ${password}`,
          );
          await setComment(client, 'ROLE', name, {
            type: request.typeName,
            scope: c.scope,
            token: request.clientRequestToken,
          });
        });
        try {
          await c.pool.query(`CREATE DATABASE ${q} OWNER ${q} CONNECTION LIMIT ${limit}`);
        } catch (e) {
          // The role was made for this database alone. (Should a database of that name have appeared
          // meanwhile with this role as its owner, the server refuses to drop the role.)
          await c.pool.query(`DROP ROLE IF EXISTS ${q}`).catch(() => undefined);
          throw e;
        }
        await setComment(c.pool, 'DATABASE', name, marker);
        request.logger.info('created database', { name, size: wanted.size });
        return progress.success(describe(request.typeName, c, name, limit, wanted.tags));
      }),

    read: (request) =>
      handle(request, async (c, shape, wanted) => {
        const name = checkedName(shape, wanted.name);
        const { row, marker } = await managed(c, request.typeName, name);
        return progress.success(describe(request.typeName, c, name, row.datconnlimit, marker.tags));
      }),

    update: (request) =>
      handle(request, async (c, shape, wanted) => {
        const name = checkedName(shape, wanted.name);
        const before = request.previousState ? shape.read(request.previousState) : undefined;
        // The identifier is create-only: the engine refuses a change; never rename, whatever we are sent.
        if (before && before.name !== '' && before.name !== name)
          throw new HandlerError('NotUpdatable', 'the database name cannot change after creation');
        const { row, marker } = await managed(c, request.typeName, name);
        const q = pg.escapeIdentifier(name);
        const limit = CONNECTION_LIMITS[wanted.size];
        const passwordChanged = before === undefined || before.password !== wanted.password;
        const password = passwordChanged ? await passwordClause(wanted.password) : undefined;
        const next: Marker = { ...marker };
        if (wanted.tags !== undefined) next.tags = wanted.tags;
        else delete next.tags;
        await transaction(c.pool, async (client) => {
          await client.query(`ALTER DATABASE ${q} CONNECTION LIMIT ${limit}`);
          const role = await findRole(client, name);
          if (role) {
            await client.query(
              `ALTER ROLE ${q} CONNECTION LIMIT ${limit}${password ? ` PASSWORD ${password}` : ''}`,
            );
          } else {
            // The role was dropped by hand: made again, so the binding holds.
            await client.query(
              `CREATE ROLE ${q} LOGIN CONNECTION LIMIT ${limit} PASSWORD ${password ?? (await passwordClause(wanted.password))}`,
            );
            await setComment(client, 'ROLE', name, {
              type: marker.type,
              scope: marker.scope,
              token: marker.token,
            });
          }
          if (row.owner !== name) await client.query(`ALTER DATABASE ${q} OWNER TO ${q}`);
          await setComment(client, 'DATABASE', name, next);
        });
        return progress.success(describe(request.typeName, c, name, limit, next.tags));
      }),

    delete: (request) =>
      handle(request, async (c, shape, wanted) => {
        const name = checkedName(shape, wanted.name);
        const q = pg.escapeIdentifier(name);
        const row = await findDatabase(c.pool, name);
        const marker = parseMarker(row?.comment ?? null);
        if (!row || !marker || marker.type !== request.typeName || marker.scope !== c.scope) {
          // A managed role whose database is gone (dropped by hand, or a delete cut short) goes too.
          if (!row) await dropManagedRole(c, request.typeName, name);
          return progress.failed('NotFound', `database ${name} does not exist`);
        }
        // Ends the sessions connected to it (PostgreSQL 13+), then the role's sessions elsewhere.
        await c.pool.query(`DROP DATABASE ${q} WITH (FORCE)`);
        await dropManagedRole(c, request.typeName, name);
        request.logger.info('dropped database', { name });
        return progress.success();
      }),

    list: (request) =>
      handle(request, async (c) => {
        const limit = Math.min(
          Math.max(Math.trunc(request.maxResults ?? DEFAULT_MAX_RESULTS), 1),
          MAX_RESULTS,
        );
        const after = request.nextToken === undefined ? undefined : decodeToken(request.nextToken);
        const prefix = markerHeader(request.typeName, c.scope);
        const { rows } = await c.pool.query<{ datname: string; datconnlimit: number; comment: string }>(
          `SELECT d.datname, d.datconnlimit, s.description AS comment
             FROM pg_database d
             JOIN pg_shdescription s ON s.objoid = d.oid AND s.classoid = 'pg_database'::regclass
            WHERE s.description LIKE $1 ESCAPE '\\' AND ($2::name IS NULL OR d.datname > $2::name)
            ORDER BY d.datname
            LIMIT $3`,
          [`${likeEscape(prefix)}%`, after ?? null, limit + 1],
        );
        const page = rows.slice(0, limit);
        const models = page.flatMap((r) => {
          const marker = parseMarker(r.comment);
          return marker ? [describe(request.typeName, c, r.datname, r.datconnlimit, marker.tags)] : [];
        });
        const last = page.at(-1)?.datname;
        return progress.list(models, rows.length > limit && last !== undefined ? encodeToken(last) : null);
      }),
  });

  /** The database if this provider manages it for the type; NotFound otherwise. */
  async function managed(c: Connection, typeName: string, name: string) {
    const row = await findDatabase(c.pool, name);
    const marker = parseMarker(row?.comment ?? null);
    if (!row || !marker || marker.type !== typeName || marker.scope !== c.scope)
      throw new HandlerError('NotFound', `database ${name} does not exist`);
    return { row, marker };
  }

  async function dropManagedRole(c: Connection, typeName: string, name: string): Promise<void> {
    const role = await findRole(c.pool, name);
    const marker = parseMarker(role?.comment ?? null);
    if (!role || !marker || marker.type !== typeName || marker.scope !== c.scope) return;
    const q = pg.escapeIdentifier(name);
    await c.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()`,
      [name],
    );
    await c.pool.query(`DROP ROLE IF EXISTS ${q}`);
  }
}

// ---- Configuration ---------------------------------------------------------------------------

function readSettings(config: { url?: unknown; scope?: unknown }): Settings {
  const { url, scope } = config;
  if (url === undefined || url === '')
    return {
      ok: false,
      problem:
        'the postgresql provider has no server: give it a url (providers[].config.url: postgres://user@host:5432/postgres)',
    };
  if (typeof url !== 'string') return { ok: false, problem: 'the postgresql provider url must be a string' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {
      ok: false,
      problem: 'the postgresql provider url is not a URL: expected postgres://user@host:port/database',
    };
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    return {
      ok: false,
      problem: `the postgresql provider url must start with postgres:// or postgresql://, not ${parsed.protocol}//`,
    };
  const port = Number(parsed.port || parsed.searchParams.get('port') || 5432);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { ok: false, problem: 'the postgresql provider url names an invalid port' };
  if (scope !== undefined && (typeof scope !== 'string' || !SCOPE_PATTERN.test(scope)))
    return {
      ok: false,
      problem: "the postgresql provider scope must be 1 to 64 letters, digits, '_', '.', ':' or '-'",
    };
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  const secret = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  return {
    ok: true,
    url,
    binding: { host, port },
    scope: scope ?? '',
    ...(secret ? { secret } : {}),
  };
}

// ---- Catalogue queries -----------------------------------------------------------------------

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

interface DatabaseRow {
  datname: string;
  datconnlimit: number;
  owner: string;
  comment: string | null;
  ownerComment: string | null;
}

async function findDatabase(db: Queryable, name: string): Promise<DatabaseRow | undefined> {
  const { rows } = await db.query<DatabaseRow>(
    `SELECT d.datname, d.datconnlimit, r.rolname AS owner,
            shobj_description(d.oid, 'pg_database') AS comment,
            shobj_description(r.oid, 'pg_authid') AS "ownerComment"
       FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba
      WHERE d.datname = $1`,
    [name],
  );
  return rows[0];
}

async function findRole(db: Queryable, name: string): Promise<{ comment: string | null } | undefined> {
  const { rows } = await db.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_authid') AS comment FROM pg_roles WHERE rolname = $1`,
    [name],
  );
  return rows[0];
}

async function transaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

// ---- Markers ---------------------------------------------------------------------------------

/** `typeplane:managed "<type>" "<scope>" ` – what list matches with LIKE. */
function markerHeader(type: string, scope: string): string {
  return `${MARKER_PREFIX}${JSON.stringify(type)} ${JSON.stringify(scope)} `;
}

function markerText(marker: Marker): string {
  const body = { token: marker.token, ...(marker.tags !== undefined ? { tags: marker.tags } : {}) };
  return markerHeader(marker.type, marker.scope) + JSON.stringify(body);
}

async function setComment(db: Queryable, kind: 'DATABASE' | 'ROLE', name: string, marker: Marker) {
  await db.query(
    `COMMENT ON ${kind} ${pg.escapeIdentifier(name)} IS ${pg.escapeLiteral(markerText(marker))}`,
  );
}

const MARKER_SYNTAX = /^typeplane:managed ("(?:[^"\\]|\\.)*") ("(?:[^"\\]|\\.)*") (\{.*\})$/s;

export function parseMarker(comment: string | null): Marker | undefined {
  const match = comment === null ? null : MARKER_SYNTAX.exec(comment);
  if (!match) return undefined;
  try {
    const type = JSON.parse(match[1]!) as unknown;
    const scope = JSON.parse(match[2]!) as unknown;
    const body = JSON.parse(match[3]!) as { token?: unknown; tags?: unknown };
    if (typeof type !== 'string' || typeof scope !== 'string' || typeof body.token !== 'string')
      return undefined;
    return { type, scope, token: body.token, ...(body.tags !== undefined ? { tags: body.tags } : {}) };
  } catch {
    return undefined;
  }
}

function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

// ---- Sizes, pages, passwords -----------------------------------------------------------------

/** The size of a connection limit: exact, else the smallest that allows as many (-1, unlimited: XL). */
export function sizeForLimit(limit: number): Size {
  if (limit < 0) return 'XL';
  return SIZES.find((size) => CONNECTION_LIMITS[size] >= limit) ?? 'XL';
}

function encodeToken(after: string): string {
  return Buffer.from(JSON.stringify({ after }), 'utf8').toString('base64url');
}

function decodeToken(token: string): string {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof value.after === 'string' && value.after !== '') return value.after;
  } catch {
    /* reported below */
  }
  throw new HandlerError('InvalidRequest', 'nextToken is not one this provider handed out');
}

const pbkdf2Async = promisify(pbkdf2);

/**
 * The PASSWORD clause's value: a SCRAM-SHA-256 secret (the server stores it as it is), or NULL for
 * no password. The password is SASLprep'd first, as the server would, so the plain text is never in
 * a statement the server could log, whatever characters it holds.
 */
async function passwordClause(password: string | undefined): Promise<string> {
  if (password === undefined || password === '') return 'NULL';
  // A refusal of the caller's value, not a server failure: PostgreSQL text cannot hold U+0000.
  if (password.includes('\u0000'))
    throw new HandlerError(
      'InvalidRequest',
      'the password contains U+0000 (NUL), which PostgreSQL cannot hold',
    );
  password = saslprep(password);
  const salt = randomBytes(16);
  const salted = await pbkdf2Async(password, salt, SCRAM_ITERATIONS, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return pg.escapeLiteral(
    `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`,
  );
}

// ---- Errors ----------------------------------------------------------------------------------

function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

export function errorCode(e: unknown): ErrorCode {
  const code = sqlState(e);
  switch (code) {
    case '42P04': // duplicate_database
    case '42710': // duplicate_object (a role)
      return 'AlreadyExists';
    case '3D000': // invalid_catalog_name
    case '42704': // undefined_object
      return 'NotFound';
    case '42501': // insufficient_privilege
      return 'AccessDenied';
    case '28P01': // invalid_password
    case '28000': // invalid_authorization_specification
      return 'InvalidCredentials';
    case '42939': // reserved_name (pg_*, public, none)
      return 'InvalidRequest';
    case '53300': // too_many_connections
      return 'Throttling';
    case '55006': // object_in_use
    case '2BP01': // dependent_objects_still_exist
      return 'ResourceConflict';
    case '57P01': // admin_shutdown
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now
      return 'NetworkFailure';
  }
  if (code?.startsWith('08') || (code !== undefined && NETWORK_ERRNOS.has(code))) return 'NetworkFailure';
  const message = (e as Error | null)?.message ?? '';
  if (
    /Connection terminated|timeout exceeded when trying to connect|connect(ion)? (refused|timed out)/i.test(
      message,
    )
  )
    return 'NetworkFailure';
  return 'GeneralServiceException';
}

/** The server's message and SQLSTATE; statements (which hold secrets) are never quoted. */
function describeError(e: unknown): string {
  const code = sqlState(e);
  const message = (e as Error | null)?.message || String(e);
  return `${message}${code ? ` (${code})` : ''}`;
}

function scrub(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}
