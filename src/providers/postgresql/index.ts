/**
 * @module The built-in PostgreSQL provider: a database with its own login role, on the server named
 * by the provider's `url`. It serves two types with one behaviour:
 * `Typeplane::PostgreSQL::Database` (resource schema) and `Typeplane.Data/postgresDatabases` (manifest).
 *
 * The size maps to the connection limit of the database and its role. What Typeplane manages is
 * marked with a comment on the database (`typeplane:{…}`), which also holds the creating request's
 * token (so a create re-invoked after a crash recognises its own database) and the tags. Names reach
 * SQL only quoted (`escapeIdentifier`), after the schema's pattern; passwords only as escaped literals
 * and never in a message.
 */
import pg from 'pg';
import type { Model } from '../../engine/types.js';
import type { ErrorCode } from '../../errors.js';
import { defineProvider, progress, type ProviderDefinition } from '../sdk.js';
import type { HandlerEvent, HandlerRequest } from '../types.js';

export const DATABASE_TYPE = 'Typeplane::PostgreSQL::Database';
export const MANIFEST_TYPE = 'Typeplane.Data/postgresDatabases';

export const CONNECTION_LIMITS = { S: 10, M: 50, L: 200, XL: 1000 } as const;
type Size = keyof typeof CONNECTION_LIMITS;
const MARKER = 'typeplane:';
const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;

/** The provider's view of a resource, whichever type it comes as. */
interface Database {
  name: string;
  size: Size;
  password?: string;
  tags?: unknown;
}

interface Marker {
  type: string;
  token: string;
  tags?: unknown;
}

