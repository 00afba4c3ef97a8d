/**
 * @module The embedded store: one SQLite file (better-sqlite3), shareable by several processes.
 *
 * WAL journal, `synchronous = NORMAL`, foreign keys on, a busy timeout so writers queue instead of
 * failing. Every change of more than one statement is one IMMEDIATE transaction: it takes the write
 * lock when it begins, so a read-then-write (the token and conflict checks of beginOperation, the
 * select-and-lease of claimOperations) cannot interleave with another process's.
 *
 * Times are stored as `toISOString()` text, so they compare as strings. better-sqlite3 is
 * synchronous; the methods are `async` only to meet the interface (errors become rejections).
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { checkLimit, decodeCursor, encodeCursor } from '../cursor.js';
import {
  ACTIVE,
  ACTIVE_WHERE,
  OPERATION_COLUMNS,
  activeConflict,
  alreadyExists,
  ACTIVE_TYPES_SQL,
  dueSql,
  fairlyChosen,
  flowRoomFor,
  roomFor,
  withinAllowance,
  ACTIVE_REQUESTERS_SQL,
  identifierTaken,
  expireOperationsSql,
  expiredSql,
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
  unmetExpectation,
  type GuardedParams,
  type KvRow,
  type OperationParams,
  type OperationRow,
  type ResourceRow,
  type TokenRow,
  type TypeRow,
  startedAs,
  activeCountsSql,
  changesSql,
  raiseHorizonSql,
  resourceChangeOf,
  toChange,
  type ChangeRow,
  toActiveOperationCount,
  toClaimedOperation,
  type ActiveCountRow,
  type ClaimableRow,
  KvConflict,
  CompletionRefused,
  assertDistinctResources,
} from '../rows.js';
import {
  DefaultVersionMoved,
  OperationMovedOn,
  TypeChangedMeanwhile,
  type ActiveOperationCount,
  type ChangePage,
  type ClaimedOperation,
  type StoreObserver,
  type StoreStats,
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
  type Page,
  type ResourcePage,
  type ResourceChange,
  type ResourceKey,
  type Store,
  type StoredResource,
  type StoredType,
} from '../types.js';
import { MIGRATIONS, migrate } from './migrations.js';
import type { AuditChainHead, AuditEntry, AuditFilter, AuditLink } from '../types.js';
import { SqliteAuditTrail } from './audit.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { ClientTokens, INDEX_EVERY_MS, INDEXED_TOKEN_SQL } from './client-tokens.js';
import { FLUSH_EVERY_MS, ResourceCounts } from './resource-counts.js';
import { ReadBatch } from './read-batch.js';
import type { SpanContext } from '@opentelemetry/api';
import { activeSpanContext, inGroupSpan } from '../../telemetry/spans.js';

export interface SqliteStoreOptions {
  /** How long a statement waits for another connection's write lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Group commits after which the background checkpointer starts (default 100; a store that is
   * hardly written never starts a thread for it).
   */
  checkpointerAfter?: number;
  /** Told how long each group commit took. */
  observer?: StoreObserver;
  /** Client tokens held in memory before a batch indexes them (default INDEX_AFTER; client-tokens.ts). */
  clientTokenBatch?: number;
}

/** Open (creating if needed) the SQLite store at `path`. */
/**
 * The database holds every resource's properties: readable by its owner only, like the secret key.
 * `create` makes the file when it is missing (mode 0600); an existing one is set to 0600.
 */
