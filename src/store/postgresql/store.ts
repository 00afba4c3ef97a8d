/**
 * @module The PostgreSQL store: for several server replicas over one database. Same contract, same
 * tables and the same row layout as the SQLite store (`../rows.ts`).
 *
 * SQLite serialises every write on one lock; here writes run concurrently, so what must not
 * interleave is serialised explicitly, per key rather than globally:
 * - every state change of one resource (begin, complete, finish) takes a transaction-scoped advisory
 *   lock on the resource's key first, so the checks it makes (no active operation, the resource as
 *   the update was computed from, no resource yet for a create) hold until it commits;
 * - deregistering a type, adding a version or moving its default takes its type's lock exclusively,
 *   and putting a resource takes it shared, so no resource appears in a type being removed; an
 *   operation checked against the default version takes it shared from its begin, so a new default
 *   is made either before that begin (which then sees it) or after (and counts the operation);
 * - the unique indexes stay the backstop: a client token used by two requests at once, or a second
 *   active operation on a resource whose identifier only became known, is caught there;
 * - claiming operations uses `FOR UPDATE SKIP LOCKED`, so replicas claim disjoint sets without waiting.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { withMembers } from '../../members.js';
import { redactUrl } from '../redact-url.js';
import { checkLimit, decodeCursor, encodeCursor } from '../cursor.js';
import {
  ACTIVE,
  ACTIVE_SQL,
  OPERATION_COLUMNS,
  activeConflict,
  alreadyExists,
  ACTIVE_TYPES_SQL,
  dueSql,
  activeCountsSql,
  toActiveOperationCount,
  toClaimedOperation,
  type ActiveCountRow,
  type ClaimableRow,
  fairlyChosen,
  flowRoomFor,
  ACTIVE_REQUESTERS_SQL,
  roomFor,
  withinAllowance,
  identifierTaken,
  expireOperationsSql,
  isoTime,
  resourceParams,
  missingOperation,
  operationParams,
  page,
  pageBytes,
  resourcePage,
  toKvEntry,
  toOperationRecord,
  toStoredResource,
  toStoredType,
  typeInUse,
  typeBusy,
  versionInUse,
  ACTIVE_OPERATION_OF_TYPE,
  TYPE_USAGE,
  unmetExpectation,
  type KvRow,
  type OperationParams,
  type OperationRow,
  type ResourceRow,
  type TokenRow,
  type TypeRow,
  startedAs,
  changesSql,
  raiseHorizonSql,
  resourceChangeOf,
  toChange,
  type ChangeRow,
  KvConflict,
  CompletionRefused,
  assertDistinctResources,
} from '../rows.js';
import {
  type ChangePage,
  DefaultVersionMoved,
  OperationMovedOn,
  TypeChangedMeanwhile,
  type AuditChainHead,
  type AuditEntry,
  type AuditFilter,
  type AuditLink,
  type TypeUsage,
  type TypeVersionExpectation,
  type TypeVersionEntry,
  type BeginResult,
  type ClaimAllowance,
  type AllCompleted,
  type Completion,
  type CompletionRequest,
  type KvEntry,
  type KvKey,
  type KvWrite,
  type Observation,
  type OperationFilter,
  type OperationRecord,
  type ActiveOperationCount,
  type ClaimedOperation,
  type StoreObserver,
  type StoreStats,
  type Page,
  type ResourcePage,
  type ResourceChange,
  type AdditionalIdentifier,
  type ResourceKey,
  type Store,
  type StoredResource,
  type StoredType,
} from '../types.js';
import { MIGRATIONS, SCHEMA_NAME, migrate } from './migrations.js';
import { PostgresAuditTrail } from './audit.js';
import { inSpan, traced } from '../../telemetry/spans.js';

export interface PostgresStoreOptions {
  /** The schema the store's tables live in (created if absent; default `typeplane`). */
  schema?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How long to wait for a connection before failing (default 10,000 ms). */
  connectTimeoutMs?: number;
  /** Told how long each transaction took. */
  observer?: StoreObserver;
}

const TYPE_COLUMNS = 'type_name, version, model_json, source, registered_at';
/** The columns a put writes, in order; a read also reads what reads observed. */
const RESOURCE_WRITTEN =
  'type_name, identifier, properties_json, sealed, created_at, updated_at, type_version';
const RESOURCE_COLUMNS = `${RESOURCE_WRITTEN}, observed_status, observed_since`;

/** The columns of an operation row written by begin/complete, in order. */
const INSERT_COLUMNS = [
  'request_token',
  'type_name',
  'identifier',
  'operation',
  'status',
  'event_time',
  'resource_model_json',
  'status_message',
  'error_code',
  'retry_after',
  'request_json',
  'callback_context_json',
  'started_at',
  'deadline_at',
  'attempts',
  'client_token',
  'request_hash',
  'lease_owner',
  'lease_until',
  'warnings_json',
  'requested_by',
  'resource_change',
] as const;

/** The columns saveOperation and finishOperation set, in order ($2…), after request_token ($1). */
const UPDATE_COLUMNS = [
  'identifier',
  'status',
  'event_time',
  'resource_model_json',
  'status_message',
  'error_code',
  'retry_after',
  'request_json',
  'callback_context_json',
  'deadline_at',
  'attempts',
] as const;

/**
 * The change log's lock (see PostgresStore.safeVersion), taken shared by every statement that takes a
 * version, before it takes it; its number is the last parameter.
 */
const CHANGES_LOCKED = (n: number) => `(SELECT pg_advisory_xact_lock_shared($${n}::bigint)) changes_lock`;

/** The first key of every schema's listener lock (see PostgresStore.listen): "tpwl". */
const LISTENER_LOCK = 0x7470776c;

/** The identity sequence of operations.seq: every version of the change log is drawn from it. */
const NEXT_VERSION = `nextval('operations_seq_seq')`;

const INSERT_OPERATION = `INSERT INTO operations (${INSERT_COLUMNS.join(', ')})
  SELECT ${INSERT_COLUMNS.map((c, i) => `$${i + 1}${c === 'attempts' ? '::integer' : ''}`).join(', ')}
  FROM ${CHANGES_LOCKED(INSERT_COLUMNS.length + 1)}`;

/** Guarded: only an active operation, and with an owner ($13) only while that worker holds the lease. */
function guardedUpdate(finish: boolean): string {
  const sets = UPDATE_COLUMNS.map((c, i) => `${c} = $${i + 2}`);
  const owner = `$${UPDATE_COLUMNS.length + 2}`;
  sets.push(`change_version = ${NEXT_VERSION}`);
  if (finish)
    sets.push('lease_owner = NULL', 'lease_until = NULL', `resource_change = $${UPDATE_COLUMNS.length + 4}`);
  return `UPDATE operations SET ${sets.join(', ')} FROM ${CHANGES_LOCKED(UPDATE_COLUMNS.length + 3)}
    WHERE request_token = $1 AND status IN ${ACTIVE_SQL} AND (${owner}::text IS NULL OR lease_owner = ${owner})`;
}
const SAVE_OPERATION = guardedUpdate(false);
const FINISH_OPERATION = guardedUpdate(true);

type Queryable = pg.Pool | pg.PoolClient;

/**
 * Connections that prepare each parameterised statement once, named after its text, and reuse it:
 * the server parses and plans it once per connection instead of on every call. Every statement here
 * is a constant text (values are always parameters), so the names are a small fixed set.
 */
class PreparingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection that ends while the pool has lent the client out emits 'error' with nobody
    // listening (the pool listens only while it is idle): the process would die of it. Its queries
    // are failed with the same error, which is how the store learns of it.
    this.on('error', () => undefined);
  }
}
const plainQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
const statementNames = new Map<string, string>();
(PreparingClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: pg.Client,
  ...args: unknown[]
) {
  const [text, values] = args;
  if (typeof text !== 'string' || !Array.isArray(values)) return plainQuery.apply(this, args);
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `tp_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return plainQuery.call(this, { name, text, values }, ...args.slice(2));
};

/** Open (creating the schema and running migrations if needed) the store in the database at `url`. */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  return PostgresStore.open(url, options);
}

export class PostgresStore implements Store {
  readonly schema: string;
  private readonly pool: pg.Pool;
  private closed = false;

  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const schema = options.schema ?? 'typeplane';
    if (!SCHEMA_NAME.test(schema)) {
      throw new Error(
        `the store schema name ${JSON.stringify(schema)} is not valid: use lower-case letters, digits and _ (at most 63)`,
      );
    }
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      // Every connection works in the store's schema.
      options: `-c search_path=${schema}`,
      Client: PreparingClient,
      // A query is sent without waiting for the answer to the one before: see sendTogether.
      pipeline: true,
    });
    // An idle connection the server drops must not take the process down; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, schema);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new Error(`cannot open the PostgreSQL store at ${redactUrl(url)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return new PostgresStore(pool, schema, options.observer, url);
  }

  /** The change log's lock (see safeVersion), one per schema. */
  private readonly changesLock: string;
  /** The channel replicas of this store NOTIFY on after committing a change. */
  private readonly channel: string;
  /** The second key of the schema's listener lock (the first is LISTENER_LOCK). */
  private readonly listenerKey: number;

  private constructor(
    pool: pg.Pool,
    schema: string,
    private readonly observer: StoreObserver | undefined,
    private readonly url: string,
  ) {
    this.pool = pool;
    this.schema = schema;
    this.changesLock = lockNumber(`changes:${schema}`);
    this.listenerKey = createHash('sha256').update(schema, 'utf8').digest().readInt32BE(0);
    this.channel = `typeplane_changes_${schema}`;
  }

  // ---- Types ----

  async putType(type: StoredType): Promise<void> {
    await this.pool.query(
      `INSERT INTO types (${TYPE_COLUMNS}, seq) VALUES ($1, $2, $3, $4, $5, nextval('types_seq'))
       ON CONFLICT (type_name, version) DO UPDATE SET model_json = excluded.model_json, source = excluded.source,
         registered_at = excluded.registered_at, seq = excluded.seq`,
      [
        type.typeName,
        type.version,
        JSON.stringify(type.model),
        type.source,
        isoTime(type.registeredAt, 'registeredAt'),
      ],
    );
  }

  async getType(typeName: string, version?: string): Promise<StoredType | undefined> {
    const { rows } =
      version === undefined
        ? await this.pool.query<TypeRow>(
            `SELECT ${TYPE_COLUMNS} FROM types WHERE type_name = $1 ORDER BY seq DESC LIMIT 1`,
            [typeName],
          )
        : await this.pool.query<TypeRow>(
            `SELECT ${TYPE_COLUMNS} FROM types WHERE type_name = $1 AND version = $2`,
            [typeName, version],
          );
    return rows[0] && toStoredType(rows[0]);
  }

  async getTypeStamp(typeName: string): Promise<{ version: string; registeredAt: string } | undefined> {
    const { rows } = await this.pool.query<{ version: string; registered_at: string }>(
      `SELECT version, registered_at FROM types WHERE type_name = $1 ORDER BY seq DESC LIMIT 1`,
      [typeName],
    );
    return rows[0] && { version: rows[0].version, registeredAt: rows[0].registered_at };
  }

  async listTypeVersions(typeName: string): Promise<StoredType[]> {
    const { rows } = await this.pool.query<TypeRow>(
      `SELECT ${TYPE_COLUMNS} FROM types WHERE type_name = $1 ORDER BY seq`,
      [typeName],
    );
    return rows.map(toStoredType);
  }

  async listTypes(): Promise<StoredType[]> {
    const { rows } = await this.pool.query<TypeRow>(
      `SELECT DISTINCT ON (type_name) ${TYPE_COLUMNS} FROM types ORDER BY type_name, seq DESC`,
    );
    return rows.map(toStoredType);
  }

  async listTypeStamps(): Promise<{ typeName: string; version: string; registeredAt: string }[]> {
    const { rows } = await this.pool.query<{ type_name: string; version: string; registered_at: string }>(
      `SELECT DISTINCT ON (type_name) type_name, version, registered_at FROM types ORDER BY type_name, seq DESC`,
    );
    return rows.map((r) => ({ typeName: r.type_name, version: r.version, registeredAt: r.registered_at }));
  }

  async deleteType(typeName: string): Promise<boolean> {
    return this.transaction(async (c) => {
      const count = await countResources(c, typeName);
      if (count > 0) throw typeInUse(typeName, count);
      const active = await c.query<{ request_token: string }>(ACTIVE_OPERATION_OF_TYPE('$1'), [typeName]);
      if (active.rows[0]) throw typeBusy(typeName, active.rows[0].request_token);
      return ((await c.query(`DELETE FROM types WHERE type_name = $1`, [typeName])).rowCount ?? 0) > 0;
    }, typeKey(typeName));
  }

  async addTypeVersion(
    type: Omit<StoredType, 'version'>,
    expected?: TypeVersionExpectation,
  ): Promise<StoredType> {
    return (await this.addTypeVersions([{ type, ...(expected ? { expected } : {}) }]))[0]!;
  }

  async addTypeVersions(entries: readonly TypeVersionEntry[]): Promise<StoredType[]> {
    // Under each type's lock: two registrations at once get two numbers, not one; and what they were
    // decided against is read after every begin that took the lock shared (see beginOperation) committed.
    return this.transaction(
      async (c) => {
        const added: StoredType[] = [];
        for (const { type, expected } of entries) {
          await checkExpected(c, type.typeName, expected);
          const { rows } = await c.query<{ version: string }>(
            `INSERT INTO types (${TYPE_COLUMNS}, seq)
             SELECT $1, (COALESCE(MAX(CASE WHEN version ~ '^[0-9]{1,9}$' THEN version::integer END), 0) + 1)::text,
               $2, $3, $4, nextval('types_seq')
             FROM types WHERE type_name = $1
             RETURNING version`,
            [
              type.typeName,
              JSON.stringify(type.model),
              type.source,
              isoTime(type.registeredAt, 'registeredAt'),
            ],
          );
          added.push({ ...type, version: rows[0]!.version });
        }
        return added;
      },
      entries.map(({ type }) => typeKey(type.typeName)),
    );
  }

  async setDefaultTypeVersion(
    typeName: string,
    version: string,
    expected?: TypeVersionExpectation,
  ): Promise<boolean> {
    return this.transaction(async (c) => {
      const exists = await c.query(`SELECT 1 FROM types WHERE type_name = $1 AND version = $2`, [
        typeName,
        version,
      ]);
      if ((exists.rowCount ?? 0) === 0) return false;
      await checkExpected(c, typeName, expected);
      const result = await c.query(
        `UPDATE types SET seq = nextval('types_seq') WHERE type_name = $1 AND version = $2`,
        [typeName, version],
      );
      return (result.rowCount ?? 0) > 0;
    }, typeKey(typeName));
  }

  async deleteTypeVersion(typeName: string, version: string): Promise<boolean> {
    const versions = await this.listTypeVersions(typeName);
    if (!versions.some((v) => v.version === version)) return false;
    if (versions.length === 1) return this.deleteType(typeName);
    return this.transaction(async (c) => {
      const { rows } = await c.query<{ version: string; seq: string; is_default: boolean; versions: string }>(
        `SELECT version, (seq = MAX(seq) OVER ()) AS is_default, COUNT(*) OVER () AS versions FROM types WHERE type_name = $1`,
        [typeName],
      );
      const row = rows.find((r) => r.version === version);
      if (!row) return false;
      const count = await c.query<{ count: string }>(
        `SELECT COUNT(*) AS count FROM resources WHERE type_name = $1 AND type_version = $2`,
        [typeName, version],
      );
      const resources = Number(count.rows[0]?.count ?? 0);
      if (resources > 0 || row.is_default)
        throw versionInUse(typeName, version, {
          resources,
          versions: Number(row.versions),
          isDefault: row.is_default,
        });
      const deleted = await c.query(`DELETE FROM types WHERE type_name = $1 AND version = $2`, [
        typeName,
        version,
      ]);
      return (deleted.rowCount ?? 0) > 0;
    }, typeKey(typeName));
  }

  async countResourcesByVersion(typeName: string): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ type_version: string | null; count: string }>(
      `SELECT type_version, COUNT(*) AS count FROM resources WHERE type_name = $1 GROUP BY type_version`,
      [typeName],
    );
    const counts: Record<string, number> = {};
    for (const row of rows) if (row.type_version !== null) counts[row.type_version] = Number(row.count);
    return counts;
  }

  // ---- Resource index ----

  async getResource(typeName: string, identifier: string): Promise<StoredResource | undefined> {
    const row = await getResourceRow(this.pool, typeName, identifier);
    return row && toStoredResource(row);
  }

  async getResourceJson(typeName: string, identifier: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ properties_json: string }>(
      'SELECT properties_json FROM resources WHERE type_name = $1 AND identifier = $2',
      [typeName, identifier],
    );
    return rows[0]?.properties_json;
  }

  async listResources(
    typeName: string,
    options: { limit: number; nextToken?: string; maxBytes?: number },
  ): Promise<ResourcePage> {
    checkLimit(options.limit);
    const after = decodeCursor('resources', options.nextToken);
    const maxBytes = pageBytes(options.maxBytes);
    // Only the rows that start within the page's size are sent (and one more, to know there are more);
    // the first two always are: the first is in the page whatever its size, the second says whether
    // more remain when the first alone passes the size.
    const size = 'octet_length(properties_json) + coalesce(octet_length(sealed), 0)';
    const { rows } = await this.pool.query<ResourceRow>(
      `SELECT ${RESOURCE_COLUMNS} FROM (
         SELECT ${RESOURCE_COLUMNS}, sum(${size}) OVER (ORDER BY identifier) - (${size}) AS before,
           row_number() OVER (ORDER BY identifier) AS n
         FROM resources WHERE type_name = $1 ${after === undefined ? '' : 'AND identifier > $4'}
         ORDER BY identifier LIMIT $2
       ) page WHERE before <= $3 OR n <= 2 ORDER BY identifier`,
      [typeName, options.limit + 1, maxBytes, ...(after === undefined ? [] : [after])],
    );
    return resourcePage(rows, options.limit, (last) => encodeCursor('resources', last.identifier), maxBytes);
  }

  async observeResource(
    typeName: string,
    identifier: string,
    updatedAt: string,
    observed: Observation | undefined,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE resources SET observed_status = $1, observed_since = $2
       WHERE type_name = $3 AND identifier = $4 AND updated_at = $5`,
      [
        observed?.status ?? null,
        observed ? isoTime(observed.since, 'since') : null,
        typeName,
        identifier,
        updatedAt,
      ],
    );
    return (rowCount ?? 0) > 0;
  }

  async countResources(typeName: string): Promise<number> {
    return countResources(this.pool, typeName);
  }

  async typeUsage(typeName: string): Promise<TypeUsage> {
    return typeUsage(this.pool, typeName);
  }

  async findByIdentifier(typeName: string, name: string, value: string): Promise<string | undefined> {
    return findIdentifier(this.pool, typeName, name, value);
  }

  async listReferences(typeName: string, identifier: string): Promise<ResourceKey[]> {
    const { rows } = await this.pool.query<{ to_type: string; to_id: string }>(
      `SELECT to_type, to_id FROM resource_refs WHERE from_type = $1 AND from_id = $2 ORDER BY to_type, to_id`,
      [typeName, identifier],
    );
    return rows.map((r) => ({ typeName: r.to_type, identifier: r.to_id }));
  }

  async listReferrers(typeName: string, identifier: string, limit: number): Promise<ResourceKey[]> {
    return referrers(this.pool, typeName, identifier, limit);
  }

  // ---- Operations ----

  async beginOperation(
    operation: OperationRecord,
    requestHash?: string,
    lease?: { owner: string; until: Date },
    precondition?: (current: StoredResource | undefined) => void,
  ): Promise<BeginResult> {
    const params = operationParams(operation);
    return this.withTokenRetry(operation, async () =>
      this.transaction(
        async (_, tx): Promise<BeginResult> => {
          const identifier = operation.identifier;
          const seen = seenIn(tx.first!, requestHash ?? null);
          if (seen.earlier) return seen.earlier;
          checkDefault(operation, seen);
          if (seen.active !== undefined && ACTIVE.has(operation.status))
            return { kind: 'conflict', activeRequestToken: seen.active };
          if (precondition && identifier !== undefined) precondition(seen.resource);
          await tx.commit([
            {
              text: INSERT_OPERATION,
              values: insertValues(
                params,
                requestHash ?? null,
                lease?.owner ?? null,
                lease?.until.toISOString() ?? null,
                this.changesLock,
              ),
            },
          ]);
          this.committedChange();
          return startedAs(operation, params);
        },
        ...operationLocks(operation),
        inspection(operation, { resource: precondition !== undefined, referrers: false }),
      ),
    );
  }

  /**
   * Completions issued in one turn of the event loop share one transaction (see completeTogether), as
   * the SQLite store's group commit does: a record-backed create's commit, its BEGIN, its locks and its
   * round trips are the larger part of what it costs either side.
   */
  completeOperation(
    operation: OperationRecord,
    requestHash: string | undefined,
    decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion,
  ): Promise<BeginResult> {
    return new Promise<BeginResult>((resolve, reject) => {
      this.completions.push({ operation, requestHash, decide, resolve, reject });
      if (!this.completionsScheduled) {
        this.completionsScheduled = true;
        setImmediate(() => this.completeQueued());
      }
    });
  }

  private completions: Completing[] = [];
  private completionsScheduled = false;

  /** Runs the completions queued: together, each operation's key once (the rest wait for the next turn). */
  private completeQueued(): void {
    this.completionsScheduled = false;
    const batch: Completing[] = [];
    const later: Completing[] = [];
    const keys = new Set<string>();
    for (const item of this.completions) {
      // Two of one resource (or one client token) decide one after the other, as apart they would.
      const key = operationKey(item.operation);
      const token = item.operation.clientToken;
      if (
        batch.length >= MAX_COMPLETIONS_TOGETHER ||
        (key !== undefined && keys.has(key)) ||
        (token !== undefined && keys.has(`token:${token}`))
      ) {
        later.push(item);
        continue;
      }
      if (key !== undefined) keys.add(key);
      if (token !== undefined) keys.add(`token:${token}`);
      batch.push(item);
    }
    this.completions = later;
    if (later.length > 0) {
      this.completionsScheduled = true;
      setImmediate(() => this.completeQueued());
    }
    const decided = batch.map(newResourceOf);
    if (decided.every((d) => d !== undefined)) {
      this.completeNew(batch, decided as NewResource[]).then(
        () => batch.forEach((item) => item.resolve({ kind: 'started', operation: item.operation })),
        // Something stood in the way (the resource, the client token, an operation in progress, a
        // default version moved): decided again after reading what is there.
        () => this.completeRead(batch),
      );
      return;
    }
    this.completeRead(batch);
  }

  /** Completions decided after reading what is there: together, or one alone. */
  private completeRead(batch: readonly Completing[]): void {
    if (batch.length === 1) {
      const [item] = batch as [Completing];
      this.completeAlone(item).then(item.resolve, item.reject);
      return;
    }
    this.completeTogether(batch).then(
      (outcomes) =>
        outcomes.forEach((outcome, i) =>
          outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error),
        ),
      // Refused as a whole (two raced for a key another transaction took, a unique value taken meanwhile):
      // each is run alone, as it would have been, and decided again.
      () => {
        for (const item of batch) this.completeAlone(item).then(item.resolve, item.reject);
      },
    );
  }

  private completeAlone(item: Completing): Promise<BeginResult> {
    const { operation } = item;
    return this.withTokenRetry(operation, async () =>
      this.transaction(
        async (c, tx): Promise<BeginResult> => {
          const { answer, record, writes } = await this.decided(c, item, tx.first!);
          if (!record) return answer;
          await tx.commit(writes);
          Object.assign(operation, record);
          this.committedChange();
          return answer;
        },
        ...operationLocks(operation),
        completionInspection(operation),
      ),
    );
  }

  /**
   * A completion decided on what its inspection (`inspected`) found, under its locks: its answer, and when
   * it starts, the operation as it ends and the writes that record it.
   */
  private async decided(
    c: pg.PoolClient,
    { operation, requestHash, decide }: CompletionRequest,
    inspected: pg.QueryResult,
  ): Promise<{ answer: BeginResult; record?: OperationRecord; writes: Statement[] }> {
    const seen = seenIn(inspected, requestHash ?? null);
    if (seen.earlier) return { answer: seen.earlier, writes: [] };
    checkDefault(operation, seen);
    if (seen.active !== undefined)
      return { answer: { kind: 'conflict', activeRequestToken: seen.active }, writes: [] };
    const outcome = decide(seen.resource, seen.referrers);
    const record = completed(operation, outcome);
    return {
      answer: { kind: 'started', operation },
      record,
      writes: [
        this.insertCompleted(record, requestHash, outcome),
        // The resource's absence was checked above, under the resource's lock.
        ...(outcome.status === 'SUCCESS' ? await changeStatements(c, record, outcome.change, false) : []),
      ],
    };
  }

  /**
   * Several completions in one transaction: every lock they take (in one order), every inspection sent
   * with BEGIN, each decided as completeAlone decides it, their writes sent with COMMIT. One that is
   * refused by itself (a default version moved, a decision that throws) is refused alone; a refusal of
   * the transaction (a unique value taken meanwhile) rejects, and the caller runs each alone.
   */
  private completeTogether(
    batch: readonly Completing[],
  ): Promise<({ ok: true; value: BeginResult } | { ok: false; error: unknown })[]> {
    const operations = batch.map(({ operation }) => operation);
    return this.transaction(
      async (c, tx) => {
        const outcomes: ({ ok: true; value: BeginResult } | { ok: false; error: unknown })[] = [];
        const records: (OperationRecord | undefined)[] = [];
        const statements: Statement[] = [];
        for (let i = 0; i < batch.length; i++) {
          try {
            const { answer, record, writes } = await this.decided(c, batch[i]!, tx.firsts[i]!);
            statements.push(...writes);
            records[i] = record;
            outcomes.push({ ok: true, value: answer });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        if (statements.length > 0) await tx.commit(statements);
        records.forEach((record, i) => record && Object.assign(batch[i]!.operation, record));
        if (statements.length > 0) this.committedChange();
        return outcomes;
      },
      ...batchLocks(operations),
      operations.map(completionInspection),
    );
  }

  /**
   * Several completions and kv writes in one transaction, all or none (Store.completeAll): every lock
   * taken in one order and every inspection sent with BEGIN, as completeTogether does; the first
   * decided first (its own answer when it does not end in SUCCESS), then the others, then the kv
   * writes sent and seen to hold, then the operations' writes with COMMIT.
   */
  async completeAll(
    completions: readonly CompletionRequest[],
    kv: readonly KvWrite[],
  ): Promise<AllCompleted> {
    const lead = completions[0];
    if (!lead) throw new Error('completeAll needs at least one completion');
    assertDistinctResources(completions);
    const operations = completions.map(({ operation }) => operation);
    const ordered = inKeyOrder(kv);
    const run = () =>
      this.transaction(
        async (c, tx): Promise<AllCompleted> => {
          const records: OperationRecord[] = [];
          const statements: Statement[] = [];
          for (let i = 0; i < completions.length; i++) {
            const { answer, record, writes } = await this.decided(c, completions[i]!, tx.firsts[i]!);
            const ended = answer.kind === 'started' && record?.status === 'SUCCESS';
            if (i === 0 && !ended) {
              // The first alone: its own answer, its failure written as completeOperation writes it.
              if (record) {
                await tx.commit(writes);
                Object.assign(lead.operation, record);
                this.committedChange();
              }
              return answer;
            }
            if (!ended) {
              if (record) Object.assign(completions[i]!.operation, record);
              throw new CompletionRefused(i, answer);
            }
            records.push(record);
            statements.push(...writes);
          }
          if (ordered.length > 0) await sendKvWrites(c, ordered);
          await tx.commit(statements);
          records.forEach((record, i) => Object.assign(completions[i]!.operation, record));
          this.committedChange();
          return { kind: 'started', operation: lead.operation };
        },
        ...batchLocks(operations),
        operations.map(completionInspection),
      );
    return this.withTokenRetry(lead.operation, () =>
      run().catch((error: unknown): AllCompleted => {
        if (error instanceof CompletionRefused)
          return { kind: 'refused', index: error.index, result: error.result };
        if (error instanceof KvConflict)
          return { kind: 'refused', key: { namespace: error.namespace, key: error.key } };
        throw error;
      }),
    );
  }

  /**
   * Creates of resources that do not exist yet, in one round trip: BEGIN and the locks, then one
   * statement for them all (NEW_CREATES: the check that nothing stands in the way, the operations and
   * the resources), their references, then COMMIT. What a create decides when no resource is there is
   * written as it is; the transaction is refused whole (and the caller decides them again after
   * reading) when one does not hold: a resource's key taken (an INSERT, not the upsert), a client token
   * used before (its unique index), an operation in progress on a resource or a default version moved
   * (the check divides by zero).
   */
  private completeNew(batch: readonly Completing[], decided: readonly NewResource[]): Promise<void> {
    const rows: NewCreateRow[] = [];
    const references: Statement[] = [];
    batch.forEach(({ operation, requestHash }, i) => {
      const { outcome, record } = decided[i]!;
      const { resource } = outcome.change;
      const [, , properties, sealed, createdAt, updatedAt, typeVersion] = resourceParams(resource);
      rows.push({
        checked: operation.checkedAgainstDefault ?? null,
        type_lock: typeLockNumber(resource.typeName),
        ...completedRow(record, requestHash, outcome),
        properties_json: properties,
        sealed,
        created_at: createdAt,
        updated_at: updatedAt,
        type_version: typeVersion,
      });
      if (outcome.change.references && outcome.change.references.length > 0)
        references.push(insertReferences(resource, outcome.change.references));
    });
    // One statement, not one per create: bound, run and answered once for the batch.
    const statements: Statement[] = [
      { text: NEW_CREATES, values: [JSON.stringify(rows), this.changesLock] },
      ...references,
    ];
    const run = async () => {
      await this.roundTrip(openingText(...batchLocks(batch.map(({ operation }) => operation))), statements);
      batch.forEach(({ operation }, i) => Object.assign(operation, decided[i]!.record));
      this.committedChange();
    };
    if (!traced()) return run();
    return inSpan('postgresql transaction', TRANSACTION_SPAN_ATTRIBUTES, run);
  }

  /** A whole transaction in one round trip: `opening` (BEGIN and locks), `statements`, COMMIT. */
  private async roundTrip(opening: string, statements: readonly Statement[]): Promise<void> {
    // A refusal aborts the transaction, and the COMMIT sent after it ends it (the ROLLBACK only makes sure).
    await this.onConnection((client) =>
      sendTogether(client, [{ text: opening }, ...statements, { text: 'COMMIT' }]),
    );
  }

  /**
   * A pool connection for one transaction's `work`: rolled back when it throws (dropped when that
   * fails too: its state is unknown), released, and the transaction timed.
   */
  private async onConnection<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const started = this.observer ? performance.now() : 0;
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
      this.observer?.transactionEnded((performance.now() - started) / 1000);
    }
  }

  /** The INSERT of an operation completed in its first transaction. */
  private insertCompleted(
    record: OperationRecord,
    requestHash: string | undefined,
    outcome: Completion,
  ): Statement {
    const row = completedRow(record, requestHash, outcome);
    return { text: INSERT_OPERATION, values: insertRowValues(row, this.changesLock) };
  }

  async saveOperation(operation: OperationRecord, owner?: string): Promise<void> {
    let changed: number;
    try {
      changed =
        (
          await this.pool.query(
            SAVE_OPERATION,
            updateValues(operationParams(operation), owner, this.changesLock),
          )
        ).rowCount ?? 0;
    } catch (error) {
      throw isActiveConflict(error) ? activeConflict(operation) : error;
    }
    if (changed === 0) throw await this.notWritten(operation.requestToken);
    this.committedChange();
  }

  async finishOperation(operation: OperationRecord, change?: ResourceChange, owner?: string): Promise<void> {
    try {
      await this.transaction(
        async (c, tx) => {
          const result = await c.query(
            FINISH_OPERATION,
            updateValues(operationParams(operation), owner, this.changesLock, resourceChangeOf(change)),
          );
          if ((result.rowCount ?? 0) === 0) throw await this.notWritten(operation.requestToken, c);
          await tx.commit(await changeStatements(c, operation, change, true));
        },
        changeKey(change) ?? operationKey(operation),
      );
      this.committedChange();
    } catch (error) {
      throw isActiveConflict(error) ? activeConflict(operation) : error;
    }
  }

  async getOperation(requestToken: string): Promise<OperationRecord | undefined> {
    const row = await getOperationRow(this.pool, requestToken);
    return row && toOperationRecord(row);
  }

  async getOperationByClientToken(
    clientToken: string,
  ): Promise<{ operation: OperationRecord; requestHash: string | null } | undefined> {
    const { rows } = await this.pool.query<TokenRow>(
      `SELECT ${OPERATION_COLUMNS}, request_hash FROM operations WHERE client_token = $1`,
      [clientToken],
    );
    const row = rows[0];
    return row && { operation: toOperationRecord(row), requestHash: row.request_hash };
  }

  async listOperations(
    filter: OperationFilter,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<OperationRecord>> {
    checkLimit(options.limit);
    const before = decodeCursor('operations', options.nextToken);
    const values: unknown[] = [];
    const where: string[] = [];
    const bind = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    if (filter.typeName !== undefined) where.push(`type_name = ${bind(filter.typeName)}`);
    if (filter.identifier !== undefined) where.push(`identifier = ${bind(filter.identifier)}`);
    if (filter.operation !== undefined && filter.operation.length > 0)
      where.push(`operation = ANY(${bind(filter.operation)}::text[])`);
    if (filter.status !== undefined && filter.status.length > 0)
      where.push(`status = ANY(${bind(filter.status)}::text[])`);
    if (before !== undefined) where.push(`seq < ${bind(before)}`);
    const { rows } = await this.pool.query<OperationRow>(
      `SELECT ${OPERATION_COLUMNS} FROM operations ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY seq DESC LIMIT ${bind(options.limit + 1)}`,
      values,
    );
    const result = page(rows, options.limit, (last) => encodeCursor('operations', Number(last.seq)));
    return { ...result, items: result.items.map(toOperationRecord) };
  }

  async claimOperations(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
    allowance?: ClaimAllowance,
  ): Promise<ClaimedOperation[]> {
    if (limit < 1) return [];
    const at = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    if (allowance) return this.claimWithin(owner, at, until, Math.trunc(limit), allowance);
    // Rows another replica is claiming right now are skipped, not waited for. Each comes back with
    // the owner whose lease it had (see toClaimedOperation).
    const { rows } = await this.pool.query<ClaimableRow>(
      `UPDATE operations SET lease_owner = $1, lease_until = $2
       FROM (
         SELECT seq AS due_seq, lease_owner AS held_by FROM operations WHERE ${dueSql('$3')}
         ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED) due
       WHERE seq = due.due_seq
       RETURNING ${OPERATION_COLUMNS}, due.held_by AS lease_owner`,
      [owner, until, at, Math.trunc(limit)],
    );
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map((row) => toClaimedOperation(row, owner));
  }

  async countActiveOperations(now: Date): Promise<ActiveOperationCount[]> {
    const at = now.toISOString();
    const { rows } = await this.pool.query<ActiveCountRow>(activeCountsSql('$1'), [at]);
    return rows.map(toActiveOperationCount);
  }

  stats(): StoreStats {
    const { totalCount, idleCount, waitingCount } = this.pool;
    return { pool: { total: totalCount, idle: idleCount, waiting: waitingCount } };
  }

  /**
   * A claim within an allowance: the oldest due rows when they stay within it (the usual case), else
   * each type's oldest due within its room, oldest of all first. Rows are locked as they are read
   * (rows another replica is claiming are skipped, not waited for), those taken leased, the rest let
   * go at the commit.
   */
  private claimWithin(
    owner: string,
    at: string,
    until: string,
    limit: number,
    allowance: ClaimAllowance,
  ): Promise<ClaimedOperation[]> {
    return this.transaction(async (client) => {
      type Due = { seq: string; type_name: string; requested_by: string | null; lease_owner: string | null };
      const due = `SELECT seq, type_name, requested_by, lease_owner FROM operations WHERE ${dueSql('$1')}`;
      let rows = (await client.query<Due>(`${due} ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED`, [at, limit]))
        .rows;
      if (!withinAllowance(rows, allowance)) {
        // Each type's and each caller's oldest due within its room (see the SQLite store).
        const lists: Due[][] = [];
        const listOf = async (column: 'type_name' | 'requested_by', name: string, room: number) =>
          (
            await client.query<Due>(
              `${due} AND ${column} = $3 ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED`,
              [at, room, name],
            )
          ).rows;
        for (const { name } of (await client.query<{ name: string }>(ACTIVE_TYPES_SQL)).rows) {
          const room = roomFor(name, allowance, limit);
          if (room > 0) lists.push(await listOf('type_name', name, room));
        }
        if (allowance.perFlow !== undefined)
          for (const { name } of (await client.query<{ name: string }>(ACTIVE_REQUESTERS_SQL)).rows) {
            const room = flowRoomFor(name, allowance, limit);
            if (room > 0) lists.push(await listOf('requested_by', name, room));
          }
        rows = fairlyChosen(lists, allowance, limit);
      }
      if (rows.length === 0) return [];
      const leased = await client.query<OperationRow>(
        `UPDATE operations SET lease_owner = $1, lease_until = $2 WHERE seq = ANY($3::bigint[])
         RETURNING ${OPERATION_COLUMNS}`,
        [owner, until, rows.map((r) => r.seq)],
      );
      const heldBy = new Map(rows.map((r) => [String(r.seq), r.lease_owner]));
      return leased.rows
        .sort((x, y) => Number(x.seq) - Number(y.seq))
        .map((row) =>
          toClaimedOperation({ ...row, lease_owner: heldBy.get(String(row.seq)) ?? null }, owner),
        );
    });
  }

  async renewLease(requestToken: string, owner: string, now: Date, leaseMs: number): Promise<boolean> {
    const result =
      leaseMs <= 0
        ? await this.pool.query(
            `UPDATE operations SET lease_owner = NULL, lease_until = NULL WHERE request_token = $1 AND lease_owner = $2`,
            [requestToken, owner],
          )
        : await this.pool.query(
            `UPDATE operations SET lease_until = $1
             WHERE request_token = $2 AND lease_owner = $3 AND status IN ${ACTIVE_SQL}`,
            [new Date(now.getTime() + leaseMs).toISOString(), requestToken, owner],
          );
    return (result.rowCount ?? 0) > 0;
  }

  async expireTokens(before: Date): Promise<number> {
    const at = [before.toISOString()];
    return this.transaction(async (c) => {
      await c.query(raiseHorizonSql('$1', 'GREATEST'), at);
      return (await c.query(expireOperationsSql('$1'), at)).rowCount ?? 0;
    });
  }

  // ---- Change log ----

  /**
   * Read holding the change log's lock (see safeVersion) from before the sequence is read until the
   * page is: no transaction holds an uncommitted version, and none changes an operation meanwhile, so
   * the page is the log as of `latest` (an operation read at its begin has not moved on unseen).
   * Writers that take a version wait that long: a read of one page by its indexes.
   */
  async readChanges(after: number, limit: number): Promise<ChangePage> {
    checkLimit(limit);
    const { rows } = await this.transaction(
      (c) =>
        c.query<ChangeRow & { horizon: string; latest: string }>(
          `WITH latest AS (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS version FROM operations_seq_seq)
           SELECT c.*, h.version AS horizon, l.version AS latest
           FROM latest l CROSS JOIN change_horizon h
             LEFT JOIN LATERAL (${changesSql('$1', 'l.version', '$2')}) c ON true
           ORDER BY COALESCE(c.change_version, c.seq)`,
          [after, limit],
        ),
      `changes:${this.schema}`,
    );
    const latest = Number(rows[0]?.latest ?? 0);
    if (!this.safe || latest >= this.safe.version) this.safe = { version: latest, at: performance.now() };
    const changes = rows.filter((r) => r.seq !== null).map(toChange);
    return { changes, horizon: Number(rows[0]?.horizon ?? 0), latest };
  }

  /** A version every change up to which has committed, at most a second old (see safeVersion). */
  async latestVersion(): Promise<number> {
    if (this.safe && performance.now() - this.safe.at < 1000) return this.safe.version;
    return this.safeVersion();
  }

  private safe: { version: number; at: number } | undefined;

  /**
   * The latest version every change up to which has committed or rolled back. Versions come from a
   * sequence, drawn in each transaction before it commits, so a later one may commit first: a reader
   * that went on from it would never see the earlier. Every statement that draws a version holds the
   * change log's lock shared until its transaction ends; taking it exclusively here waits for those
   * in flight (holding back new ones meanwhile, a commit's time) and reads the sequence while no
   * transaction holds an uncommitted version.
   */
  private async safeVersion(): Promise<number> {
    const at = performance.now();
    const { rows } = await this.pool.query<{ version: string }>(
      `SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END AS version
       FROM (SELECT pg_advisory_xact_lock($1::bigint)) l, LATERAL (SELECT last_value, is_called FROM operations_seq_seq) s`,
      [this.changesLock],
    );
    const version = Number(rows[0]?.version ?? 0);
    if (!this.safe || version >= this.safe.version) this.safe = { version, at };
    return version;
  }

  private readonly changeListeners = new Set<() => void>();
  /** The connection that LISTENs for other replicas' changes, while anyone listens here. */
  private listening: pg.Client | undefined;
  private notifyTimer: NodeJS.Timeout | undefined;

  onChanges(listener: () => void): () => void {
    this.changeListeners.add(listener);
    if (!this.listening) this.listen();
    return () => {
      this.changeListeners.delete(listener);
      if (this.changeListeners.size === 0) this.unlisten();
    };
  }

  /**
   * LISTENs on a connection of its own, which also holds the schema's listener lock (shared) while it
   * is open: other replicas NOTIFY only while some connection holds it (see notifyOthers).
   */
  private listen(): void {
    const client = new pg.Client({ connectionString: this.url, options: `-c search_path=${this.schema}` });
    this.listening = client;
    // Dropped or refused (the database restarting): the periodic reads of the change log go on, and
    // it connects again a second later while anyone listens here.
    const lost = () => {
      if (this.listening !== client) return;
      this.listening = undefined;
      void client.end().catch(() => undefined);
      setTimeout(() => {
        if (!this.closed && !this.listening && this.changeListeners.size > 0) this.listen();
      }, 1000).unref();
    };
    client.on('error', lost);
    client.on('notification', () => this.wake());
    client
      .connect()
      .then(() => client.query('SELECT pg_advisory_lock_shared($1, $2)', [LISTENER_LOCK, this.listenerKey]))
      .then(() => client.query(`LISTEN ${this.channel}`))
      .catch(lost);
  }

  private unlisten(): void {
    const client = this.listening;
    this.listening = undefined;
    void client?.end().catch(() => undefined);
  }

  private wake(): void {
    for (const listener of this.changeListeners) listener();
  }

  /**
   * After a change commits: this process's listeners at once, other replicas' through one NOTIFY per
   * 20 ms at most (each NOTIFY takes a lock every committing NOTIFY waits for: never one a change).
   */
  private committedChange(): void {
    this.wake();
    if (this.notifyTimer || this.closed || performance.now() < this.nobodyListensUntil) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      if (!this.closed) this.notifyOthers().catch(() => undefined);
    }, 20);
    this.notifyTimer.unref();
  }

  /** Until then, no other connection held the listener lock a moment ago: nobody to NOTIFY. */
  private nobodyListensUntil = 0;

  /**
   * One NOTIFY, sent only when another replica's listening connection holds the schema's listener
   * lock; when none does, none is looked for again for a second (a replica that starts listening
   * meanwhile reads the log every `pollMs` anyway).
   */
  private async notifyOthers(): Promise<void> {
    const { rowCount } = await this.pool.query(
      `SELECT pg_notify($1, '') FROM pg_locks
       WHERE locktype = 'advisory' AND classid = $2 AND objid = $3 AND objsubid = 2 AND pid <> $4
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       LIMIT 1`,
      [
        this.channel,
        LISTENER_LOCK,
        this.listenerKey,
        (this.listening as (pg.Client & { processID?: number }) | undefined)?.processID ?? 0,
      ],
    );
    if (!rowCount) this.nobodyListensUntil = performance.now() + 1000;
  }

  // ---- Provider state ----

  async kvGet(namespace: string, key: string): Promise<KvEntry | undefined> {
    const { rows } = await this.pool.query<KvRow>(
      `SELECT key, value_json, written_by FROM kv WHERE namespace = $1 AND key = $2`,
      [namespace, key],
    );
    return rows[0] && toKvEntry(rows[0]);
  }

  async kvStamp(namespace: string, key: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ written_by: string }>(
      `SELECT written_by FROM kv WHERE namespace = $1 AND key = $2`,
      [namespace, key],
    );
    return rows[0]?.written_by;
  }

  async kvInsert(namespace: string, key: string, entry: KvEntry): Promise<boolean> {
    const { text, values } = kvWriteStatement({ namespace, key, entry })!;
    return ((await this.pool.query(text, values)).rowCount ?? 0) > 0;
  }

  async kvReplace(namespace: string, key: string, entry: KvEntry): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE kv SET value_json = $1, written_by = $2 WHERE namespace = $3 AND key = $4`,
      [JSON.stringify(entry.value), entry.writtenBy, namespace, key],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async kvSwap(namespace: string, key: string, entry: KvEntry, expectedWrittenBy: string): Promise<boolean> {
    const { text, values } = kvWriteStatement({ namespace, key, entry, base: expectedWrittenBy })!;
    return ((await this.pool.query(text, values)).rowCount ?? 0) > 0;
  }

  async kvDelete(namespace: string, key: string): Promise<boolean> {
    const result = await this.pool.query(`DELETE FROM kv WHERE namespace = $1 AND key = $2`, [
      namespace,
      key,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  async kvCommit(writes: readonly KvWrite[]): Promise<KvKey | undefined> {
    const ordered = inKeyOrder(writes);
    if (ordered.length === 0) return undefined;
    try {
      // COMMIT only once each write was seen to hold.
      await this.transaction((client) => sendKvWrites(client, ordered));
      return undefined;
    } catch (error) {
      if (error instanceof KvConflict) return { namespace: error.namespace, key: error.key };
      throw error;
    }
  }

  async kvList(
    namespace: string,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<{ key: string; entry: KvEntry }>> {
    checkLimit(options.limit);
    const after = decodeCursor('kv', options.nextToken);
    const { rows } =
      after === undefined
        ? await this.pool.query<KvRow>(
            `SELECT key, value_json, written_by FROM kv WHERE namespace = $1 ORDER BY key LIMIT $2`,
            [namespace, options.limit + 1],
          )
        : await this.pool.query<KvRow>(
            `SELECT key, value_json, written_by FROM kv WHERE namespace = $1 AND key > $2 ORDER BY key LIMIT $3`,
            [namespace, after, options.limit + 1],
          );
    const items = rows.map((row) => ({ key: row.key, entry: toKvEntry(row) }));
    return page(items, options.limit, (last) => encodeCursor('kv', last.key));
  }

  // ---- Audit trail (see audit.ts) ----

  private auditTrail: PostgresAuditTrail | undefined;

  private get audit(): PostgresAuditTrail {
    return (this.auditTrail ??= new PostgresAuditTrail(this.pool, (work) =>
      this.transaction((client) => work(client), `audit:${this.schema}`),
    ));
  }

  async appendAuditRecords(entries: readonly AuditEntry[], link: AuditLink): Promise<AuditChainHead> {
    return this.audit.append(entries, link);
  }

  async listAuditRecords(
    filter: AuditFilter,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<string>> {
    return this.audit.list(filter, options);
  }

  async expireAuditRecords(before: Date): Promise<number> {
    return this.audit.expireBefore(before);
  }

  async ready(): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
    let version: number | undefined;
    try {
      const { rows } = await this.pool.query<{ version: number }>('SELECT version FROM schema_version');
      version = rows[0]?.version;
    } catch (error) {
      // The driver's message names the host and port: the reason stays general (its cause is logged).
      throw new Error('the PostgreSQL database does not answer', { cause: error });
    }
    if (version !== MIGRATIONS.length)
      throw new Error(
        `the store's schema is version ${version ?? 'unknown'}; this Typeplane knows ${MIGRATIONS.length}`,
      );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.notifyTimer);
    this.unlisten();
    await this.pool.end();
  }

  // ---- Helpers ----

  /**
   * Run `work` in a transaction. With `lockOn`, the transaction first takes that key's lock, in the
   * same query as BEGIN (a simple query: the lock's number is computed here, never user text); with
   * `shareLockOfType`, that type's lock shared. With `first`, a read, that read leaves with BEGIN (one
   * round trip for both; it runs after the locks are held) and work finds its result in `tx.first`;
   * work may end with `tx.commit`, which sends its last statements together with COMMIT.
   */
  private transaction<T>(
    work: (client: pg.PoolClient, tx: Tx) => Promise<T>,
    /** Keys locked exclusively, always in one order (so that two transactions never wait on each other). */
    lockOn?: string | readonly string[],
    /** Types whose locks are taken shared, after `lockOn`'s. */
    shareLockOfType?: string | readonly string[],
    first?: Statement | readonly Statement[],
  ): Promise<T> {
    // Traced, a span of its own (its wait for a connection included); untraced, no closure is made.
    if (!traced()) return this.transactionHere(work, lockOn, shareLockOfType, first);
    return inSpan('postgresql transaction', TRANSACTION_SPAN_ATTRIBUTES, () =>
      this.transactionHere(work, lockOn, shareLockOfType, first),
    );
  }

  private async transactionHere<T>(
    work: (client: pg.PoolClient, tx: Tx) => Promise<T>,
    lockOn?: string | readonly string[],
    shareLockOfType?: string | readonly string[],
    first?: Statement | readonly Statement[],
  ): Promise<T> {
    return this.onConnection(async (client) => {
      let committed = false;
      const begin = openingText(lockOn, shareLockOfType);
      const reads =
        first === undefined ? [] : 'text' in first ? [first as Statement] : (first as Statement[]);
      // BEGIN's failure is the one thrown (the first in order), before work sends anything more.
      const [, ...firsts] = await sendTogether(client, [{ text: begin }, ...reads]);
      const result = await work(client, {
        first: firsts[0],
        firsts,
        async commit(statements) {
          const results = await sendTogether(client, [...statements, { text: 'COMMIT' }]);
          committed = true;
          return results.slice(0, -1);
        },
      });
      if (!committed) await client.query('COMMIT');
      return result;
    });
  }

  /**
   * Two requests with one client token at once: the second insert waits for the first to commit and
   * then breaks the token's unique index; run again, it finds the token and replays (or refuses) it.
   */
  private async withTokenRetry<T>(
    operation: OperationRecord,
    run: () => Promise<T | BeginResult>,
  ): Promise<T | BeginResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (attempt < 2 && isUniqueViolation(error, 'operations_client_token')) continue;
        if (isActiveConflict(error) && operation.identifier !== undefined) {
          const active = await getActive(this.pool, operation.typeName, operation.identifier);
          if (active) return { kind: 'conflict', activeRequestToken: active };
        }
        throw error;
      }
    }
  }

  /** Why a guarded write changed nothing: the operation moved on, or it does not exist. */
  private async notWritten(requestToken: string, via: Queryable = this.pool): Promise<Error> {
    return (await getOperationRow(via, requestToken))
      ? new OperationMovedOn(requestToken)
      : missingOperation(requestToken);
  }
}