/** The two types' property names, mapped to and from the neutral view. */
const SHAPES: Record<string, { read(model: Model): Database; write(db: Database, binding: Binding): Model }> =
  {
    [DATABASE_TYPE]: {
      read: (m) => ({
        name: String(m.Name),
        size: (m.Size as Size) ?? 'S',
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
      read: (m) => ({
        name: String(m.name),
        size: (m.size as Size) ?? 'S',
        ...(typeof m.password === 'string' ? { password: m.password } : {}),
      }),
      write: (db, b) => ({
        name: db.name,
        size: db.size,
        status: { binding: { host: b.host, port: b.port, username: db.name } },
      }),
    },
  };

interface Binding {
  host: string;
  port: number;
}

class Refused extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function createPostgresProvider(config: { url?: string } = {}): ProviderDefinition {
  let url = config.url;
  let pool: pg.Pool | undefined;

  const connect = (): { pool: pg.Pool; binding: Binding } => {
    if (!url)
      throw new Refused(
        'InvalidTypeConfiguration',
        'the postgresql provider has no server: set providers[].config.url',
      );
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Refused(
        'InvalidTypeConfiguration',
        'the postgresql provider url is not a URL (postgres://user@host:port/db)',
      );
    }
    pool ??= new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 });
    return { pool, binding: { host: parsed.hostname, port: Number(parsed.port || 5432) } };
  };

  const shapeOf = (typeName: string) => {
    const shape = SHAPES[typeName];
    if (!shape) throw new Refused('InvalidRequest', `the postgresql provider does not serve ${typeName}`);
    return shape;
  };

  const checkedName = (name: string): string => {
    if (!SAFE_NAME.test(name))
      throw new Refused(
        'InvalidRequest',
        `database name '${name}' is not allowed: letters, digits, '_' and '-', at most 63`,
      );
    return name;
  };

  const find = async (db: pg.Pool, name: string) => {
    const { rows } = await db.query<{ datname: string; datconnlimit: number; comment: string | null }>(
      `SELECT datname, datconnlimit, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
      [name],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { row, marker: parseMarker(row.comment) };
  };

  const describe = (
    typeName: string,
    name: string,
    limit: number,
    marker: Marker | undefined,
    binding: Binding,
  ): Model =>
    shapeOf(typeName).write(
      { name, size: sizeOf(limit), ...(marker?.tags !== undefined ? { tags: marker.tags } : {}) },
      binding,
    );

  const guard = async (work: () => Promise<HandlerEvent>): Promise<HandlerEvent> => {
    try {
      return await work();
    } catch (e) {
      if (e instanceof Refused) return progress.failed(e.code, e.message);
      return progress.failed(errorCode(e), `postgresql: ${describeError(e)}`);
    }
  };

  const setComment = async (db: pg.Pool, name: string, marker: Marker) => {
    const q = pg.escapeIdentifier(name);
    await db.query(`COMMENT ON DATABASE ${q} IS ${pg.escapeLiteral(MARKER + JSON.stringify(marker))}`);
  };

  return defineProvider({
    name: 'postgresql',
    types: [DATABASE_TYPE, MANIFEST_TYPE],
    schemas: [
      new URL('../../../examples/typeplane-postgresql-database.json', import.meta.url).pathname,
      new URL('../../../examples/postgresDatabases.yaml', import.meta.url).pathname,
    ],
    configure(settings) {
      if (typeof settings.url !== 'string' || settings.url === '')
        throw new Error('the postgresql provider needs config.url: postgres://user@host:port/db');
      url = settings.url;
      void pool?.end();
      pool = undefined;
    },
    async close() {
      await pool?.end();
      pool = undefined;
    },

    create: (request) =>
      guard(async () => {
        const { pool: db, binding } = connect();
        const wanted = shapeOf(request.typeName).read(request.desiredState);
        const name = checkedName(wanted.name);
        const found = await find(db, name);
        if (found) {
          // Our own database from an invocation that did not get to report back.
          if (found.marker?.token === request.clientRequestToken) {
            return progress.success(
              describe(request.typeName, name, found.row.datconnlimit, found.marker, binding),
            );
          }
          return progress.failed('AlreadyExists', `database ${name} already exists`);
        }
        const q = pg.escapeIdentifier(name);
        const limit = CONNECTION_LIMITS[wanted.size] ?? CONNECTION_LIMITS.S;
        const password =
          wanted.password === undefined ? '' : ` PASSWORD ${pg.escapeLiteral(wanted.password)}`;
        const roles = await db.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [name]);
        if (roles.rowCount === 0) {
          await db.query(`CREATE ROLE ${q} LOGIN CONNECTION LIMIT ${limit}${password}`);
        } else {
          // A role left by an earlier attempt of this create (the database did not get made).
          await db.query(`ALTER ROLE ${q} LOGIN CONNECTION LIMIT ${limit}${password}`);
        }
        await db.query(`CREATE DATABASE ${q} OWNER ${q} CONNECTION LIMIT ${limit}`);
        const marker: Marker = {
          type: request.typeName,
          token: request.clientRequestToken,
          ...(wanted.tags !== undefined ? { tags: wanted.tags } : {}),
        };
        await setComment(db, name, marker);
        return progress.success(describe(request.typeName, name, limit, marker, binding));
      }),

    read: (request) =>
      guard(async () => {
        const { pool: db, binding } = connect();
        const name = checkedName(shapeOf(request.typeName).read(request.desiredState).name);
        const found = await find(db, name);
        if (!found?.marker) return progress.failed('NotFound', `database ${name} does not exist`);
        return progress.success(
          describe(request.typeName, name, found.row.datconnlimit, found.marker, binding),
        );
      }),

    update: (request) =>
      guard(async () => {
        const { pool: db, binding } = connect();
        const shape = shapeOf(request.typeName);
        const wanted = shape.read(request.desiredState);
        const before = request.previousState ? shape.read(request.previousState) : undefined;
        const name = checkedName(wanted.name);
        const found = await find(db, name);
        if (!found?.marker) return progress.failed('NotFound', `database ${name} does not exist`);
        const q = pg.escapeIdentifier(name);
        const limit = CONNECTION_LIMITS[wanted.size] ?? CONNECTION_LIMITS.S;
        await db.query(`ALTER DATABASE ${q} CONNECTION LIMIT ${limit}`);
        await db.query(`ALTER ROLE ${q} CONNECTION LIMIT ${limit}`);
        if (wanted.password !== undefined && wanted.password !== before?.password) {
          await db.query(`ALTER ROLE ${q} PASSWORD ${pg.escapeLiteral(wanted.password)}`);
        }
        const marker: Marker = {
          ...found.marker,
          ...(wanted.tags !== undefined ? { tags: wanted.tags } : {}),
        };
        if (wanted.tags === undefined) delete marker.tags;
        await setComment(db, name, marker);
        return progress.success(describe(request.typeName, name, limit, marker, binding));
      }),

    delete: (request) =>
      guard(async () => {
        const { pool: db } = connect();
        const name = checkedName(shapeOf(request.typeName).read(request.desiredState).name);
        const found = await find(db, name);
        if (!found?.marker) return progress.failed('NotFound', `database ${name} does not exist`);
        const q = pg.escapeIdentifier(name);
        await db.query(`DROP DATABASE ${q} WITH (FORCE)`);
        await db.query(`DROP ROLE IF EXISTS ${q}`);
        return progress.success();
      }),

    list: (request: HandlerRequest) =>
      guard(async () => {
        const { pool: db, binding } = connect();
        const limit = Math.min(Math.max(request.maxResults ?? 100, 1), 1000);
        const after =
          request.nextToken === undefined ? '' : Buffer.from(request.nextToken, 'base64url').toString('utf8');
        const { rows } = await db.query<{ datname: string; datconnlimit: number; comment: string | null }>(
          `SELECT datname, datconnlimit, shobj_description(oid, 'pg_database') AS comment FROM pg_database
           WHERE shobj_description(oid, 'pg_database') LIKE $1 AND datname > $2 ORDER BY datname LIMIT $3`,
          [`${MARKER}%`, after, limit + 1],
        );
        const ours = rows.filter((r) => parseMarker(r.comment)?.type === request.typeName);
        const page = ours.slice(0, limit);
        const more = rows.length > limit;
        const last = rows.slice(0, limit).at(-1)?.datname;
        return progress.list(
          page.map((r) =>
            describe(request.typeName, r.datname, r.datconnlimit, parseMarker(r.comment), binding),
          ),
          more && last !== undefined ? Buffer.from(last, 'utf8').toString('base64url') : null,
        );
      }),
  });
}

function parseMarker(comment: string | null): Marker | undefined {
  if (!comment?.startsWith(MARKER)) return undefined;
  try {
    const value = JSON.parse(comment.slice(MARKER.length)) as Marker;
    return typeof value.type === 'string' && typeof value.token === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The size whose connection limit is closest (a limit changed by hand still reads as a size). */
function sizeOf(limit: number): Size {
  let best: Size = 'S';
  for (const [size, value] of Object.entries(CONNECTION_LIMITS) as [Size, number][]) {
    if (limit === -1) return 'XL';
    if (Math.abs(value - limit) < Math.abs(CONNECTION_LIMITS[best] - limit)) best = size;
  }
  return best;
}

function errorCode(e: unknown): ErrorCode {
  const code = (e as { code?: string }).code;
  switch (code) {
    case '42P04':
    case '42710':
      return 'AlreadyExists';
    case '3D000':
    case '42704':
      return 'NotFound';
    case '42501':
      return 'AccessDenied';
    case '28P01':
    case '28000':
      return 'InvalidCredentials';
    case '53300':
      return 'ServiceLimitExceeded';
    case 'ECONNREFUSED':
    case 'ECONNRESET':
    case 'ETIMEDOUT':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'NetworkFailure';
    default:
      return 'GeneralServiceException';
  }
}

/** The server's message and code; statements (which may hold a password) are never quoted. */
function describeError(e: unknown): string {
  const error = e as { code?: string; message?: string };
  return `${error.message ?? String(e)}${error.code ? ` (${error.code})` : ''}`;
}