function ownerOnly(path: string, create: boolean): void {
  try {
    if (create) closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
  } catch (error) {
    if (!create && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
}

export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  return SqliteStore.open(path, options);
}

export class SqliteStore implements Store {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly sql;
  private readonly tx;
  /** The client tokens not yet in the token index, and the batches that index them (client-tokens.ts). */
  private readonly tokens: ClientTokens;
  /** The resource counts' changes held in memory between flushes (resource-counts.ts). */
  private readonly counts: ResourceCounts;
  private flushingCounts = false;
  private indexing = false;
  private indexTimer: NodeJS.Timeout | undefined;
  private countsTimer: NodeJS.Timeout | undefined;
  /** Group commits still to go before the checkpointer starts; undefined for a store in memory. */
  private commitsBeforeCheckpointer: number | undefined;
  private checkpointer: Checkpointer | undefined;
  private readonly observer: StoreObserver | undefined;
  /** listOperations statements, one per combination of filters present. */
  /** Default versions read inside group transactions (see defaultVersion). */
  private readonly defaults = new Map<string, string | undefined>();
  private dataVersion = -1;
  /** Whether data_version was read in the current group (only groups that check a default read it). */
  private defaultsSynced = false;
  /** lookAllSqlOf's statements, by how many lookups they read. */
  private readonly lookAllSql: Database.Statement<[(string | null)[]], LookBeforeRow>[] = [];
  /** kvStampsOf's statements, by how many stamps they read. */
  private readonly kvStampsSql: Database.Statement<[string[]], (string | null)[]>[] = [];
  private readonly listOperationsSql = new Map<
    string,
    Database.Statement<[Record<string, unknown>], OperationRow>
  >();

  /** Open (creating if needed) the store at `path`; `':memory:'` for a private in-memory one. */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    return new SqliteStore(path, options);
  }

  private constructor(path: string, options: SqliteStoreOptions) {
    const inMemory = path === ':memory:' || path === '';
    this.path = inMemory ? path : resolve(path);
    if (!inMemory) {
      mkdirSync(dirname(this.path), { recursive: true });
      ownerOnly(this.path, true);
    }
    const db = new Database(this.path);
    try {
      db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      db.pragma('journal_mode = WAL');
      // SQLite gives the WAL and its index the database's mode; files made before it was 0600 are fixed.
      if (!inMemory) for (const suffix of ['-wal', '-shm']) ownerOnly(this.path + suffix, false);
      db.pragma('synchronous = NORMAL');
      // Checkpoint every 4,000 WAL pages (16 MiB) instead of 1,000: the index leaves that consecutive
      // writes keep touching are copied to the database once per checkpoint, not four times, and the
      // checkpoint's fsyncs come a quarter as often (measured: 15–25% less time per create).
      db.pragma('wal_autocheckpoint = 4000');
      // A WAL that grew past that while readers held it back is cut back to 64 MiB once it is reset.
      db.pragma('journal_size_limit = 67108864');
      // Index pages of a busy store stay in memory (the default is 2 MiB): fewer reads per write.
      db.pragma('cache_size = -32768');
      db.pragma('foreign_keys = ON');
      // Temporary b-trees (a sort no index serves) in memory whatever the build's default, never a file.
      db.pragma('temp_store = MEMORY');
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
    this.db = db;
    // Before the statements: those reading counts read this connection's deltas too.
    this.counts = new ResourceCounts(db);
    this.sql = prepareStatements(db);
    this.tokens = new ClientTokens(db, options.clientTokenBatch);
    this.tx = this.transactions();
    this.indexTokensEvery();
    this.flushCountsEvery();
    this.commitsBeforeCheckpointer = inMemory ? undefined : Math.max(0, options.checkpointerAfter ?? 100);
    this.observer = options.observer;
  }

  // ---- Types ----

  async putType(type: StoredType): Promise<void> {
    this.typesWrite(() =>
      this.sql.putType.run(
        type.typeName,
        type.version,
        JSON.stringify(type.model),
        type.source,
        isoTime(type.registeredAt, 'registeredAt'),
      ),
    );
  }

  async getType(typeName: string, version?: string): Promise<StoredType | undefined> {
    const row =
      version === undefined
        ? this.sql.getLatestType.get(typeName)
        : this.sql.getTypeVersion.get(typeName, version);
    return row && toStoredType(row);
  }

  async getTypeStamp(typeName: string): Promise<{ version: string; registeredAt: string } | undefined> {
    const row = this.sql.getTypeStamp.get(typeName);
    return row && { version: row.version, registeredAt: row.registered_at };
  }

  /** Every version of the type, in registration order (the last one is the default). */
  async listTypeVersions(typeName: string): Promise<StoredType[]> {
    return this.sql.listTypeVersions.all(typeName).map(toStoredType);
  }

  async listTypes(): Promise<StoredType[]> {
    return this.sql.listLatestTypes.all().map(toStoredType);
  }

  async listTypeStamps(): Promise<{ typeName: string; version: string; registeredAt: string }[]> {
    return this.sql.listTypeStamps
      .all()
      .map((r) => ({ typeName: r.type_name, version: r.version, registeredAt: r.registered_at }));
  }

  async deleteType(typeName: string): Promise<boolean> {
    return this.typesWrite(() => this.tx.deleteType.immediate(typeName));
  }

  async addTypeVersion(
    type: Omit<StoredType, 'version'>,
    expected?: TypeVersionExpectation,
  ): Promise<StoredType> {
    return this.typesWrite(() => this.tx.addTypeVersion.immediate(type, expected));
  }

  async addTypeVersions(entries: readonly TypeVersionEntry[]): Promise<StoredType[]> {
    return this.typesWrite(() => this.tx.addTypeVersions.immediate(entries));
  }

  async setDefaultTypeVersion(
    typeName: string,
    version: string,
    expected?: TypeVersionExpectation,
  ): Promise<boolean> {
    return this.typesWrite(() => this.tx.setDefaultTypeVersion.immediate(typeName, version, expected));
  }

  async deleteTypeVersion(typeName: string, version: string): Promise<boolean> {
    return this.typesWrite(() => this.tx.deleteTypeVersion.immediate(typeName, version));
  }

  async countResourcesByVersion(typeName: string): Promise<Record<string, number>> {
    const byVersion = this.counts.pendingByVersion(typeName);
    for (const row of this.sql.countResourcesByVersion.all(typeName))
      byVersion.set(row.type_version, (byVersion.get(row.type_version) ?? 0) + row.count);
    const counts: Record<string, number> = {};
    for (const [version, count] of [...byVersion].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      if (version !== '' && count > 0) counts[version] = count;
    return counts;
  }

  // ---- Resource index ----

  async getResource(typeName: string, identifier: string): Promise<StoredResource | undefined> {
    const row = await this.reads.run(() => this.sql.getResourceRaw.get(typeName, identifier));
    return row && toStoredResource(resourceRowOf(row));
  }

  getResourceJson(typeName: string, identifier: string): Promise<string | undefined> {
    return this.reads.run(() => this.sql.getResourceJson.get(typeName, identifier));
  }

  async listResources(
    typeName: string,
    options: { limit: number; nextToken?: string; maxBytes?: number },
  ): Promise<ResourcePage> {
    checkLimit(options.limit);
    const after = decodeCursor('resources', options.nextToken);
    // Iterated, so the rows past a full page are never read.
    const rows =
      after === undefined
        ? this.sql.listResourcesFirst.iterate(typeName, options.limit + 1)
        : this.sql.listResourcesAfter.iterate(typeName, after, options.limit + 1);
    return resourcePage(
      rows,
      options.limit,
      (last) => encodeCursor('resources', last.identifier),
      pageBytes(options.maxBytes),
    );
  }

  async observeResource(
    typeName: string,
    identifier: string,
    updatedAt: string,
    observed: Observation | undefined,
  ): Promise<boolean> {
    const { changes } = this.sql.observeResource.run(
      observed?.status ?? null,
      observed ? isoTime(observed.since, 'since') : null,
      typeName,
      identifier,
      updatedAt,
    );
    return changes > 0;
  }

  async findByIdentifier(typeName: string, name: string, value: string): Promise<string | undefined> {
    return (await this.reads.run(() => this.sql.findByIdentifier.get(typeName, name, value)))?.identifier;
  }

  async countResources(typeName: string): Promise<number> {
    return this.resourcesOf(typeName);
  }

  /** The resources of `typeName`: the file's count and this connection's changes not applied yet. */
  private resourcesOf(typeName: string): number {
    return (this.sql.countResources.get(typeName)?.count ?? 0) + this.counts.pending(typeName);
  }

  async typeUsage(typeName: string): Promise<TypeUsage> {
    return this.readUsage(typeName);
  }

  private readUsage(typeName: string): TypeUsage {
    const row = this.sql.typeUsage.get({ typeName });
    return {
      resources: (row?.resources ?? 0) + this.counts.pending(typeName),
      activeOperations: row?.active ?? 0,
    };
  }

  /** Refuses (TypeChangedMeanwhile) when `expected` no longer holds; inside a transaction. */
  private checkExpected(typeName: string, expected: TypeVersionExpectation | undefined): void {
    if (!expected) return;
    const current = this.sql.getTypeStamp.get(typeName)?.version;
    const unmet = unmetExpectation(expected, current, expected.unused ? this.readUsage(typeName) : undefined);
    if (unmet !== undefined) throw new TypeChangedMeanwhile(typeName, unmet);
  }

  /** Refuses (DefaultVersionMoved) an operation checked against a default version that is no longer it. */
  private checkDefault(operation: OperationRecord): void {
    const checked = operation.checkedAgainstDefault;
    if (checked === undefined) return;
    const current = this.defaultVersion(operation.typeName);
    if (current !== checked) throw new DefaultVersionMoved(operation.typeName, checked, current);
  }

  /**
   * A type's default version, inside a group transaction: from memory while no other connection has
   * committed since it was read (data_version, checked once per group) and this one has written no
   * type (every type write clears it). Most begins are checked against the default: one read less each.
   */
  private defaultVersion(typeName: string): string | undefined {
    if (!this.defaultsSynced) this.syncDefaults();
    if (this.defaults.has(typeName)) return this.defaults.get(typeName);
    const version = this.sql.getTypeStamp.get(typeName)?.version;
    this.defaults.set(typeName, version);
    return version;
  }

  /**
   * Once per group, when another connection committed since: forgets the default versions read, and
   * reads in the client tokens it used (client-tokens.ts).
   */
  private syncDefaults(): void {
    this.defaultsSynced = true;
    this.syncWithOthers();
  }

  private syncWithOthers(): void {
    const version = this.sql.dataVersion.get() as number;
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.defaults.clear();
      this.tokens.othersCommitted();
      this.counts.othersCommitted();
    }
  }

  /** Runs a write to the types table; the default versions in memory are forgotten either way. */
  private typesWrite<T>(write: () => T): T {
    // A type deleted drops its counts' changes held (dropType): a rollback keeps them.
    const counted = this.counts.mark();
    try {
      const written = write();
      this.counts.committed();
      return written;
    } catch (error) {
      this.counts.undo(counted);
      throw error;
    } finally {
      this.defaults.clear();
    }
  }

  async listReferences(typeName: string, identifier: string): Promise<ResourceKey[]> {
    return this.sql.refsFrom
      .all(typeName, identifier)
      .map((r) => ({ typeName: r.to_type, identifier: r.to_id }));
  }

  async listReferrers(typeName: string, identifier: string, limit: number): Promise<ResourceKey[]> {
    return this.sql.refsTo
      .all(typeName, identifier, limit)
      .map((r) => ({ typeName: r.from_type, identifier: r.from_id }));
  }

  // ---- Operations ----

  async beginOperation(
    operation: OperationRecord,
    requestHash?: string,
    lease?: { owner: string; until: Date },
    precondition?: (current: StoredResource | undefined) => void,
  ): Promise<BeginResult> {
    const params = operationParams(operation);
    try {
      return await this.grouped(true, () =>
        this.tx.begin(operation, params, requestHash ?? null, lease ?? null, precondition),
      );
    } catch (error) {
      return this.activeConflictOr(error, operation);
    }
  }

  completeOperation(
    operation: OperationRecord,
    requestHash: string | undefined,
    decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion,
  ): Promise<BeginResult> {
    // No async function of its own: every create of a record-backed type comes through here.
    return this.grouped(true, () => this.tx.complete(operation, requestHash ?? null, decide)).catch(
      (error: unknown) => this.activeConflictOr(error, operation),
    );
  }

  async completeAll(
    completions: readonly CompletionRequest[],
    kv: readonly KvWrite[],
  ): Promise<AllCompleted> {
    const lead = completions[0];
    if (!lead) throw new Error('completeAll needs at least one completion');
    assertDistinctResources(completions);
    try {
      // One atomic piece: a refusal throws, and its savepoint undoes everything before it.
      return await this.grouped(true, (): AllCompleted => {
        const looked = this.lookAllBefore(completions);
        const first = this.tx.complete(lead.operation, lead.requestHash ?? null, lead.decide, looked?.[0]);
        if (first.kind !== 'started' || first.operation.status !== 'SUCCESS') return first;
        for (let i = 1; i < completions.length; i++) {
          const { operation, requestHash, decide } = completions[i]!;
          const result = this.tx.complete(operation, requestHash ?? null, decide, looked?.[i]);
          if (result.kind !== 'started' || result.operation.status !== 'SUCCESS')
            throw new CompletionRefused(i, result);
        }
        const unmet = this.kvWriteAll(kv);
        if (unmet) throw new KvConflict(unmet);
        return first;
      });
    } catch (error) {
      if (error instanceof CompletionRefused)
        return { kind: 'refused', index: error.index, result: error.result };
      if (error instanceof KvConflict)
        return { kind: 'refused', key: { namespace: error.namespace, key: error.key } };
      return this.activeConflictOr(error, lead.operation);
    }
  }

  /**
   * The operation in progress that `error` (the one-active-operation index refusing an insert) stood
   * for, as a conflict; `error` itself, thrown, when it is not that.
   */
  private activeConflictOr(error: unknown, operation: OperationRecord): BeginResult {
    // The IMMEDIATE transaction already serialises the check and the insert; the index is the backstop.
    if (isActiveConflict(error) && operation.identifier !== undefined) {
      const active = this.sql.getActive.get(operation.typeName, operation.identifier);
      if (active) return { kind: 'conflict', activeRequestToken: active.request_token };
    }
    throw error;
  }

  /** Updates the state; `typeName`, `operation`, `startedAt`, `clientToken` are fixed at begin. The lease is kept. */
  async saveOperation(operation: OperationRecord, owner?: string): Promise<void> {
    let changes: number;
    try {
      changes = await this.grouped(false, () => {
        this.changed = true;
        // Added to the fresh parameters, not spread with them: see src/members.ts.
        return this.sql.saveOperation.run(Object.assign(operationParams(operation), { owner: owner ?? null }))
          .changes;
      });
    } catch (error) {
      throw isActiveConflict(error) ? activeConflict(operation) : error;
    }
    if (changes === 0) throw this.notWritten(operation.requestToken);
  }

  /** Why a guarded write changed nothing: the operation moved on, or it does not exist. */
  private notWritten(requestToken: string): Error {
    return this.sql.getOperation.get(requestToken)
      ? new OperationMovedOn(requestToken)
      : missingOperation(requestToken);
  }

  /** Updates the state as saveOperation does, drops the lease, and applies `change`, all or nothing. */
  async finishOperation(operation: OperationRecord, change?: ResourceChange, owner?: string): Promise<void> {
    try {
      await this.grouped(true, () =>
        this.tx.finish(
          operation,
          Object.assign(operationParams(operation), {
            owner: owner ?? null,
            resource_change: resourceChangeOf(change),
          }),
          change,
        ),
      );
    } catch (error) {
      throw isActiveConflict(error) ? activeConflict(operation) : error;
    }
  }

  async getOperation(requestToken: string): Promise<OperationRecord | undefined> {
    const row = await this.reads.run(() => this.sql.getOperation.get(requestToken));
    return row && toOperationRecord(row);
  }

  async getOperationByClientToken(
    clientToken: string,
  ): Promise<{ operation: OperationRecord; requestHash: string | null } | undefined> {
    // Outside a group: what other processes committed is read in first.
    this.syncWithOthers();
    const row = this.tokenRow(clientToken);
    return row && { operation: toOperationRecord(row), requestHash: row.request_hash };
  }

  /**
   * Newest first (by start order). An absent or empty filter list matches everything. The cursor is
   * the start order of the last operation returned, so operations started meanwhile never shift a page.
   */
  async listOperations(
    filter: OperationFilter,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<OperationRecord>> {
    checkLimit(options.limit);
    const before = decodeCursor('operations', options.nextToken);
    const params: Record<string, unknown> = { limit: options.limit + 1 };
    const where: string[] = [];
    if (filter.typeName !== undefined) {
      where.push('type_name = @typeName');
      params.typeName = filter.typeName;
    }
    if (filter.identifier !== undefined) {
      where.push('identifier = @identifier');
      params.identifier = filter.identifier;
    }
    if (filter.operation !== undefined && filter.operation.length > 0) {
      where.push('operation IN (SELECT value FROM json_each(@operations))');
      params.operations = JSON.stringify(filter.operation);
    }
    if (filter.status !== undefined && filter.status.length > 0) {
      where.push('status IN (SELECT value FROM json_each(@statuses))');
      params.statuses = JSON.stringify(filter.status);
    }
    if (before !== undefined) {
      where.push('seq < @before');
      params.before = before;
    }
    const sql = `SELECT ${OPERATION_COLUMNS} FROM operations ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY seq DESC LIMIT @limit`;
    let statement = this.listOperationsSql.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<Record<string, unknown>, OperationRow>(sql);
      this.listOperationsSql.set(sql, statement);
    }
    const rows = statement.all(params);
    const result = page(rows, options.limit, (last) => encodeCursor('operations', last.seq));
    return { ...result, items: result.items.map(toOperationRecord) };
  }

  /** Oldest due first. */
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
    return this.tx.claim.immediate(owner, at, until, Math.trunc(limit), allowance);
  }

  async countActiveOperations(now: Date): Promise<ActiveOperationCount[]> {
    const at = now.toISOString();
    return this.sql.activeCounts.all(at, at).map(toActiveOperationCount);
  }

  stats(): StoreStats {
    if (this.path === ':memory:' || this.path === '') return {};
    return {
      walBytes: statSync(`${this.path}-wal`, { throwIfNoEntry: false })?.size ?? 0,
      checkpoints: this.checkpointer?.passes() ?? 0,
    };
  }

  /**
   * Succeeds while `owner` is still the lease holder, even if the lease ran out (as long as nobody
   * claimed the operation meanwhile). A lease of 0 ms (or less) releases the operation.
   */
  async renewLease(requestToken: string, owner: string, now: Date, leaseMs: number): Promise<boolean> {
    if (leaseMs <= 0) return this.sql.releaseLease.run(requestToken, owner).changes > 0;
    const until = new Date(now.getTime() + leaseMs).toISOString();
    return this.sql.renewLease.run(until, requestToken, owner).changes > 0;
  }

  /**
   * Removes terminal operations whose last status change is before `before`, and with them their
   * client tokens; returns how many operations went.
   */
  async expireTokens(before: Date): Promise<number> {
    const { count, tokens } = this.tx.expire.immediate(before.toISOString());
    this.tokens.forget(tokens);
    return count;
  }

  // ---- Change log ----

  /** Read in one transaction: the page, the horizon and the latest version agree. */
  async readChanges(after: number, limit: number): Promise<ChangePage> {
    checkLimit(limit);
    return this.tx.changes.deferred(after, limit);
  }

  async latestVersion(): Promise<number> {
    return this.sql.latestVersion.get()!;
  }

  private readonly changeListeners = new Set<() => void>();
  /** A group wrote an operation: the listeners are told once it commits. */
  private changed = false;

  onChanges(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  // ---- Provider state ----

  async kvGet(namespace: string, key: string): Promise<KvEntry | undefined> {
    const row = await this.reads.run(() => this.sql.kvGet.get(namespace, key));
    return row && toKvEntry(row);
  }

  async kvStamp(namespace: string, key: string): Promise<string | undefined> {
    return (await this.reads.run(() => this.sql.kvStamp.get(namespace, key)))?.written_by;
  }

  async kvInsert(namespace: string, key: string, entry: KvEntry): Promise<boolean> {
    const value = JSON.stringify(entry.value);
    return this.grouped(
      false,
      () => this.sql.kvInsert.run(namespace, key, value, entry.writtenBy).changes > 0,
    );
  }

  async kvReplace(namespace: string, key: string, entry: KvEntry): Promise<boolean> {
    const value = JSON.stringify(entry.value);
    return this.grouped(
      false,
      () => this.sql.kvReplace.run(value, entry.writtenBy, namespace, key).changes > 0,
    );
  }

  async kvSwap(namespace: string, key: string, entry: KvEntry, expectedWrittenBy: string): Promise<boolean> {
    const value = JSON.stringify(entry.value);
    return this.grouped(
      false,
      () => this.sql.kvSwap.run(value, entry.writtenBy, namespace, key, expectedWrittenBy).changes > 0,
    );
  }

  async kvDelete(namespace: string, key: string): Promise<boolean> {
    return this.grouped(false, () => this.sql.kvDelete.run(namespace, key).changes > 0);
  }

  kvCommit(writes: readonly KvWrite[]): Promise<KvKey | undefined> {
    if (writes.length === 0) return Promise.resolve(undefined);
    // One atomic piece: a failed condition throws, and its savepoint undoes the writes before it.
    return this.grouped(true, () => {
      const unmet = this.kvWriteAll(writes);
      if (unmet) throw new KvConflict(unmet);
      return undefined;
    }).catch((error: unknown) => {
      if (error instanceof KvConflict) return { namespace: error.namespace, key: error.key };
      throw error;
    });
  }

  /**
   * `writes` applied in order, inside a transaction; the first that does not hold is answered (the
   * caller rolls back). Two or more expectations on keys no write of the list touches are read in
   * one statement first: what they see is the same before the writes as among them.
   */
  private kvWriteAll(writes: readonly KvWrite[]): KvWrite | undefined {
    const held = this.expectationsHeld(writes);
    for (let i = 0; i < writes.length; i++) {
      const w = writes[i]!;
      if (!(held?.[i] ?? this.kvWrite(w))) return w;
    }
    return undefined;
  }

  /** By index of `writes`, whether each expectation holds; undefined to read each as it comes. */
  private expectationsHeld(writes: readonly KvWrite[]): (boolean | undefined)[] | undefined {
    const args: string[] = [];
    for (const w of writes) if (w.expect !== undefined) args.push(w.namespace, w.key);
    const count = args.length / 2;
    if (count < 2 || count > MAX_EXPECTATIONS_READ) return undefined;
    // Compared pair by pair: a transaction's writes are a handful.
    for (const w of writes)
      if (w.expect === undefined)
        for (let k = 0; k < args.length; k += 2)
          if (args[k] === w.namespace && args[k + 1] === w.key) return undefined;
    const stamps = this.kvStampsOf(count).get(args)!;
    const held: (boolean | undefined)[] = new Array<boolean | undefined>(writes.length);
    let k = 0;
    for (let i = 0; i < writes.length; i++) {
      const expect = writes[i]!.expect;
      if (expect !== undefined) held[i] = (stamps[k++] ?? null) === expect;
    }
    return held;
  }

  /** The statement reading `count` kv stamps at once (each null when its entry is absent), as a row of them. */
  private kvStampsOf(count: number): Database.Statement<[string[]], (string | null)[]> {
    const read = '(SELECT written_by FROM kv WHERE namespace = ? AND key = ?)';
    return this.repeated(this.kvStampsSql, count, () => `SELECT ${Array(count).fill(read).join(', ')}`);
  }

  /**
   * The statement `sql` makes for `count` reads at once, prepared once per count and kept in `kept`;
   * raw (rows as arrays), its values bound from one array (better-sqlite3 spreads an array of them).
   */
  private repeated<P extends unknown[], R>(
    kept: Database.Statement<P, R>[],
    count: number,
    sql: () => string,
  ): Database.Statement<P, R> {
    return (kept[count] ??= this.db.prepare<P, R>(sql()).raw(true));
  }

  private kvWrite({ namespace, key, entry, base, expect }: KvWrite): boolean {
    if (expect !== undefined) return (this.sql.kvStamp.get(namespace, key)?.written_by ?? null) === expect;
    if (base === undefined)
      return (
        !entry ||
        this.sql.kvInsert.run(namespace, key, JSON.stringify(entry.value), entry.writtenBy).changes > 0
      );
    if (!entry) return this.sql.kvDeleteIf.run(namespace, key, base).changes > 0;
    return (
      this.sql.kvSwap.run(JSON.stringify(entry.value), entry.writtenBy, namespace, key, base).changes > 0
    );
  }

  /** Ordered by key. */
  async kvList(
    namespace: string,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<{ key: string; entry: KvEntry }>> {
    checkLimit(options.limit);
    const after = decodeCursor('kv', options.nextToken);
    const rows =
      after === undefined
        ? this.sql.kvListFirst.all(namespace, options.limit + 1)
        : this.sql.kvListAfter.all(namespace, after, options.limit + 1);
    const items = rows.map((row) => ({ key: row.key, entry: toKvEntry(row) }));
    return page(items, options.limit, (last) => encodeCursor('kv', last.key));
  }

  // ---- Audit trail (see audit.ts) ----

  private auditTrail: SqliteAuditTrail | undefined;

  private get audit(): SqliteAuditTrail {
    return (this.auditTrail ??= new SqliteAuditTrail(this.db));
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
    if (!this.db.open) throw new Error('the store is closed');
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version !== MIGRATIONS.length)
      throw new Error(`the store's schema is version ${version}; this Typeplane knows ${MIGRATIONS.length}`);
  }

  async close(): Promise<void> {
    clearInterval(this.indexTimer);
    clearInterval(this.countsTimer);
    this.commitsBeforeCheckpointer = undefined;
    const checkpointer = this.checkpointer;
    this.checkpointer = undefined;
    await checkpointer?.stop();
    if (!this.db.open) return;
    this.reads.drain();
    try {
      // The counts' changes held are applied; left held, the next open counts the resources again.
      this.db.transaction(() => this.counts.flush()).immediate();
      this.counts.committed();
    } catch {
      // The file stays busy past busy_timeout: the holder stays written, and the next open recounts.
    } finally {
      this.db.close();
    }
  }

  // ---- Group commit ----

  /** Point reads asked for in one turn of the event loop, run together at its end (read-batch.ts). */
  private readonly reads = new ReadBatch((reads) =>
    this.db.inTransaction ? reads() : this.tx.read.deferred(reads),
  );

  private pending: {
    work: () => unknown;
    atomic: boolean;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
    /** The span the piece was issued in, when traced: the group's span links it. */
    span: SpanContext | undefined;
  }[] = [];
  private flushScheduled = false;

  /**
   * Run `work` in the next group transaction: every write issued in the same turn of the event loop
   * shares one BEGIN IMMEDIATE … COMMIT (commits, not statements, dominate the cost). An `atomic`
   * piece (several statements) is all or nothing, and one failing never undoes the others.
   */
  private grouped<T>(atomic: boolean, work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        work,
        atomic,
        resolve: resolve as (v: unknown) => void,
        reject,
        span: activeSpanContext(),
      });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    // Checkpoints off the event loop once the store is busy: the connection's own automatic
    // checkpoint copied pages and waited for fsyncs on it, stalling every request meanwhile (it
    // stays, as the backstop).
    if (this.commitsBeforeCheckpointer !== undefined && this.commitsBeforeCheckpointer-- <= 0) {
      this.commitsBeforeCheckpointer = undefined;
      this.checkpointer = startCheckpointer(this.path);
    }
    const batch = this.pending;
    this.pending = [];
    let outcomes: Outcome[];
    const started = this.observer ? performance.now() : 0;
    try {
      outcomes = this.runGroup(batch);
    } catch (error) {
      // The group itself failed (the file is locked past busy_timeout, the disk is full): nothing committed.
      for (const item of batch) item.reject(error);
      return;
    } finally {
      this.observer?.transactionEnded((performance.now() - started) / 1000);
    }
    this.tokens.committed();
    this.counts.committed();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
    if (this.tokens.due(false)) this.indexTokens();
    if (this.changed) {
      this.changed = false;
      for (const listener of this.changeListeners) listener();
    }
  }

  /** Runs a group (see runPieces); traced, as a span of its own. */
  private runGroup(batch: typeof this.pending): Outcome[] {
    if (!batch.some(isTraced)) return this.runPieces(batch);
    // One transaction serves several requests: a child of the first one's span, linking the others'.
    return inGroupSpan(
      batch.map(spanOf),
      'sqlite group commit',
      { 'db.system.name': 'sqlite', 'db.operation.batch.size': batch.length },
      () => this.runPieces(batch),
    );
  }

  /**
   * First without savepoints (two statements each, a tenth of a create's cost): almost every piece
   * succeeds. When one fails, the whole group is rolled back and run again with each atomic piece in
   * a savepoint of its own, so that only the failed piece's writes are undone. The pieces are
   * functions of the store's state, so running one again decides the same.
   */
  private runPieces(batch: typeof this.pending): Outcome[] {
    // A group rolled back leaves none of the client tokens its pieces used (client-tokens.ts), nor
    // their changes to the counts (resource-counts.ts).
    const start = this.tokens.mark();
    const counted = this.counts.mark();
    try {
      return this.tx.group.immediate(() =>
        batch.map((item): Outcome => {
          try {
            return { ok: true, value: item.work() };
          } catch (error) {
            throw new PieceFailed(error);
          }
        }),
      );
    } catch (error) {
      this.tokens.undo(start);
      this.counts.undo(counted);
      this.counts.rolledBack();
      if (!(error instanceof PieceFailed)) throw error;
      // Alone in its group, the rollback undid just that piece: nothing to run again.
      if (batch.length === 1) return [{ ok: false, error: error.error }];
    }
    try {
      return this.tx.group.immediate(() =>
        batch.map((item): Outcome => {
          const piece = this.tokens.mark();
          const pieceCounted = this.counts.mark();
          try {
            // A single statement is atomic by itself; several need a savepoint.
            return { ok: true, value: item.atomic ? this.tx.piece(item.work) : item.work() };
          } catch (error) {
            this.tokens.undo(piece);
            this.counts.undo(pieceCounted);
            return { ok: false, error };
          }
        }),
      );
    } catch (error) {
      this.tokens.undo(start);
      this.counts.undo(counted);
      this.counts.rolledBack();
      throw error;
    }
  }

  /**
   * Index the client tokens held in memory, as a piece of the next group (one batch at a time); also
   * every INDEX_EVERY_MS while any is held, so that the tail a restart rebuilds stays short.
   */
  private indexTokens(): void {
    if (this.indexing || !this.db.open) return;
    this.indexing = true;
    this.grouped(true, () => this.tokens.index()).then(
      (to) => {
        this.indexing = false;
        this.tokens.indexed(to);
      },
      () => {
        // Tried again with the next batch: the tokens stay found in memory meanwhile.
        this.indexing = false;
      },
    );
  }

  private indexTokensEvery(): void {
    this.indexTimer = setInterval(() => {
      if (this.tokens.due(true)) this.indexTokens();
    }, INDEX_EVERY_MS);
    this.indexTimer.unref();
  }

  /** A store gone quiet applies its counts' changes all the same, so that other processes see them. */
  private flushCountsEvery(): void {
    this.countsTimer = setInterval(() => this.flushCounts(), FLUSH_EVERY_MS);
    this.countsTimer.unref();
  }

  /** Applies the counts' changes held, as a piece of the next group, when due (see resource-counts.ts). */
  private flushCounts(): void {
    if (this.flushingCounts || !this.db.open || !this.counts.due()) return;
    this.flushingCounts = true;
    const done = () => {
      this.flushingCounts = false;
    };
    // Refused (the file busy past busy_timeout), it is tried again at the next tick: nothing is lost.
    this.grouped(true, () => this.counts.flush()).then(done, done);
  }

  /** The operation that used a client token, with its request's hash. */
  private tokenRow(clientToken: string): TokenRow | undefined {
    const seq = this.tokens.seqOf(clientToken);
    return seq === undefined ? undefined : this.sql.getToken.get(seq);
  }

  /** The operation just inserted used its client token (see client-tokens.ts). */
  private usedToken(operation: OperationRecord, inserted: Database.RunResult): void {
    if (operation.clientToken !== undefined)
      this.tokens.add(operation.clientToken, Number(inserted.lastInsertRowid));
  }

  /**
   * What an operation's first write (complete, begin) reads first, in the order it decides by: the
   * operation that used the client token before (a replay, or a mismatch), then (the default version
   * checked) the operation in progress on the resource and the resource's row. A token not held in
   * memory, the operation in progress and the row are looked up in one statement (lookBefore): a
   * statement's own cost (binding, stepping, a row built) is a good part of a lookup's by key. Without
   * `look` (or an identifier), only the token is read.
   */
  private lookBefore(
    operation: OperationRecord,
    requestHash: string | null,
    look = true,
    /** The lookup's row, read already (lookAllBefore). */
    looked?: LookBeforeRow,
  ): { earlier: BeginResult } | { active?: string; row?: ResourceRow } {
    const { typeName, identifier, clientToken } = operation;
    if (!look || identifier === undefined) {
      const earlier = this.checkToken(operation, requestHash);
      if (earlier) return { earlier };
      this.checkDefault(operation);
      return {};
    }
    let unheld: string | null = null;
    if (clientToken !== undefined) {
      // Inside a group: once per group, what other connections committed is read in first.
      if (!this.defaultsSynced) this.syncDefaults();
      const held = this.tokens.held(clientToken);
      const earlier = held === undefined ? undefined : this.earlierOf(held, requestHash);
      if (earlier) return { earlier };
      if (held === undefined) unheld = clientToken;
    }
    const row = looked ?? this.sql.lookBefore.get(unheld, typeName, identifier, typeName, identifier)!;
    const tokenSeq = row[0];
    const earlier = tokenSeq === null ? undefined : this.earlierOf(tokenSeq, requestHash);
    if (earlier) return { earlier };
    this.checkDefault(operation);
    // Both members named, undefined or not (src/members.ts): this runs for every operation.
    return {
      active: row[1] ?? undefined,
      row: row[2] !== null ? resourceRowOf(row as unknown as RawResourceRow, 2) : undefined,
    };
  }

  /**
   * lookBefore's reads for a completeAll's completions, in one statement, by index; undefined to read
   * each as it comes. Its completions are of distinct resources (assertDistinctResources): with
   * distinct client tokens too, what one writes is nothing another's lookup reads, so each reads the
   * same before them all as after the ones before it.
   */
  private lookAllBefore(completions: readonly CompletionRequest[]): LookBeforeRow[] | undefined {
    const count = completions.length;
    if (count < 2 || count > MAX_LOOKUPS_READ) return undefined;
    const args: (string | null)[] = [];
    for (let i = 0; i < count; i++) {
      const { typeName, identifier, clientToken } = completions[i]!.operation;
      let unheld: string | null = null;
      if (clientToken !== undefined) {
        for (let j = 0; j < i; j++)
          if (completions[j]!.operation.clientToken === clientToken) return undefined;
        // As lookBefore reads it: a token held in memory is not looked for in the index.
        if (!this.defaultsSynced) this.syncDefaults();
        if (this.tokens.held(clientToken) === undefined) unheld = clientToken;
      }
      args.push(unheld, typeName, identifier!, typeName, identifier!);
    }
    const looked: LookBeforeRow[] = new Array<LookBeforeRow>(count);
    for (const row of this.lookAllSqlOf(count).all(args))
      looked[row[LOOKUP_INDEX] as unknown as number] = row;
    return looked;
  }

  /** The statement reading `count` lookups (lookBefore's) at once, each row ending in its index. */
  private lookAllSqlOf(count: number): Database.Statement<[(string | null)[]], LookBeforeRow> {
    return this.repeated(this.lookAllSql, count, () =>
      Array.from({ length: count }, (_, i) => lookBeforeSql(`, ${i}`)).join(' UNION ALL '),
    );
  }

  /** The operation of `seq`, which used a client token, as the earlier one (replayed or mismatched). */
  private earlierOf(seq: number, requestHash: string | null): BeginResult | undefined {
    return earlierAs(this.sql.getToken.get(seq), requestHash);
  }

  /** A client token used before: the earlier operation (replayed or mismatched); undefined otherwise. */
  private checkToken(operation: OperationRecord, requestHash: string | null): BeginResult | undefined {
    if (operation.clientToken === undefined) return undefined;
    // Inside a group: once per group, what other connections committed is read in first.
    if (!this.defaultsSynced) this.syncDefaults();
    return earlierAs(this.tokenRow(operation.clientToken), requestHash);
  }

  /** Applies an operation's resource change, inside the operation's transaction. */
  private applyChange(
    operation: OperationRecord,
    change: ResourceChange | undefined,
    checkNew = true,
    /** The operation's model as its row holds it: the resource's properties too when they are that model. */
    modelJson?: string | null,
    /**
     * The resource's row before the change, read under the same lock (null: there was none); read
     * here when not given. Its version says which count the change moves.
     */
    before?: { type_version: string | null } | null,
  ): void {
    if (change?.kind === 'put') {
      const { resource } = change;
      const was =
        before !== undefined
          ? before
          : (this.sql.versionOf.get(resource.typeName, resource.identifier) ?? null);
      if (checkNew && operation.operation === 'CREATE' && was) throw alreadyExists(resource);
      const params = resourceParams(
        resource,
        typeof modelJson === 'string' && resource.properties === operation.resourceModel
          ? modelJson
          : undefined,
      );
      this.sql.putResource.run(...params);
      const version = params[6];
      if (!was) {
        this.counts.added(resource.typeName, version, 1);
      } else if (was.type_version !== version) {
        this.counts.added(resource.typeName, was.type_version, -1);
        this.counts.added(resource.typeName, version, 1);
      }
      if (change.identifiers) {
        for (const key of change.identifiers) {
          const holder = this.sql.findByIdentifier.get(resource.typeName, key.name, key.value)?.identifier;
          if (holder !== undefined && holder !== resource.identifier)
            throw identifierTaken(resource.typeName, resource.identifier, key, holder);
        }
        this.sql.deleteIdentifiersOf.run(resource.typeName, resource.identifier);
        for (const key of change.identifiers)
          this.sql.insertIdentifier.run(resource.typeName, key.name, key.value, resource.identifier);
      }
      if (change.references) {
        this.sql.deleteRefsFrom.run(resource.typeName, resource.identifier);
        for (const ref of change.references) {
          this.sql.insertRef.run(resource.typeName, resource.identifier, ref.typeName, ref.identifier);
        }
      }
    } else if (change?.kind === 'delete') {
      // Read rather than returned: DELETE … RETURNING builds a temporary b-tree on every run.
      const was = before !== undefined ? before : this.sql.versionOf.get(change.typeName, change.identifier);
      if (this.sql.deleteResource.run(change.typeName, change.identifier).changes > 0 && was)
        this.counts.added(change.typeName, was.type_version, -1);
      this.sql.deleteRefsFrom.run(change.typeName, change.identifier);
      this.sql.deleteIdentifiersOf.run(change.typeName, change.identifier);
    }
  }

  // ---- Transactions (built once) ----

  private transactions() {
    return {
      group: this.db.transaction((run: () => Outcome[]): Outcome[] => {
        // What other connections committed is read in first (data_version, once per group): the
        // counts' holder may have changed with it.
        this.syncDefaults();
        this.counts.begin();
        const outcomes = run();
        this.counts.end();
        return outcomes;
      }),
      // Nested in `group`: a savepoint.
      piece: this.db.transaction((work: () => unknown) => work()),
      // A batch of point reads (read-batch.ts): one snapshot, one begin and end of the WAL's locks.
      read: this.db.transaction((reads: () => void) => reads()),
      deleteType: this.db.transaction((typeName: string): boolean => {
        // The resources themselves say whether any remain (another connection's counts may lag).
        if (this.sql.anyResource.get(typeName) === 1) {
          throw typeInUse(typeName, Math.max(1, this.resourcesOf(typeName)));
        }
        const active = this.sql.activeOperationOfType.get(typeName);
        if (active) throw typeBusy(typeName, active.request_token);
        this.sql.deleteResourceCounts.run(typeName);
        this.counts.dropType(typeName);
        return this.sql.deleteType.run(typeName).changes > 0;
      }),
      addTypeVersion: this.db.transaction(
        (type: Omit<StoredType, 'version'>, expected: TypeVersionExpectation | undefined): StoredType => {
          this.checkExpected(type.typeName, expected);
          const row = this.sql.addTypeVersion.get(
            type.typeName,
            type.typeName,
            JSON.stringify(type.model),
            type.source,
            isoTime(type.registeredAt, 'registeredAt'),
          );
          return { ...type, version: row!.version };
        },
      ),
      // Each in a savepoint of the one transaction: a refusal undoes them all.
      addTypeVersions: this.db.transaction((entries: readonly TypeVersionEntry[]): StoredType[] =>
        entries.map(({ type, expected }) => this.tx.addTypeVersion(type, expected)),
      ),
      setDefaultTypeVersion: this.db.transaction(
        (typeName: string, version: string, expected: TypeVersionExpectation | undefined): boolean => {
          if (!this.sql.getTypeVersion.get(typeName, version)) return false;
          this.checkExpected(typeName, expected);
          return this.sql.setDefaultTypeVersion.run(typeName, version).changes > 0;
        },
      ),
      deleteTypeVersion: this.db.transaction((typeName: string, version: string): boolean => {
        if (!this.sql.getTypeVersion.get(typeName, version)) return false;
        const versions = this.sql.countTypeVersions.get(typeName)?.count ?? 0;
        if (versions === 1) return this.tx.deleteType(typeName);
        let resources =
          (this.sql.countResourcesOfVersion.get(typeName, version)?.count ?? 0) +
          this.counts.pending(typeName, version);
        // None by this connection's counts, but another holds changes it cannot see: the resources say.
        if (
          resources === 0 &&
          this.counts.othersHold() &&
          this.sql.anyResourceOfVersion.get(typeName, version) === 1
        )
          resources = 1;
        const isDefault = this.sql.getTypeStamp.get(typeName)?.version === version;
        if (resources > 0 || isDefault)
          throw versionInUse(typeName, version, { resources, versions, isDefault });
        return this.sql.deleteTypeVersion.run(typeName, version).changes > 0;
      }),

      // begin, complete and finish run only as pieces of a group (see runGroup): plain functions,
      // so that they open no savepoint of their own.
      begin: (
        operation: OperationRecord,
        params: OperationParams,
        requestHash: string | null,
        lease: { owner: string; until: Date } | null,
        precondition?: (current: StoredResource | undefined) => void,
      ): BeginResult => {
        const active = ACTIVE.has(operation.status);
        const identified = operation.identifier !== undefined;
        // The operation in progress and the resource are read only when they are to be checked.
        const look = this.lookBefore(operation, requestHash, identified && (active || !!precondition));
        if ('earlier' in look) return look.earlier;
        if (active && look.active !== undefined) return { kind: 'conflict', activeRequestToken: look.active };
        if (precondition && identified) precondition(look.row && toStoredResource(look.row));
        const inserted = this.sql.insertOperation.run(
          ...insertValues(
            params,
            requestHash,
            lease?.owner ?? null,
            lease ? lease.until.toISOString() : null,
          ),
        );
        this.usedToken(operation, inserted);
        this.changed = true;
        return startedAs(operation, params);
      },

      complete: (
        operation: OperationRecord,
        requestHash: string | null,
        decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion,
        /** Its lookup's row, read with others' (lookAllBefore). */
        looked?: LookBeforeRow,
      ): BeginResult => {
        const look = this.lookBefore(operation, requestHash, true, looked);
        if ('earlier' in look) return look.earlier;
        if (look.active !== undefined) return { kind: 'conflict', activeRequestToken: look.active };
        const identifier = operation.identifier;
        const row = look.row;
        const referrers =
          operation.operation === 'DELETE' && identifier !== undefined
            ? this.sql.refsTo
                .all(operation.typeName, identifier, 20)
                .map((r) => ({ typeName: r.from_type, identifier: r.from_id }))
            : [];
        const outcome = decide(row && toStoredResource(row), referrers);
        operation.status = outcome.status;
        if (outcome.status === 'FAILED') {
          operation.errorCode = outcome.errorCode;
          operation.statusMessage = outcome.statusMessage;
        } else if (outcome.resourceModel) {
          operation.resourceModel = outcome.resourceModel;
        }
        const changed = outcome.status === 'SUCCESS' ? resourceChangeOf(outcome.change) : null;
        const params = operationParams(operation);
        const inserted = this.sql.insertOperation.run(
          ...insertValues(params, requestHash, null, null, changed),
        );
        this.usedToken(operation, inserted);
        this.changed = true;
        // The resource's absence was checked above, under the same lock.
        if (outcome.status === 'SUCCESS')
          this.applyChange(operation, outcome.change, false, params.resource_model_json, row ?? null);
        return { kind: 'started', operation };
      },

      finish: (
        operation: OperationRecord,
        params: GuardedParams & { resource_change: string | null },
        change: ResourceChange | undefined,
      ) => {
        if (this.sql.finishOperation.run(params).changes === 0) throw this.notWritten(operation.requestToken);
        this.changed = true;
        this.applyChange(operation, change);
      },

      claim: this.db.transaction(
        (
          owner: string,
          now: string,
          until: string,
          limit: number,
          allowance: ClaimAllowance | undefined,
        ): ClaimedOperation[] => {
          let rows = this.sql.claimable.all(now, now, limit);
          if (allowance && !withinAllowance(rows, allowance)) {
            // A type's or a caller's share is reached: each type's and each caller's oldest due within
            // its room, the oldest of all first while both its type and its caller have room.
            const lists: ClaimableRow[][] = [];
            for (const { name } of this.sql.activeTypes.all()) {
              const room = roomFor(name, allowance, limit);
              if (room > 0) lists.push(this.sql.claimableOfType.all(name, now, now, room));
            }
            if (allowance.perFlow !== undefined)
              for (const { name } of this.sql.activeRequesters.all()) {
                const room = flowRoomFor(name, allowance, limit);
                if (room > 0) lists.push(this.sql.claimableOfRequester.all(name, now, now, room));
              }
            rows = fairlyChosen(lists, allowance, limit);
          }
          for (const row of rows) this.sql.lease.run(owner, until, row.seq);
          return rows.map((row) => toClaimedOperation(row, owner));
        },
      ),

      expire: this.db.transaction((before: string): { count: number; tokens: string[] } => {
        this.sql.raiseHorizon.run({ before });
        const tokens = this.tokens.expiring(expiredSql('@before'), before);
        return { count: this.sql.expireOperations.run({ before }).changes, tokens };
      }),
      changes: this.db.transaction((after: number, limit: number): ChangePage => {
        const latest = this.sql.latestVersion.get()!;
        return {
          changes: this.sql.changes.all({ after, upTo: latest, limit }).map(toChange),
          horizon: this.sql.horizon.get()!,
          latest,
        };
      }),
    };
  }
}

