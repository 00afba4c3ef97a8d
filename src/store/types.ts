/**
 * @module The Store: everything Typeplane persists. There is no in-memory source of truth: several
 * server replicas may share one store, so every state change is one transaction here.
 *
 * Implementations: `sqlite/` (embedded default). A PostgreSQL one follows the same contract.
 */
import { TypeplaneError, type ErrorCode } from '../errors.js';
import type { Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { Verdict } from '../verdict.js';

export type Operation = 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'LIST';

export type OperationStatus =
  'PENDING' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILED' | 'CANCEL_IN_PROGRESS' | 'CANCEL_COMPLETE';

export const TERMINAL_STATUSES: ReadonlySet<OperationStatus> = new Set([
  'SUCCESS',
  'FAILED',
  'CANCEL_COMPLETE',
]);
export const ACTIVE_STATUSES: readonly OperationStatus[] = ['PENDING', 'IN_PROGRESS', 'CANCEL_IN_PROGRESS'];

export interface StoredType {
  typeName: string;
  /**
   * The registry's version of the type: `'1'`, `'2'`, … in registration order (each registration
   * of a changed document adds one; see {@link Store.addTypeVersion}).
   */
  version: string;
  /** The normalised model. */
  model: ResourceType;
  /** The document as registered (JSON or YAML text). */
  source: string;
  registeredAt: string;
}

export interface StoredResource {
  typeName: string;
  /** Primary identifier values joined by `|`. */
  identifier: string;
  /** The model as last reported by the provider, without write-only values when `sealed` holds them. */
  properties: Model;
  /** The write-only values, sealed by the engine (opaque to the store). */
  sealed?: string;
  /** The version of the type this resource was last written with (absent when unknown). */
  typeVersion?: string;
  createdAt: string;
  updatedAt: string;
  /** What a read last reported when it differs from the record (see {@link Store.observeResource}). */
  observed?: Observation;
}

/**
 * What a read saw of a recorded resource that its record does not say: the provider answered
 * NotFound, first at `since`. Metadata beside the record, never the record itself.
 */
export interface Observation {
  status: 'NotFound';
  since: string;
}

export interface OperationRecord {
  requestToken: string;
  typeName: string;
  /** Known once the identifier is (before a create with a generated identifier completes, it is not). */
  identifier?: string;
  operation: Operation;
  status: OperationStatus;
  /** ISO time of the latest status change. */
  eventTime: string;
  resourceModel?: Model;
  statusMessage?: string;
  errorCode?: ErrorCode;
  /** ISO time after which the next handler invocation is due. */
  retryAfter?: string;
  /** What the caller asked for: desired state (create/update), patch (update), as the engine needs to resume. */
  request: Record<string, unknown>;
  callbackContext?: Record<string, unknown>;
  /** ISO time the operation started and the time it must be terminal by. */
  startedAt: string;
  deadlineAt: string;
  attempts: number;
  clientToken?: string;
  /**
   * What admission policies and hooks warned of when the operation began (written once, with it);
   * on one a denial failed before it began (Cloud Control), the denial's verdicts, Deny ones included.
   */
  warnings?: Verdict[];
  /**
   * Who asked for it: the API token's id (absent when the engine's own users did). Written once, with
   * it, so that its end is recorded as theirs on whichever replica ends it (the audit trail).
   */
  requestedBy?: string;
  /**
   * Not stored: the type's default version the request was checked against, when it named no
   * version. The operation begins only while that is still the default ({@link DefaultVersionMoved}
   * otherwise), so no write checked against a version a registration just replaced lands after it.
   */
  checkedAgainstDefault?: string;
}

export interface Page<T> {
  items: T[];
  /** Opaque keyset cursor for the next page; absent at the end. */
  nextToken?: string;
}

/** A page of resources, and how many bytes of stored rows it read (as its size bound counts them). */
export interface ResourcePage extends Page<StoredResource> {
  bytes: number;
}

export interface OperationFilter {
  operation?: Operation[];
  status?: OperationStatus[];
  typeName?: string;
  /** One resource's operations (with typeName): its history. */
  identifier?: string;
}

/** Outcome of {@link Store.beginOperation}. */
export type BeginResult =
  | { kind: 'started'; operation: OperationRecord }
  /** The client token was used before with the same request: the earlier operation. */
  | { kind: 'replayed'; operation: OperationRecord }
  /** The client token was used before with a different request. */
  | { kind: 'token-mismatch'; operation: OperationRecord }
  /** Another operation is active on the same resource. */
  | { kind: 'conflict'; activeRequestToken: string };

/** One operation of {@link Store.completeAll}: as {@link Store.completeOperation} takes it. */
export interface CompletionRequest {
  operation: OperationRecord;
  requestHash: string | undefined;
  decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion;
}

/** Outcome of {@link Store.completeAll}. */
export type AllCompleted =
  | BeginResult
  /**
   * Nothing was written: the completion at `index` (never the first) did not end in SUCCESS (`result`
   * says how it went), or the kv write `key` did not hold.
   */
  | { kind: 'refused'; index: number; result: BeginResult }
  | { kind: 'refused'; key: KvKey };

export interface ResourceKey {
  typeName: string;
  identifier: string;
}

/**
 * A change to the resource index made atomically with an operation's completion. A put replaces the
 * resource's outgoing references with `references` (when given); a delete removes them.
 */
export type ResourceChange =
  | {
      kind: 'put';
      resource: StoredResource;
      references?: ResourceKey[];
      /**
       * The resource's additional identifiers (`name`: which one, `value`: its joined values); each
       * is unique within the type (a value another resource holds is refused with ResourceConflict).
       * Undefined: unchanged.
       */
      identifiers?: AdditionalIdentifier[];
    }
  | { kind: 'delete'; typeName: string; identifier: string };

/** One additional identifier of a resource: which one (its pointers, joined by `,`) and its value. */
export interface AdditionalIdentifier {
  name: string;
  value: string;
}

/** How an operation completed by {@link Store.completeOperation} ends. */
export type Completion =
  | { status: 'SUCCESS'; resourceModel?: Model; change: ResourceChange }
  | { status: 'FAILED'; errorCode: ErrorCode; statusMessage: string };

/** The operation ended, or another worker holds it now: the write was refused. */
export class OperationMovedOn extends Error {
  constructor(readonly requestToken: string) {
    super(
      `operation ${requestToken} has moved on (it ended, or another worker took it over): this write was refused`,
    );
    this.name = 'OperationMovedOn';
  }
}

/**
 * A request was checked against a type's default version that another one replaced before the
 * operation began: nothing was written; checked against the new default, it may be sent again.
 */
export class DefaultVersionMoved extends TypeplaneError {
  constructor(
    readonly typeName: string,
    readonly checkedAgainst: string,
    readonly defaultVersion: string | undefined,
  ) {
    super(
      'ResourceConflict',
      `${typeName} ${defaultVersion === undefined ? 'was deregistered' : `got default version ${defaultVersion}`} while this request was being checked against version ${checkedAgainst}: nothing was written; send it again`,
    );
  }
}

/**
 * What a new default version of a type was decided against (the registry's breaking-change check),
 * checked again in the transaction that makes it the default.
 */
export interface TypeVersionExpectation {
  /** The default version the change was compared with; undefined when the type was not registered. */
  defaultVersion: string | undefined;
  /**
   * The change is breaking and was let through because the type had no resources and no operation
   * in progress (none could be stranded by it): that must still be so.
   */
  unused?: boolean;
}

/** One type's next version to add (see {@link Store.addTypeVersions}), with what it was decided on. */
export interface TypeVersionEntry {
  type: Omit<StoredType, 'version'>;
  expected?: TypeVersionExpectation;
}

export interface TypeUsage {
  resources: number;
  /** Operations not ended yet: each may still write a resource under the version it was checked against. */
  activeOperations: number;
}

/** A {@link TypeVersionExpectation} no longer holds: nothing was written; decide again. */
export class TypeChangedMeanwhile extends Error {
  constructor(
    readonly typeName: string,
    readonly reason: string,
  ) {
    super(`${typeName} changed while a new default version was being decided (${reason})`);
    this.name = 'TypeChangedMeanwhile';
  }
}

/** An operation a claim took; `takenOver` when its lease had run out under another owner. */
export interface ClaimedOperation extends OperationRecord {
  takenOver?: true;
}

/** What a store tells an observer (metrics): how long each write transaction took. */
export interface StoreObserver {
  transactionEnded(seconds: number): void;
}

/** What a store reports of itself when asked (metrics, at scrape time); each store its own. */
export interface StoreStats {
  /** SQLite: the size of the write-ahead log (the `-wal` file) in bytes. */
  walBytes?: number;
  /** SQLite: the background checkpointer's passes that copied frames into the database file. */
  checkpoints?: number;
  /** PostgreSQL: the pool's connections, those of them idle, and the requests waiting for one. */
  pool?: { total: number; idle: number; waiting: number };
}

/** One type's operations not ended (see `Store.countActiveOperations`). */
export interface ActiveOperationCount {
  typeName: string;
  due: number;
  inProgress: number;
}

/** How many of one type's, and of one caller's, operations a claimer takes (see `Store.claimOperations`). */
export interface ClaimAllowance {
  /** The most operations of one type the claimer runs at once. */
  perType: number;
  /** The operations it runs now, by type name. */
  running: ReadonlyMap<string, number>;
  /**
   * The most operations of one caller (`requestedBy`, a token id: its stacks' and recipes' included)
   * the claimer runs at once, so one token's backlog leaves the others room (src/fairness); operations
   * of no caller are not counted.
   */
  perFlow?: number;
  /** The operations it runs now, by caller. */
  runningByFlow?: ReadonlyMap<string, number>;
}

/**
 * One audit record to append to the store's trail (see {@link Store.appendAuditRecords}): the facts
 * it is found by, beside the record itself, which the store keeps as text and never reads.
 */
export interface AuditEntry {
  /** ISO time the record was made (its `stageTimestamp`). */
  time: string;
  verb: string;
  typeName?: string;
  tokenId?: string;
  /** The answer's HTTP status. */
  code: number;
  errorCode?: string;
}

/** The last record of a chained trail: its place and its hash. */
export interface AuditChainHead {
  sequence: number;
  hash: string;
}

/**
 * Chains one entry after `head` (undefined for an empty trail): the record's text, which names
 * `head`, and the new head. Called under the trail's write lock, in the transaction that appends.
 */
export type AuditLink = (
  entry: AuditEntry,
  index: number,
  head: AuditChainHead | undefined,
) => { record: string; head: AuditChainHead };

export interface AuditFilter {
  /** ISO times: records made at or after `since`, before `until`. */
  since?: string;
  until?: string;
  verb?: string;
  typeName?: string;
  tokenId?: string;
  /** A class of statuses (`2` for 2xx … `5`), or one status. */
  statusClass?: number;
  /** The record's stage: a request answered, or (its end) an operation that ended. */
  stage?: 'ResponseComplete' | 'OperationComplete';
  code?: number;
  errorCode?: string;
}

/**
 * One committed change, as the change log (the operations table) holds it: the operation as it
 * stands at `version`, and the change to the resource index it made, if any. An operation that
 * changes several times between two reads is read once, at its latest version.
 */
export interface Change {
  /** Monotonically increasing across the store, assigned when the change commits. */
  version: number;
  /** The version the operation began at: a change whose operation began after a point is new there. */
  begunAt: number;
  operation: OperationRecord;
  /** The resource index change committed with it: `put` (made or replaced) or `delete`. */
  resourceChange?: 'put' | 'delete';
}

/** A page of the change log (see {@link Store.readChanges}). */
export interface ChangePage {
  changes: Change[];
  /**
   * The version the log is complete from: changes after it are all kept (those at or before it may
   * have expired with their operations). A reader at an older version has missed some.
   */
  horizon: number;
  /** The latest version committed: a reader that got every change up to it is current. */
  latest: number;
}

export interface Store {
  // Types
  putType(type: StoredType): Promise<void>;
  /** The given version, or the default (latest registered) version when `version` is omitted. */
  getType(typeName: string, version?: string): Promise<StoredType | undefined>;
  listTypeVersions(typeName: string): Promise<StoredType[]>;
  /** Version and registration time of the default version, without reading the model (a cache check). */
  getTypeStamp(typeName: string): Promise<{ version: string; registeredAt: string } | undefined>;
  /** Latest version of every type, sorted by name. */
  listTypes(): Promise<StoredType[]>;
  /** Name, version and registration time of every type's default version, sorted by name, without reading models. */
  listTypeStamps(): Promise<{ typeName: string; version: string; registeredAt: string }[]>;
  /** Removes every version; false when there was none. Refuses (throws ResourceConflict) while resources exist. */
  deleteType(typeName: string): Promise<boolean>;
  /**
   * Adds the next version (one more than the highest so far, `'1'` for a new type) and makes it the
   * default, atomically; the stored record, with its version, is returned. With `expected`, only
   * while it holds (checked in the same transaction): otherwise {@link TypeChangedMeanwhile} and
   * nothing is written.
   */
  addTypeVersion(type: Omit<StoredType, 'version'>, expected?: TypeVersionExpectation): Promise<StoredType>;
  /**
   * {@link addTypeVersion} for several types at once (a manifest's), all or none: when one
   * expectation does not hold, {@link TypeChangedMeanwhile} names that type and nothing is written.
   * The records come back in the order given.
   */
  addTypeVersions(entries: readonly TypeVersionEntry[]): Promise<StoredType[]>;
  /**
   * Makes an existing version the default; false when there is no such version. With `expected`, as
   * {@link addTypeVersion}.
   */
  setDefaultTypeVersion(
    typeName: string,
    version: string,
    expected?: TypeVersionExpectation,
  ): Promise<boolean>;
  /**
   * Removes one version; false when there is no such version. Refuses (ResourceConflict) while
   * resources were last written with it, or when it is the default and other versions exist; the last
   * version goes as {@link deleteType} removes a type.
   */
  deleteTypeVersion(typeName: string, version: string): Promise<boolean>;
  /** How many resources were last written with each version (versions without resources left out). */
  countResourcesByVersion(typeName: string): Promise<Record<string, number>>;

  // Resource index
  getResource(typeName: string, identifier: string): Promise<StoredResource | undefined>;
  /**
   * The recorded model of the resource with this primary identifier, as the JSON text stored, or
   * undefined when there is none: what a read answers for a type whose provider reads from the record,
   * one column where {@link getResource} reads the whole record.
   */
  getResourceJson(typeName: string, identifier: string): Promise<string | undefined>;
  /**
   * Ordered by identifier; `nextToken` is a keyset cursor (cost independent of the page's position).
   * The page stops before the resource that would take it past `maxBytes` bytes of stored rows
   * (default and most: `RESOURCE_PAGE_BYTES`, 4 MB; the first always fits).
   */
  listResources(
    typeName: string,
    options: { limit: number; nextToken?: string; maxBytes?: number },
  ): Promise<ResourcePage>;
  countResources(typeName: string): Promise<number>;
  /**
   * Sets (or with undefined clears) what reads observe of a resource, only while its row was last
   * written at `updatedAt` (a write since then is newer news); leaves properties, `updatedAt` and
   * operations alone. False when nothing changed. A put clears it.
   */
  observeResource(
    typeName: string,
    identifier: string,
    updatedAt: string,
    observed: Observation | undefined,
  ): Promise<boolean>;
  /** How many resources the type has and how many of its operations have not ended, read at one moment. */
  typeUsage(typeName: string): Promise<TypeUsage>;
  /** The primary identifier of the resource holding additional identifier `name` = `value`, if any. */
  findByIdentifier(typeName: string, name: string, value: string): Promise<string | undefined>;
  /** Resources this one refers to. */
  listReferences(typeName: string, identifier: string): Promise<ResourceKey[]>;
  /** Resources that refer to this one (at most `limit`). */
  listReferrers(typeName: string, identifier: string, limit: number): Promise<ResourceKey[]>;

  // Operations
  /**
   * Atomically: check the client token (replay / mismatch), check no other operation is active on
   * the same resource (when `operation.identifier` is set), insert the operation, remember the token.
   * `requestHash` identifies the request for token comparison. With `lease`, a started operation is
   * leased to `owner` at once, so the worker that began it can run it without claiming it. With
   * `operation.checkedAgainstDefault`, refused with {@link DefaultVersionMoved} (nothing written)
   * unless that is still the type's default version, checked under the same lock.
   */
  beginOperation(
    operation: OperationRecord,
    requestHash?: string,
    lease?: { owner: string; until: Date },
    /**
     * Checked under the write lock with the resource as stored now (an update applies only to the
     * state it was computed from); throwing refuses the operation and nothing is written.
     */
    precondition?: (current: StoredResource | undefined) => void,
  ): Promise<BeginResult>;
  /**
   * Begin and finish an operation in one transaction, for providers whose resources are nothing but
   * this record (the state provider): the checks of beginOperation, then `decide` — synchronous,
   * under the write lock — sees the resource as stored now (and, for a delete, what refers to it) and
   * says how the operation ends; the operation is written terminal with its change applied. `decide`
   * may throw (a TypeplaneError): nothing is written and the error is the answer. The default
   * version is checked as beginOperation does.
   */
  completeOperation(
    operation: OperationRecord,
    requestHash: string | undefined,
    decide: (current: StoredResource | undefined, referrers: ResourceKey[]) => Completion,
  ): Promise<BeginResult>;
  /**
   * Several operations completed as {@link completeOperation} completes one, and `kv` written as
   * {@link kvCommit} writes it, in one transaction, all or none: a composed create (an instance and the
   * record-backed resources it is made of). The first is checked first: its own answer (replayed,
   * token-mismatch, conflict, or started) is the answer when it does not end in SUCCESS, and nothing of
   * the others is written. Once it does, every other must start and end in SUCCESS and every kv write
   * hold, or nothing at all is written and the answer says which did not (`refused`). Each completion
   * is of another resource (with an identifier): a list naming one twice is refused with an Error,
   * and nothing is written (what a completion reads is then no other's write, and may be read with
   * the others' at once).
   */
  completeAll(completions: readonly CompletionRequest[], kv: readonly KvWrite[]): Promise<AllCompleted>;
  /**
   * Persist a new state of the operation (progress, callback context, identifier once known). Only an
   * active operation changes, and with `owner` only while `owner` holds its lease: a worker that lost
   * its lease (another took the operation over) or an operation that ended meanwhile is refused with
   * {@link OperationMovedOn}, so a late writer cannot overwrite newer state.
   */
  saveOperation(operation: OperationRecord, owner?: string): Promise<void>;
  /**
   * Persist a terminal state and apply the resource change in the same transaction. For a create
   * whose identifier became known only now, `operation.identifier` is set here.
   * Throws ResourceConflict if `change` is a put of a new resource whose identifier already exists, and
   * {@link OperationMovedOn} as saveOperation does (nothing is written then).
   */
  finishOperation(operation: OperationRecord, change?: ResourceChange, owner?: string): Promise<void>;
  getOperation(requestToken: string): Promise<OperationRecord | undefined>;
  /**
   * The operation a client token began, with the hash of the request that began it (compared as
   * beginOperation compares them); undefined when the token began none (or it expired).
   */
  getOperationByClientToken(
    clientToken: string,
  ): Promise<{ operation: OperationRecord; requestHash: string | null } | undefined>;
  listOperations(
    filter: OperationFilter,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<OperationRecord>>;
  /**
   * Operations not terminal whose `retryAfter` has passed (or is unset) and which no live worker
   * holds, oldest first; each returned one is leased to `owner` until `now + leaseMs`. Lets a
   * restarted server or another replica resume them. With `allowance`, at most that many of one
   * type's operations are handed out, counting those the claimer runs already; a type at its
   * allowance holds back no other type's operations, however many of its own are due before them.
   */
  claimOperations(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
    allowance?: ClaimAllowance,
  ): Promise<ClaimedOperation[]>;
  /**
   * The operations not ended, by type, at `now`: those due (a worker may claim them) and the others
   * (a worker holds them, or they wait for their `retryAfter`). Read from the index of active
   * operations, for the queue depth metrics.
   */
  countActiveOperations(now: Date): Promise<ActiveOperationCount[]>;
  /** The store's own figures, read without a query (see {@link StoreStats}). */
  stats(): StoreStats;
  /** Extend or drop a lease (drop with `leaseMs = 0`). */
  renewLease(requestToken: string, owner: string, now: Date, leaseMs: number): Promise<boolean>;
  /** Remove terminal operations (and with them their client tokens) older than `before`; how many went. */
  expireTokens(before: Date): Promise<number>;

  // Provider state (the built-in state provider keeps its resources here)
  kvGet(namespace: string, key: string): Promise<KvEntry | undefined>;
  /** Who last wrote the entry (its `writtenBy`), without reading its value: a cheap "has it changed?". */
  kvStamp(namespace: string, key: string): Promise<string | undefined>;
  /** Insert only if absent; false when the key exists. */
  kvInsert(namespace: string, key: string, entry: KvEntry): Promise<boolean>;
  /** Replace; false when absent. */
  kvReplace(namespace: string, key: string, entry: KvEntry): Promise<boolean>;
  /** Replace only while the entry was last written by `expectedWrittenBy` (compare-and-swap); false otherwise. */
  kvSwap(namespace: string, key: string, entry: KvEntry, expectedWrittenBy: string): Promise<boolean>;
  kvDelete(namespace: string, key: string): Promise<boolean>;
  /**
   * All of `writes` in one transaction, or none of them: undefined once all are written, otherwise
   * the first whose condition failed (nothing is written then).
   */
  kvCommit(writes: readonly KvWrite[]): Promise<KvKey | undefined>;
  kvList(
    namespace: string,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<{ key: string; entry: KvEntry }>>;

  // Audit trail
  /**
   * Append records to the trail, chained by `link` in the order given after the trail's last record,
   * in one transaction under a lock every appender (every replica) takes: the stored trail is one
   * gap-free chain. All or none.
   */
  appendAuditRecords(entries: readonly AuditEntry[], link: AuditLink): Promise<AuditChainHead>;
  /** Records (their text), newest first; `nextToken` continues with older ones. */
  listAuditRecords(
    filter: AuditFilter,
    options: { limit: number; nextToken?: string },
  ): Promise<Page<string>>;
  /** Remove records made before `before`, never the last one (the chain goes on from it); how many went. */
  expireAuditRecords(before: Date): Promise<number>;

  // Change log (watch)
  /**
   * Changes after version `after`, oldest first, at most `limit`, each committed (a change's version
   * is assigned under the lock its commit takes, so none can commit behind a version already read).
   */
  readChanges(after: number, limit: number): Promise<ChangePage>;
  /** The latest version committed: what a list read after it is at least as new as. */
  latestVersion(): Promise<number>;
  /**
   * Calls `listener` after this process commits a change, and (PostgreSQL) when another replica says
   * it did; returns the function that stops it. A wake-up only: the change log is the truth.
   */
  onChanges(listener: () => void): () => void;

  /**
   * Resolves when the store can serve: reachable, and its schema the one this Typeplane knows
   * (another replica may have migrated it further). Rejects with a reason fit to show anyone: no
   * address, user or other detail of the connection.
   */
  ready(): Promise<void>;

  close(): Promise<void>;
}

/**
 * One write of {@link Store.kvCommit}. Without `base`, `entry` is inserted: the key must be absent.
 * With `base`, the entry must still be the one stamped `base` (its `writtenBy`): it is replaced by
 * `entry`, or deleted when there is none. With `expect` (and neither `entry` nor `base`), nothing is
 * written: the entry must be the one stamped `expect`, or with null, there must be none — what a
 * writer read earlier (or kept) is seen, in the transaction, to be still so.
 */
export interface KvWrite {
  namespace: string;
  key: string;
  entry?: KvEntry;
  base?: string;
  expect?: string | null;
}

export interface KvKey {
  namespace: string;
  key: string;
}

export interface KvEntry {
  value: Model;
  /** The request token that last wrote it: lets a handler re-invoked after a crash recognise its own write. */
  writtenBy: string;
}