/**
 * BEGIN and the transaction's advisory locks, as one simple query (the locks' numbers are computed
 * here, never user text): the keys locked exclusively in one order (so that two transactions never
 * wait on each other), then the types' locks shared.
 */
function openingText(
  lockOn?: string | readonly string[],
  shareLockOfType?: string | readonly string[],
): string {
  const numbers = (keys: string | readonly string[] | undefined, number: (key: string) => string) =>
    [...new Set((typeof keys === 'string' ? [keys] : (keys ?? [])).map((key) => number(key)))].sort();
  return [
    'BEGIN',
    ...numbers(lockOn, lockNumber).map((n) => `SELECT pg_advisory_xact_lock(${n})`),
    ...numbers(shareLockOfType, typeLockNumber).map((n) => `SELECT pg_advisory_xact_lock_shared(${n})`),
  ].join('; ');
}

/** A transaction's span's attributes, as the SQLite store's group commit's (the SDK copies them). */
const TRANSACTION_SPAN_ATTRIBUTES = { 'db.system.name': 'postgresql' } as const;

// ---- Statements shared by several methods ----

/** A query to send with others (see sendTogether), and what the database refusing it means. */
interface Statement {
  text: string;
  values?: unknown[];
  /** The error to throw for the database's refusal; undefined (or no function) throws the database's. */
  refused?: (error: unknown) => Error | undefined;
}