/** Most expectations of one transaction read in one statement (more are read one by one). */
const MAX_EXPECTATIONS_READ = 8;

/**
 * The change log's next version: one more than the latest seq, change_version and horizon (each the
 * right edge of a b-tree). Evaluated under the write lock, in the statement that takes it.
 */
const NEXT_VERSION = `(MAX(COALESCE((SELECT MAX(seq) FROM operations), 0),
  COALESCE((SELECT MAX(change_version) FROM operations WHERE change_version IS NOT NULL), 0),
  (SELECT version FROM change_horizon)) + 1)`;

/**
 * The request token of the operation in progress on a resource (type, identifier): the one-active
 * index's own condition, so that the index answers it. Alone (getActive) and within lookBefore.
 */
const ACTIVE_ON_RESOURCE_SQL = `SELECT request_token FROM operations
  WHERE type_name = ? AND identifier = ? AND ${ACTIVE_WHERE} AND identifier IS NOT NULL`;

/**
 * What an operation is decided on, read in one statement: whether its client token is in the token
 * index, the operation in progress on its resource, and the resource; `more` columns after them.
 */
const lookBeforeSql = (
  more = '',
) => `SELECT (${INDEXED_TOKEN_SQL}) AS token_seq, (${ACTIVE_ON_RESOURCE_SQL}) AS active_token,
    r.type_name, r.identifier, r.properties_json, r.sealed, r.created_at, r.updated_at,
    r.type_version, r.observed_status, r.observed_since${more}
  FROM (SELECT 1) LEFT JOIN resources r ON r.type_name = ? AND r.identifier = ?`;