/** What a transaction's work has besides its connection (see PostgresStore.transaction). */
interface Tx {
  /** The result of the read sent with BEGIN, if one was. */
  first: pg.QueryResult | undefined;
  /** The results of the reads sent with BEGIN, in order. */
  firsts: pg.QueryResult[];
  /**
   * Sends `statements` and COMMIT in one round trip; their results, or the first one's refusal (the
   * transaction is then rolled back: a COMMIT after a refusal ends it so).
   */
  commit(statements: readonly Statement[]): Promise<pg.QueryResult[]>;
}

/**
 * Sends `statements` on `client` in one write and waits once: the pool's connections pipeline (none
 * waits for the answer to the one before) and the server runs them in order. Each round trip to the
 * database costs both processes a wake-up and a system call or two, more than a short statement
 * itself. Their results in order, or the error of the first one refused (in a transaction, those after
 * it were refused too: the transaction is aborted).
 */
async function sendTogether(
  client: pg.PoolClient,
  statements: readonly Statement[],
): Promise<pg.QueryResult[]> {
  const socket = client.connection.stream;
  // Corked, each query's messages wait in the socket's buffer, and uncorking writes them all at once.
  socket.cork();
  let sent: Promise<pg.QueryResult>[];
  try {
    sent = statements.map((s) => client.query(s.text, s.values));
  } finally {
    socket.uncork();
  }
  const settled = await Promise.allSettled(sent);
  const refused = settled.findIndex((r) => r.status === 'rejected');
  if (refused >= 0) {
    const error = (settled[refused] as PromiseRejectedResult).reason as unknown;
    throw statements[refused]!.refused?.(error) ?? error;
  }
  return settled.map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value);
}

async function getResourceRow(
  c: Queryable,
  typeName: string,
  identifier: string,
): Promise<ResourceRow | undefined> {
  const { rows } = await c.query<ResourceRow>(
    `SELECT ${RESOURCE_COLUMNS} FROM resources WHERE type_name = $1 AND identifier = $2`,
    [typeName, identifier],
  );
  return rows[0];
}

async function getOperationRow(c: Queryable, requestToken: string): Promise<OperationRow | undefined> {
  const { rows } = await c.query<OperationRow>(
    `SELECT ${OPERATION_COLUMNS} FROM operations WHERE request_token = $1`,
    [requestToken],
  );
  return rows[0];
}

async function countResources(c: Queryable, typeName: string): Promise<number> {
  const { rows } = await c.query<{ count: string }>(
    `SELECT COUNT(*) AS count FROM resources WHERE type_name = $1`,
    [typeName],
  );
  return Number(rows[0]?.count ?? 0);
}

async function referrers(
  c: Queryable,
  typeName: string,
  identifier: string,
  limit: number,
): Promise<ResourceKey[]> {
  const { rows } = await c.query<{ from_type: string; from_id: string }>(
    `SELECT from_type, from_id FROM resource_refs WHERE to_type = $1 AND to_id = $2
     ORDER BY from_type, from_id LIMIT $3`,
    [typeName, identifier, limit],
  );
  return rows.map((r) => ({ typeName: r.from_type, identifier: r.from_id }));
}