/** Where lookAllBefore's rows say whose lookup each is: after lookBeforeSql's own columns. */
const LOOKUP_INDEX = 11;
/** Most lookups of one transaction read in one statement (lookAllBefore). */
const MAX_LOOKUPS_READ = 8;

function prepareStatements(db: Database.Database) {
  const latestTypes = `SELECT type_name, version, model_json, source, registered_at FROM types t
    WHERE seq = (SELECT MAX(seq) FROM types WHERE type_name = t.type_name)`;
  return {
    putType: db.prepare<[string, string, string, string, string]>(
      `INSERT INTO types (type_name, version, model_json, source, registered_at, seq)
       VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM types))
       ON CONFLICT (type_name, version) DO UPDATE SET model_json = excluded.model_json, source = excluded.source,
         registered_at = excluded.registered_at, seq = excluded.seq`,
    ),
    getTypeVersion: db.prepare<[string, string], TypeRow>(
      `SELECT type_name, version, model_json, source, registered_at FROM types WHERE type_name = ? AND version = ?`,
    ),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    getTypeStamp: db.prepare<[string], { version: string; registered_at: string }>(
      `SELECT version, registered_at FROM types WHERE type_name = ? ORDER BY seq DESC LIMIT 1`,
    ),
    getLatestType: db.prepare<[string], TypeRow>(
      `SELECT type_name, version, model_json, source, registered_at FROM types WHERE type_name = ?
       ORDER BY seq DESC LIMIT 1`,
    ),
    listTypeVersions: db.prepare<[string], TypeRow>(
      `SELECT type_name, version, model_json, source, registered_at FROM types WHERE type_name = ? ORDER BY seq`,
    ),
    listLatestTypes: db.prepare<[], TypeRow>(`${latestTypes} ORDER BY type_name`),
    listTypeStamps: db.prepare<[], { type_name: string; version: string; registered_at: string }>(
      `SELECT type_name, version, registered_at FROM types t
       WHERE seq = (SELECT MAX(seq) FROM types WHERE type_name = t.type_name) ORDER BY type_name`,
    ),
    deleteType: db.prepare<[string]>(`DELETE FROM types WHERE type_name = ?`),
    addTypeVersion: db.prepare<[string, string, string, string, string], { version: string }>(
      `INSERT INTO types (type_name, version, model_json, source, registered_at, seq)
       VALUES (?, (SELECT CAST(COALESCE(MAX(CASE WHEN version NOT GLOB '*[^0-9]*' AND length(version) BETWEEN 1 AND 9
         THEN CAST(version AS INTEGER) END), 0) + 1 AS TEXT) FROM types WHERE type_name = ?),
         ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM types))
       RETURNING version`,
    ),
    setDefaultTypeVersion: db.prepare<[string, string]>(
      `UPDATE types SET seq = (SELECT MAX(seq) + 1 FROM types) WHERE type_name = ? AND version = ?`,
    ),
    deleteTypeVersion: db.prepare<[string, string]>(`DELETE FROM types WHERE type_name = ? AND version = ?`),
    countTypeVersions: db.prepare<[string], { count: number }>(
      `SELECT COUNT(*) AS count FROM types WHERE type_name = ?`,
    ),
    // Counted in resource_counts, to which this connection adds its changes not applied yet
    // (resource-counts.ts); '' holds the resources written with no version.
    countResourcesByVersion: db.prepare<[string], { type_version: string; count: number }>(
      `SELECT type_version, count FROM resource_counts WHERE type_name = ?`,
    ),
    countResourcesOfVersion: db.prepare<[string, string], { count: number }>(
      `SELECT COALESCE(SUM(count), 0) AS count FROM resource_counts WHERE type_name = ? AND type_version = ?`,
    ),
    anyResource: db
      .prepare<[string], number>('SELECT EXISTS (SELECT 1 FROM resources WHERE type_name = ?)')
      .pluck(true),
    // Reads every resource of the type: only when the counts cannot tell (see deleteTypeVersion).
    anyResourceOfVersion: db
      .prepare<[string, string], number>(
        'SELECT EXISTS (SELECT 1 FROM resources WHERE type_name = ? AND type_version IS ?)',
      )
      .pluck(true),
    deleteResourceCounts: db.prepare<[string]>(`DELETE FROM resource_counts WHERE type_name = ?`),

    // The same as an array: better-sqlite3 makes each column's name anew for every row it returns as
    // an object, a twentieth of a read's cost (reads go through this one).
    getResourceRaw: db
      .prepare<[string, string], RawResourceRow>(
        `SELECT type_name, identifier, properties_json, sealed, created_at, updated_at, type_version,
           observed_status, observed_since FROM resources
         WHERE type_name = ? AND identifier = ?`,
      )
      .raw(true),
    // The one column a read of a record-backed type answers (`pluck`: the value, not a row).
    getResourceJson: db
      .prepare<[string, string], string>(
        'SELECT properties_json FROM resources WHERE type_name = ? AND identifier = ?',
      )
      .pluck(true),
    listResourcesFirst: db.prepare<[string, number], ResourceRow>(
      `SELECT type_name, identifier, properties_json, sealed, created_at, updated_at, type_version,
         observed_status, observed_since FROM resources
       WHERE type_name = ? ORDER BY identifier LIMIT ?`,
    ),
    listResourcesAfter: db.prepare<[string, string, number], ResourceRow>(
      `SELECT type_name, identifier, properties_json, sealed, created_at, updated_at, type_version,
         observed_status, observed_since FROM resources
       WHERE type_name = ? AND identifier > ? ORDER BY identifier LIMIT ?`,
    ),
    activeOperationOfType: db.prepare<[string], { request_token: string }>(ACTIVE_OPERATION_OF_TYPE('?')),
    countResources: db.prepare<[string], { count: number }>(
      `SELECT COALESCE(SUM(count), 0) AS count FROM resource_counts WHERE type_name = ?`,
    ),
    typeUsage: db.prepare<{ typeName: string }, { resources: number; active: number }>(
      `SELECT (SELECT COALESCE(SUM(count), 0) FROM resource_counts WHERE type_name = @typeName) AS resources,
         (SELECT COUNT(*) FROM operations WHERE ${ACTIVE_WHERE} AND type_name = @typeName) AS active`,
    ),
    putResource: db.prepare<[string, string, string, string | null, string, string, string | null]>(
      `INSERT INTO resources (type_name, identifier, properties_json, sealed, created_at, updated_at, type_version) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (type_name, identifier) DO UPDATE SET properties_json = excluded.properties_json, sealed = excluded.sealed,
         type_version = excluded.type_version,
         updated_at = excluded.updated_at, observed_status = NULL, observed_since = NULL`,
    ),
    observeResource: db.prepare<[string | null, string | null, string, string, string]>(
      `UPDATE resources SET observed_status = ?, observed_since = ?
       WHERE type_name = ? AND identifier = ? AND updated_at = ?`,
    ),
    deleteResource: db.prepare<[string, string]>(
      `DELETE FROM resources WHERE type_name = ? AND identifier = ?`,
    ),
    // What a resource is counted under (resource-counts.ts).
    versionOf: db.prepare<[string, string], { type_version: string | null }>(
      `SELECT type_version FROM resources WHERE type_name = ? AND identifier = ?`,
    ),
    refsFrom: db.prepare<[string, string], { to_type: string; to_id: string }>(
      `SELECT to_type, to_id FROM resource_refs WHERE from_type = ? AND from_id = ? ORDER BY to_type, to_id`,
    ),
    refsTo: db.prepare<[string, string, number], { from_type: string; from_id: string }>(
      `SELECT from_type, from_id FROM resource_refs WHERE to_type = ? AND to_id = ? ORDER BY from_type, from_id LIMIT ?`,
    ),
    deleteRefsFrom: db.prepare<[string, string]>(
      `DELETE FROM resource_refs WHERE from_type = ? AND from_id = ?`,
    ),
    findByIdentifier: db.prepare<[string, string, string], { identifier: string }>(
      `SELECT identifier FROM resource_identifiers WHERE type_name = ? AND name = ? AND value = ?`,
    ),
    deleteIdentifiersOf: db.prepare<[string, string]>(
      `DELETE FROM resource_identifiers WHERE type_name = ? AND identifier = ?`,
    ),
    insertIdentifier: db.prepare<[string, string, string, string]>(
      `INSERT INTO resource_identifiers (type_name, name, value, identifier) VALUES (?, ?, ?, ?)`,
    ),
    insertRef: db.prepare<[string, string, string, string]>(
      `INSERT OR IGNORE INTO resource_refs (from_type, from_id, to_type, to_id) VALUES (?, ?, ?, ?)`,
    ),

    getOperation: db.prepare<[string], OperationRow>(
      `SELECT ${OPERATION_COLUMNS} FROM operations WHERE request_token = ?`,
    ),
    // What an operation's first write looks at (see lookBefore): the operation that used a client
    // token (NULL: none, or no token asked), the operation in progress on the resource (the one-active
    // index's own condition, so that the index answers it), and the resource's row, its columns NULL
    // when there is none. The type and identifier are given twice (anonymous parameters: numbered ones
    // are not bound positionally).
    // An array (raw): every create, update and delete reads it, and a row as an object costs a name
    // made anew for each of its eleven columns.
    lookBefore: db
      .prepare<[string | null, string, string, string, string], LookBeforeRow>(lookBeforeSql())
      .raw(true),
    getActive: db.prepare<[string, string], { request_token: string }>(ACTIVE_ON_RESOURCE_SQL),
    // With its client token's request hash and, when the worker that begins it runs it, its lease: one
    // write. Positional parameters (see insertValues): binding by name costs a lookup per column.
    // Its seq is the next version of the change log (see NEXT_VERSION): no statement more.
    insertOperation: db.prepare<InsertValues>(
      `INSERT INTO operations (seq, request_token, type_name, identifier, operation, status, event_time, resource_model_json,
         status_message, error_code, retry_after, request_json, callback_context_json, started_at, deadline_at, attempts,
         client_token, request_hash, lease_owner, lease_until, warnings_json, requested_by, resource_change)
       VALUES (${NEXT_VERSION}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Both guarded: only an active operation, and with @owner only while that worker holds the lease.
    saveOperation: db.prepare<GuardedParams>(
      `UPDATE operations SET change_version = ${NEXT_VERSION}, identifier = @identifier, status = @status, event_time = @event_time,
         resource_model_json = @resource_model_json, status_message = @status_message, error_code = @error_code,
         retry_after = @retry_after, request_json = @request_json, callback_context_json = @callback_context_json,
         deadline_at = @deadline_at, attempts = @attempts
       WHERE request_token = @request_token AND ${ACTIVE_WHERE}
         AND (@owner IS NULL OR lease_owner = @owner)`,
    ),
    finishOperation: db.prepare<GuardedParams & { resource_change: string | null }>(
      `UPDATE operations SET change_version = ${NEXT_VERSION}, resource_change = @resource_change, identifier = @identifier, status = @status, event_time = @event_time,
         resource_model_json = @resource_model_json, status_message = @status_message, error_code = @error_code,
         retry_after = @retry_after, request_json = @request_json, callback_context_json = @callback_context_json,
         deadline_at = @deadline_at, attempts = @attempts, lease_owner = NULL, lease_until = NULL
       WHERE request_token = @request_token AND ${ACTIVE_WHERE}
         AND (@owner IS NULL OR lease_owner = @owner)`,
    ),
    claimable: db.prepare<[string, string, number], ClaimableRow>(
      `SELECT ${OPERATION_COLUMNS}, lease_owner FROM operations WHERE ${dueSql('?')} ORDER BY seq LIMIT ?`,
    ),
    // The same for one type (on operations_active_by_type), and the types that have any (ACTIVE_TYPES_SQL).
    claimableOfType: db.prepare<[string, string, string, number], ClaimableRow>(
      `SELECT ${OPERATION_COLUMNS}, lease_owner FROM operations WHERE type_name = ? AND ${dueSql('?')}
       ORDER BY seq LIMIT ?`,
    ),
    activeTypes: db.prepare<[], { name: string }>(ACTIVE_TYPES_SQL),
    // The same for one caller (on operations_active_by_requester), and the callers that have any.
    claimableOfRequester: db.prepare<[string, string, string, number], ClaimableRow>(
      `SELECT ${OPERATION_COLUMNS}, lease_owner FROM operations WHERE requested_by = ? AND ${dueSql('?')}
       ORDER BY seq LIMIT ?`,
    ),
    activeRequesters: db.prepare<[], { name: string }>(ACTIVE_REQUESTERS_SQL),
    activeCounts: db.prepare<[string, string], ActiveCountRow>(activeCountsSql('?')),
    lease: db.prepare<[string, string, number]>(
      `UPDATE operations SET lease_owner = ?, lease_until = ? WHERE seq = ?`,
    ),
    renewLease: db.prepare<[string, string, string]>(
      `UPDATE operations SET lease_until = ? WHERE request_token = ? AND lease_owner = ? AND ${ACTIVE_WHERE}`,
    ),
    releaseLease: db.prepare<[string, string]>(
      `UPDATE operations SET lease_owner = NULL, lease_until = NULL WHERE request_token = ? AND lease_owner = ?`,
    ),

    // A client token is a column of its operation (unique among them): it lives as long as the operation.
    getToken: db.prepare<[number], TokenRow>(
      `SELECT ${OPERATION_COLUMNS}, request_hash FROM operations WHERE seq = ?`,
    ),
    expireOperations: db.prepare<{ before: string }>(expireOperationsSql('@before')),
    raiseHorizon: db.prepare<{ before: string }>(raiseHorizonSql('@before', 'MAX')),
    changes: db.prepare<{ after: number; upTo: number; limit: number }, ChangeRow>(
      changesSql('@after', '@upTo', '@limit'),
    ),
    horizon: db.prepare<[], number>('SELECT version FROM change_horizon').pluck(),
    latestVersion: db.prepare<[], number>(`SELECT ${NEXT_VERSION} - 1`).pluck(),

    kvGet: db.prepare<[string, string], KvRow>(
      `SELECT key, value_json, written_by FROM kv WHERE namespace = ? AND key = ?`,
    ),
    kvStamp: db.prepare<[string, string], { written_by: string }>(
      `SELECT written_by FROM kv WHERE namespace = ? AND key = ?`,
    ),
    kvInsert: db.prepare<[string, string, string, string]>(
      `INSERT INTO kv (namespace, key, value_json, written_by) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    kvReplace: db.prepare<[string, string, string, string]>(
      `UPDATE kv SET value_json = ?, written_by = ? WHERE namespace = ? AND key = ?`,
    ),
    kvSwap: db.prepare<[string, string, string, string, string]>(
      `UPDATE kv SET value_json = ?, written_by = ? WHERE namespace = ? AND key = ? AND written_by = ?`,
    ),
    kvDelete: db.prepare<[string, string]>(`DELETE FROM kv WHERE namespace = ? AND key = ?`),
    kvDeleteIf: db.prepare<[string, string, string]>(
      `DELETE FROM kv WHERE namespace = ? AND key = ? AND written_by = ?`,
    ),
    kvListFirst: db.prepare<[string, number], KvRow>(
      `SELECT key, value_json, written_by FROM kv WHERE namespace = ? ORDER BY key LIMIT ?`,
    ),
    kvListAfter: db.prepare<[string, string, number], KvRow>(
      `SELECT key, value_json, written_by FROM kv WHERE namespace = ? AND key > ? ORDER BY key LIMIT ?`,
    ),
  };
}

/** The operation that used a client token before (its row), as a request with `requestHash` sees it. */
function earlierAs(earlier: TokenRow | undefined, requestHash: string | null): BeginResult | undefined {
  return (
    earlier && {
      kind: earlier.request_hash === requestHash ? 'replayed' : 'token-mismatch',
      operation: toOperationRecord(earlier),
    }
  );
}

/**
 * lookBefore's row, as an array: the seq of the operation that used the client token, the active
 * operation's request token, then the resource's columns as RawResourceRow's (all NULL: none).
 */
type LookBeforeRow = [number | null, string | null, ...(string | null)[]];

type RawResourceRow = [
  string,
  string,
  string,
  string | null,
  string,
  string,
  string | null,
  string | null,
  string | null,
];

/**
 * A resource row read as an array (getResourceRaw; lookBefore's from `at`), as the named row the rest
 * reads.
 */
function resourceRowOf(r: RawResourceRow, at = 0): ResourceRow {
  return {
    type_name: r[at]!,
    identifier: r[at + 1]!,
    properties_json: r[at + 2]!,
    sealed: r[at + 3] ?? null,
    created_at: r[at + 4]!,
    updated_at: r[at + 5]!,
    type_version: r[at + 6] ?? null,
    observed_status: r[at + 7] ?? null,
    observed_since: r[at + 8] ?? null,
  };
}

type InsertValues = (string | number | null)[];

/** The values of insertOperation, in its column order. */
function insertValues(
  p: OperationParams,
  requestHash: string | null,
  leaseOwner: string | null,
  leaseUntil: string | null,
  resourceChange: string | null = null,
): InsertValues {
  return [
    p.request_token,
    p.type_name,
    p.identifier,
    p.operation,
    p.status,
    p.event_time,
    p.resource_model_json,
    p.status_message,
    p.error_code,
    p.retry_after,
    p.request_json,
    p.callback_context_json,
    p.started_at,
    p.deadline_at,
    p.attempts,
    p.client_token,
    requestHash,
    leaseOwner,
    leaseUntil,
    p.warnings_json,
    p.requested_by,
    resourceChange,
  ];
}

// ---- Errors ----

/** The one-active-operation-per-resource index refused a row. */
function isActiveConflict(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    error.code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    error.message.includes('operations.type_name, operations.identifier')
  );
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const isTraced = (piece: { span: SpanContext | undefined }) => piece.span !== undefined;
const spanOf = (piece: { span: SpanContext | undefined }) => piece.span;

/** A piece of a group failed on the first, savepoint-less run: the group is rolled back and run again. */
class PieceFailed extends Error {
  constructor(readonly error: unknown) {
    super('a piece of the group failed');
  }
}