async function getActive(c: Queryable, typeName: string, identifier: string): Promise<string | undefined> {
  const { rows } = await c.query<{ request_token: string }>(
    `SELECT request_token FROM operations
     WHERE type_name = $1 AND identifier = $2 AND status IN ${ACTIVE_SQL} AND identifier IS NOT NULL`,
    [typeName, identifier],
  );
  return rows[0]?.request_token;
}

/** What begin and complete check, read in one statement (after the resource's lock is held). */
interface Seen {
  /** The client token was used before: the earlier operation, replayed or mismatched. */
  earlier?: BeginResult;
  /** The request token of the operation active on the resource. */
  active?: string;
  resource?: StoredResource;
  referrers: ResourceKey[];
  /** The type's default version, read when the operation was checked against it. */
  defaultVersion?: string;
}

/** The read begin and complete check, sent with BEGIN after the resource's lock (see `seenIn`). */
const INSPECTION = `SELECT
   (SELECT row_to_json(o) FROM (SELECT ${OPERATION_COLUMNS}, request_hash FROM operations
      WHERE client_token = $1) o) AS earlier,
   (SELECT request_token FROM operations
      WHERE type_name = $2 AND identifier = $3 AND status IN ${ACTIVE_SQL}) AS active,
   CASE WHEN $4 THEN (SELECT row_to_json(r) FROM (SELECT ${RESOURCE_COLUMNS} FROM resources
      WHERE type_name = $2 AND identifier = $3) r) END AS resource,
   CASE WHEN $5 THEN (SELECT json_agg(x) FROM (SELECT from_type, from_id FROM resource_refs
      WHERE to_type = $2 AND to_id = $3 ORDER BY from_type, from_id LIMIT 20) x) END AS referrers,
   CASE WHEN $6 THEN (SELECT version FROM types WHERE type_name = $2 ORDER BY seq DESC LIMIT 1)
      END AS default_version`;

function inspection(operation: OperationRecord, want: { resource: boolean; referrers: boolean }): Statement {
  return {
    text: INSPECTION,
    values: [
      operation.clientToken ?? null,
      operation.typeName,
      operation.identifier ?? null,
      want.resource && operation.identifier !== undefined,
      want.referrers && operation.identifier !== undefined,
      operation.checkedAgainstDefault !== undefined,
    ],
  };
}

function seenIn(result: pg.QueryResult, requestHash: string | null): Seen {
  const row = result.rows[0] as {
    earlier: TokenRow | null;
    active: string | null;
    resource: ResourceRow | null;
    referrers: { from_type: string; from_id: string }[] | null;
    default_version: string | null;
  };
  const seen: Seen = {
    referrers: (row.referrers ?? []).map((r) => ({ typeName: r.from_type, identifier: r.from_id })),
  };
  if (row.earlier)
    seen.earlier = {
      kind: row.earlier.request_hash === requestHash ? 'replayed' : 'token-mismatch',
      operation: toOperationRecord(row.earlier),
    };
  if (row.active !== null) seen.active = row.active;
  if (row.resource) seen.resource = toStoredResource(row.resource);
  if (row.default_version !== null) seen.defaultVersion = row.default_version;
  return seen;
}

/**
 * The type's lock, shared: taken before the row is made, so a deregistration waits for this commit.
 * NEW_RESOURCE for a resource that must be new (its key taken refuses the transaction), PUT_RESOURCE
 * for one that may be there.
 */
const NEW_RESOURCE = `INSERT INTO resources (${RESOURCE_WRITTEN})
  SELECT $1, $2, $3, $4, $5, $6, $7 FROM (SELECT pg_advisory_xact_lock_shared($8::bigint)) l`;
const PUT_RESOURCE = `${NEW_RESOURCE}
  ON CONFLICT (type_name, identifier) DO UPDATE SET properties_json = excluded.properties_json,
    sealed = excluded.sealed, updated_at = excluded.updated_at, type_version = excluded.type_version,
    observed_status = NULL, observed_since = NULL`;

/** NEW_RESOURCE's and PUT_RESOURCE's values for `resource`: its row, then its type's lock. */
function resourceValues(resource: StoredResource): unknown[] {
  return [...resourceParams(resource), typeLockNumber(resource.typeName)];
}

/**
 * The statements that apply an operation's resource change, to send with its COMMIT; what must be
 * checked first (a new resource's absence with `checkNew`, additional identifiers another resource
 * holds) is read here, in the operation's transaction.
 */
async function changeStatements(
  c: pg.PoolClient,
  operation: OperationRecord,
  change: ResourceChange | undefined,
  checkNew: boolean,
): Promise<Statement[]> {
  if (change?.kind === 'delete') {
    const key = [change.typeName, change.identifier];
    return [
      { text: `DELETE FROM resources WHERE type_name = $1 AND identifier = $2`, values: key },
      { text: `DELETE FROM resource_refs WHERE from_type = $1 AND from_id = $2`, values: key },
      { text: `DELETE FROM resource_identifiers WHERE type_name = $1 AND identifier = $2`, values: key },
    ];
  }
  if (change?.kind !== 'put') return [];
  const { resource } = change;
  if (
    checkNew &&
    operation.operation === 'CREATE' &&
    (await getResourceRow(c, resource.typeName, resource.identifier))
  ) {
    throw alreadyExists(resource);
  }
  const statements: Statement[] = [{ text: PUT_RESOURCE, values: resourceValues(resource) }];
  if (change.identifiers) statements.push(...(await identifierStatements(c, resource, change.identifiers)));
  if (change.references) {
    statements.push({
      text: `DELETE FROM resource_refs WHERE from_type = $1 AND from_id = $2`,
      values: [resource.typeName, resource.identifier],
    });
    if (change.references.length > 0) statements.push(insertReferences(resource, change.references));
  }
  return statements;
}

function insertReferences(resource: StoredResource, references: readonly ResourceKey[]): Statement {
  return {
    text: `INSERT INTO resource_refs (from_type, from_id, to_type, to_id)
       SELECT $1, $2, t, i FROM unnest($3::text[], $4::text[]) AS r(t, i) ON CONFLICT DO NOTHING`,
    values: [
      resource.typeName,
      resource.identifier,
      references.map((r) => r.typeName),
      references.map((r) => r.identifier),
    ],
  };
}

/**
 * The statements that replace a resource's additional identifiers. A value another resource holds is
 * refused: found here, or (two transactions racing for one value) by the primary key, whose violation
 * is the same refusal.
 */
async function identifierStatements(
  c: pg.PoolClient,
  resource: StoredResource,
  keys: readonly AdditionalIdentifier[],
): Promise<Statement[]> {
  for (const key of keys) {
    const holder = await findIdentifier(c, resource.typeName, key.name, key.value);
    if (holder !== undefined && holder !== resource.identifier)
      throw identifierTaken(resource.typeName, resource.identifier, key, holder);
  }
  return [
    {
      text: `DELETE FROM resource_identifiers WHERE type_name = $1 AND identifier = $2`,
      values: [resource.typeName, resource.identifier],
    },
    ...keys.map((key): Statement => ({
      text: `INSERT INTO resource_identifiers (type_name, name, value, identifier) VALUES ($1, $2, $3, $4)`,
      values: [resource.typeName, key.name, key.value, resource.identifier],
      refused: (error) =>
        (error as { code?: string }).code === '23505'
          ? identifierTaken(resource.typeName, resource.identifier, key, '(another resource)')
          : undefined,
    })),
  ];
}

async function findIdentifier(
  c: pg.Pool | pg.PoolClient,
  typeName: string,
  name: string,
  value: string,
): Promise<string | undefined> {
  const { rows } = await c.query<{ identifier: string }>(
    `SELECT identifier FROM resource_identifiers WHERE type_name = $1 AND name = $2 AND value = $3`,
    [typeName, name, value],
  );
  return rows[0]?.identifier;
}

// ---- Locks and keys ----

function resourceKey(typeName: string, identifier: string): string {
  // JSON: unambiguous for any names, and free of NUL, which PostgreSQL text cannot hold.
  return `typeplane:resource:${JSON.stringify([typeName, identifier])}`;
}

function typeKey(typeName: string): string {
  return `typeplane:type:${typeName}`;
}

function changeKey(change: ResourceChange | undefined): string | undefined {
  if (change?.kind === 'put') return resourceKey(change.resource.typeName, change.resource.identifier);
  if (change?.kind === 'delete') return resourceKey(change.typeName, change.identifier);
  return undefined;
}

/** A completeOperation waiting for its turn's transaction. */
interface Completing {
  operation: OperationRecord;
  requestHash: string | undefined;
  decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion;
  resolve: (result: BeginResult) => void;
  reject: (error: unknown) => void;
}

/** A create decided as if its resource did not exist: what completeNew writes. */
interface NewResource {
  outcome: Completion & { status: 'SUCCESS'; change: Extract<ResourceChange, { kind: 'put' }> };
  record: OperationRecord;
}

/**
 * A create's decision when nothing is there yet, if it makes a resource whose writes need no reading
 * first (no additional identifiers, whose holders are looked up); otherwise undefined.
 */
function newResourceOf({ operation, decide }: Completing): NewResource | undefined {
  if (operation.operation !== 'CREATE' || operation.identifier === undefined) return undefined;
  let outcome: Completion;
  try {
    outcome = decide(undefined, []);
  } catch {
    return undefined;
  }
  if (
    outcome.status !== 'SUCCESS' ||
    outcome.change.kind !== 'put' ||
    outcome.change.identifiers !== undefined ||
    outcome.change.resource.identifier !== operation.identifier ||
    outcome.change.resource.typeName !== operation.typeName
  )
    return undefined;
  return {
    outcome: outcome as NewResource['outcome'],
    record: completed(operation, outcome),
  };
}

/**
 * One row of NEW_CREATES's JSON, by column name: every column of an operation's row (the type says
 * none is missing: json_to_recordset would read a missing one as NULL), then the resource's.
 */
type NewCreateRow = Record<(typeof INSERT_COLUMNS)[number], unknown> & {
  checked: string | null;
  type_lock: string;
  properties_json: string;
  sealed: string | null;
  created_at: string;
  updated_at: string;
  type_version: string | null;
};

/** The columns of an operation's row that are not text (json_to_recordset's column list). */
const NOT_TEXT: Partial<Record<(typeof INSERT_COLUMNS)[number], string>> = { attempts: 'integer' };

/**
 * New resources' creates in one statement (see completeNew). $1: a JSON array of rows, each the
 * default version its request was checked against (`checked`, null when none), its type's lock
 * number, its operation's columns (INSERT_OPERATION's) and its resource's (NEW_RESOURCE's); $2: the
 * change log's lock. `free` refuses the whole statement (a division by zero) when an operation is in
 * progress on one of the resources or a default version checked against has moved; both writes read
 * it, so neither happens then. One statement for the batch, not one per create: parsed once per
 * connection (PreparingClient), bound, run and answered once.
 */
const NEW_CREATES = `WITH r AS MATERIALIZED (SELECT * FROM json_to_recordset($1::json) AS r(
    checked text, type_lock bigint,
    ${INSERT_COLUMNS.map((c) => `${c} ${NOT_TEXT[c] ?? 'text'}`).join(', ')},
    properties_json text, sealed text, created_at text, updated_at text, type_version text)),
  free AS MATERIALIZED (SELECT 1 / (CASE WHEN EXISTS (SELECT 1 FROM r JOIN operations o
      ON o.type_name = r.type_name AND o.identifier = r.identifier AND o.status IN ${ACTIVE_SQL})
    OR EXISTS (SELECT 1 FROM r WHERE r.checked IS NOT NULL AND r.checked IS DISTINCT FROM
      (SELECT version FROM types WHERE type_name = r.type_name ORDER BY seq DESC LIMIT 1))
    THEN 0 ELSE 1 END) AS ok),
  op AS (INSERT INTO operations (${INSERT_COLUMNS.join(', ')})
    SELECT ${INSERT_COLUMNS.map((c) => `r.${c}`).join(', ')}
    FROM r, free, (SELECT pg_advisory_xact_lock_shared($2::bigint)) changes_lock WHERE free.ok = 1 RETURNING 1)
  INSERT INTO resources (${RESOURCE_WRITTEN})
    SELECT ${RESOURCE_WRITTEN.split(', ')
      .map((c) => `r.${c}`)
      .join(', ')}
    FROM r CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock_shared(r.type_lock)) l, free WHERE free.ok = 1`;

/** Completions in one transaction at most: its locks and inspections grow with them. */
const MAX_COMPLETIONS_TOGETHER = 64;

/** The operation as its completion leaves it. */
function completed(operation: OperationRecord, outcome: Completion): OperationRecord {
  const record: OperationRecord = { ...operation, status: outcome.status };
  if (outcome.status === 'FAILED') {
    record.errorCode = outcome.errorCode;
    record.statusMessage = outcome.statusMessage;
  } else if (outcome.resourceModel) {
    record.resourceModel = outcome.resourceModel;
  }
  return record;
}

/**
 * The locks begin and complete take: the resource's; and the type's, shared, when the operation may
 * begin only under the default version it was checked against, so that a new default version is
 * made either before (the check below sees it) or after (its own check sees this operation).
 */
function operationLocks(operation: OperationRecord): [string | undefined, string | undefined] {
  return [
    operationKey(operation),
    operation.checkedAgainstDefault === undefined ? undefined : operation.typeName,
  ];
}

/** Every lock of a batch of operations: the keys locked exclusively, and the types locked shared. */
function batchLocks(operations: readonly OperationRecord[]): [string[], string[]] {
  const keys: string[] = [];
  const types: string[] = [];
  for (const operation of operations) {
    const [key, type] = operationLocks(operation);
    if (key !== undefined) keys.push(key);
    if (type !== undefined) types.push(type);
  }
  return [keys, types];
}

/** What a completion's decision reads, sent with its BEGIN. */
function completionInspection(operation: OperationRecord): Statement {
  return inspection(operation, { resource: true, referrers: operation.operation === 'DELETE' });
}

function checkDefault(operation: OperationRecord, seen: Seen): void {
  const checked = operation.checkedAgainstDefault;
  if (checked !== undefined && seen.defaultVersion !== checked)
    throw new DefaultVersionMoved(operation.typeName, checked, seen.defaultVersion);
}

/** Refuses (TypeChangedMeanwhile) when `expected` no longer holds; under the type's lock. */
async function checkExpected(
  c: pg.PoolClient,
  typeName: string,
  expected: TypeVersionExpectation | undefined,
): Promise<void> {
  if (!expected) return;
  const { rows } = await c.query<{ current: string | null }>(
    `SELECT version AS current FROM types WHERE type_name = $1 ORDER BY seq DESC LIMIT 1`,
    [typeName],
  );
  const usage = expected.unused ? await typeUsage(c, typeName) : undefined;
  const unmet = unmetExpectation(expected, rows[0]?.current ?? undefined, usage);
  if (unmet !== undefined) throw new TypeChangedMeanwhile(typeName, unmet);
}

async function typeUsage(c: Queryable, typeName: string): Promise<TypeUsage> {
  const { rows } = await c.query<{ resources: string; active: string }>(TYPE_USAGE('$1'), [typeName]);
  return { resources: Number(rows[0]?.resources ?? 0), activeOperations: Number(rows[0]?.active ?? 0) };
}

function operationKey(operation: OperationRecord): string | undefined {
  return operation.identifier === undefined
    ? undefined
    : resourceKey(operation.typeName, operation.identifier);
}

/**
 * The advisory-lock number of `key`: the first 64 bits of its SHA-256, as a signed integer literal.
 * Computed here so that it can go into a simple query with BEGIN (one round trip).
 */
function lockNumber(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest().readBigInt64BE(0).toString();
}

const typeLockNumbers = new Map<string, string>();

/** The lock number of a type's key, computed once: every create takes that lock (shared), twice. */
function typeLockNumber(typeName: string): string {
  let n = typeLockNumbers.get(typeName);
  if (n === undefined) typeLockNumbers.set(typeName, (n = lockNumber(typeKey(typeName))));
  return n;
}

// ---- Parameters ----

/**
 * PostgreSQL text cannot hold U+0000, which a provider's status message might: shown as U+FFFD
 * instead of failing the write. (JSON columns escape it; keys never hold it: the API refuses it.)
 */
function storable(params: OperationParams): OperationParams {
  const message = params.status_message;
  return message !== null && message.includes('\u0000')
    ? { ...params, status_message: message.replaceAll('\u0000', '\uFFFD') }
    : params;
}

/** An operation's row as INSERT_OPERATION and NEW_CREATES write it, by column. */
function operationRow(
  params: OperationParams,
  requestHash: string | null,
  leaseOwner: string | null,
  leaseUntil: string | null,
  resourceChange: string | null = null,
): Record<(typeof INSERT_COLUMNS)[number], unknown> {
  return withMembers(storable(params), {
    request_hash: requestHash,
    lease_owner: leaseOwner,
    lease_until: leaseUntil,
    resource_change: resourceChange,
  });
}

/**
 * The row of an operation completed in its first transaction: no lease, and the resource change it
 * made if it succeeded. One for both writers of such rows (insertCompleted, completeNew's batch).
 */
function completedRow(
  record: OperationRecord,
  requestHash: string | undefined,
  outcome: Completion,
): ReturnType<typeof operationRow> {
  return operationRow(
    operationParams(record),
    requestHash ?? null,
    null,
    null,
    outcome.status === 'SUCCESS' ? resourceChangeOf(outcome.change) : null,
  );
}

function insertValues(
  params: OperationParams,
  requestHash: string | null,
  leaseOwner: string | null,
  leaseUntil: string | null,
  changesLock: string,
): unknown[] {
  return insertRowValues(operationRow(params, requestHash, leaseOwner, leaseUntil), changesLock);
}

/** INSERT_OPERATION's values for `row`. */
function insertRowValues(row: ReturnType<typeof operationRow>, changesLock: string): unknown[] {
  return [...INSERT_COLUMNS.map((c) => row[c]), changesLock];
}

/** SAVE_OPERATION's values; FINISH_OPERATION's with the resource change it records (`finished`). */
function updateValues(
  params: OperationParams,
  owner: string | undefined,
  changesLock: string,
  ...finished: [resourceChange: string | null] | []
): unknown[] {
  const row = storable(params);
  return [row.request_token, ...UPDATE_COLUMNS.map((c) => row[c]), owner ?? null, changesLock, ...finished];
}

// ---- Errors ----

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e !== null && typeof e === 'object' && e.code === '23505' && e.constraint === constraint;
}

/** The one-active-operation-per-resource index refused a row. */
function isActiveConflict(error: unknown): boolean {
  return isUniqueViolation(error, 'operations_one_active');
}

/**
 * One conditional write (kvCommit's, kvInsert's, kvSwap's) as a statement that changes one row when
 * its condition holds (an expectation: that answers one row when it holds); none for nothing to write.
 */
function kvWriteStatement({ namespace, key, entry, base, expect }: KvWrite): Statement | undefined {
  // Not locked: a writer that changes the entry right after is as one that changed it right before.
  if (expect === null)
    return {
      text: `SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM kv WHERE namespace = $1 AND key = $2)`,
      values: [namespace, key],
    };
  if (expect !== undefined)
    return {
      text: `SELECT 1 FROM kv WHERE namespace = $1 AND key = $2 AND written_by = $3`,
      values: [namespace, key, expect],
    };
  if (base === undefined)
    return (
      entry && {
        text: `INSERT INTO kv (namespace, key, value_json, written_by) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        values: [namespace, key, JSON.stringify(entry.value), entry.writtenBy],
      }
    );
  if (entry)
    return {
      text: `UPDATE kv SET value_json = $1, written_by = $2 WHERE namespace = $3 AND key = $4 AND written_by = $5`,
      values: [JSON.stringify(entry.value), entry.writtenBy, namespace, key, base],
    };
  return {
    text: `DELETE FROM kv WHERE namespace = $1 AND key = $2 AND written_by = $3`,
    values: [namespace, key, base],
  };
}

/**
 * Kv writes as statements, in key order: two transactions that share keys lock their rows in one
 * order, and never deadlock. A deletion of nothing (no entry, no base) is no statement.
 */
function inKeyOrder(writes: readonly KvWrite[]): { write: KvWrite; statement: Statement }[] {
  return writes
    .map((write) => ({ write, statement: kvWriteStatement(write) }))
    .filter((w): w is { write: KvWrite; statement: Statement } => w.statement !== undefined)
    .sort((a, b) => compareKeys(a.write, b.write));
}

/** Sends the kv writes together (one round trip), in a transaction: KvConflict when one did not hold. */
async function sendKvWrites(
  client: pg.PoolClient,
  ordered: readonly { write: KvWrite; statement: Statement }[],
): Promise<void> {
  const results = await sendTogether(
    client,
    ordered.map((w) => w.statement),
  );
  ordered.forEach(({ write }, i) => {
    if ((results[i]!.rowCount ?? 0) === 0) throw new KvConflict(write);
  });
}

function compareKeys(a: KvKey, b: KvKey): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
