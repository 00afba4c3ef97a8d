/**
 * @module Rows and records: how every SQL store lays out types, resources, operations and kv entries,
 * and the errors its writes share. JSON columns are text; times are `toISOString()` text, so that
 * they compare as text (binary collation) in every database.
 */
import { TypeplaneError, type ErrorCode } from '../errors.js';
import type { Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { Verdict } from '../verdict.js';
import type {
  ActiveOperationCount,
  Change,
  BeginResult,
  ClaimAllowance,
  ClaimedOperation,
  KvEntry,
  Operation,
  OperationRecord,
  OperationStatus,
  Page,
  ResourcePage,
  StoredResource,
  StoredType,
  TypeUsage,
  TypeVersionExpectation,
} from './types.js';

export interface TypeRow {
  type_name: string;
  version: string;
  model_json: string;
  source: string;
  registered_at: string;
}

export interface ResourceRow {
  type_name: string;
  identifier: string;
  properties_json: string;
  sealed: string | null;
  created_at: string;
  updated_at: string;
  type_version: string | null;
  observed_status: string | null;
  observed_since: string | null;
}

/** The named parameters of an operation row. */
export interface GuardedParams extends OperationParams {
  owner: string | null;
}

export interface OperationParams {
  request_token: string;
  type_name: string;
  identifier: string | null;
  operation: string;
  status: string;
  event_time: string;
  resource_model_json: string | null;
  status_message: string | null;
  error_code: string | null;
  retry_after: string | null;
  request_json: string;
  callback_context_json: string | null;
  started_at: string;
  deadline_at: string;
  attempts: number;
  client_token: string | null;
  warnings_json: string | null;
  requested_by: string | null;
}

/** A stored operation: its parameters plus the keyset column. */
export interface OperationRow extends OperationParams {
  seq: number;
}

export interface TokenRow extends OperationRow {
  request_token: string;
  request_hash: string | null;
}

export interface KvRow {
  key: string;
  value_json: string;
  written_by: string;
}

/** The columns an operation is read with. */
export const OPERATION_COLUMNS = `seq, request_token, type_name, identifier, operation, status, event_time,
  resource_model_json, status_message, error_code, retry_after, request_json, callback_context_json,
  started_at, deadline_at, attempts, client_token, warnings_json, requested_by`;

/** The statuses of an operation still running. */
export const ACTIVE: ReadonlySet<string> = new Set(['PENDING', 'IN_PROGRESS', 'CANCEL_IN_PROGRESS']);
/** The same, as an SQL list; kept in step with `ACTIVE_STATUSES`. */
export const ACTIVE_SQL = `('PENDING','IN_PROGRESS','CANCEL_IN_PROGRESS')`;
/**
 * That an operation is active, as the shared statements and the SQLite store's partial indexes write
 * it: equalities, not `status IN (…)`. SQLite evaluates an IN list of three or more
 * constants through a table it builds afresh each time a statement runs — for each of the four
 * partial indexes on active operations, on every insert and update of an operation (an insert cost
 * 13–15 µs so, against 4–6 µs with equalities). SQLite uses a partial index only for a query that
 * repeats the index's condition as written, so both use this text. (PostgreSQL's indexes keep the IN
 * list: its planner proves that either form implies the other.)
 */
export const ACTIVE_WHERE = `(${[...ACTIVE].map((status) => `status = '${status}'`).join(' OR ')})`;
/** The terminal statuses as an SQL list; kept in step with `TERMINAL_STATUSES`. */
export const TERMINAL_SQL = `('SUCCESS','FAILED','CANCEL_COMPLETE')`;

/**
 * The operations a worker may claim at time `at` (the store's placeholder, used twice): not ended,
 * due (no `retryAfter`, or passed), and held by no live lease. Every claim query reads them so.
 */
export function dueSql(at: string): string {
  return `${ACTIVE_WHERE} AND (retry_after IS NULL OR retry_after <= ${at})
    AND (lease_until IS NULL OR lease_until <= ${at})`;
}

/**
 * The statement that removes the terminal operations whose last status change is before `before`
 * (the store's placeholder for that time). It needs no index of its own: an operation that ended
 * before the cut-off also started before it, and seq follows start order, so the candidates are the
 * operations below the first seq that started at or after it (found by walking from the oldest).
 */
export function expireOperationsSql(before: string): string {
  return `DELETE FROM operations WHERE ${expiredSql(before)}`;
}

export function expiredSql(before: string): string {
  return `seq < COALESCE((SELECT seq FROM operations WHERE started_at >= ${before} ORDER BY seq LIMIT 1), 9223372036854775807)
      AND status IN ${TERMINAL_SQL} AND event_time < ${before}`;
}

/**
 * The statement, run before {@link expireOperationsSql} in its transaction, that raises the change
 * log's horizon to the latest version of the operations about to go: a watch from before it has
 * missed changes (`greatest`: the store's two-argument maximum, MAX in SQLite, GREATEST in PostgreSQL).
 */
export function raiseHorizonSql(before: string, greatest: string): string {
  return `UPDATE change_horizon SET version = ${greatest}(version,
    COALESCE((SELECT MAX(COALESCE(change_version, seq)) FROM operations WHERE ${expiredSql(before)}), 0))`;
}

/** Migrations another change in progress takes (empty: they change nothing). */
export const RESERVED = (count: number): string[] => Array.from({ length: count }, () => '');

/**
 * The change log's migration, in both stores (`integer`: the store's 64-bit integer type). Part of
 * released migrations: never edit it.
 */
export function changeLogMigration(integer: 'INTEGER' | 'bigint'): string {
  return `
  ALTER TABLE operations ADD COLUMN change_version ${integer};
  ALTER TABLE operations ADD COLUMN resource_change TEXT;
  CREATE INDEX operations_changes ON operations (change_version) WHERE change_version IS NOT NULL;
  CREATE TABLE change_horizon (version ${integer} NOT NULL);
  INSERT INTO change_horizon (version) VALUES (0);
  `;
}

/** The columns a change is read with: the operation's, its versions and its resource change. */
export const CHANGE_COLUMNS = `${OPERATION_COLUMNS}, change_version, resource_change`;

/** An operation row as the change log reads it. */
export interface ChangeRow extends OperationRow {
  change_version: number | string | null;
  resource_change: string | null;
}

/**
 * The change log after `after` (the store's placeholder), oldest first: operations begun since and
 * not changed since (their version is their seq), and operations changed since (the version of their
 * latest change). Each branch walks an index from `after`: the rowid / primary key, and the partial
 * index of changed operations.
 */
export function changesSql(after: string, upTo: string, limit: string): string {
  return `SELECT * FROM (
      SELECT ${CHANGE_COLUMNS} FROM operations WHERE seq > ${after} AND seq <= ${upTo} AND change_version IS NULL
      UNION ALL
      SELECT ${CHANGE_COLUMNS} FROM operations WHERE change_version > ${after} AND change_version <= ${upTo}
    ) c ORDER BY COALESCE(change_version, seq) LIMIT ${limit}`;
}

export function toChange(row: ChangeRow): Change {
  const begunAt = Number(row.seq);
  const change: Change = {
    version: row.change_version === null ? begunAt : Number(row.change_version),
    begunAt,
    operation: toOperationRecord(row),
  };
  if (row.resource_change === 'put' || row.resource_change === 'delete')
    change.resourceChange = row.resource_change;
  return change;
}

/** What a resource change is recorded as beside its operation (see {@link Change.resourceChange}). */
export function resourceChangeOf(change: { kind: 'put' | 'delete' } | undefined): string | null {
  return change?.kind ?? null;
}

/**
 * The type names that have operations not terminal, each found with one step of the index on
 * `(type_name, seq)` of those operations (a loose index scan): as many steps as there are such
 * types, whatever their backlogs.
 */
export const ACTIVE_TYPES_SQL = `WITH RECURSIVE t(name) AS (
    SELECT (SELECT MIN(type_name) FROM operations WHERE ${ACTIVE_WHERE})
    UNION ALL
    SELECT (SELECT MIN(type_name) FROM operations WHERE ${ACTIVE_WHERE} AND type_name > t.name)
    FROM t WHERE t.name IS NOT NULL
  )
  SELECT name FROM t WHERE name IS NOT NULL`;

/** The callers (token ids) that have operations not terminal, found as the types are (a loose index scan). */
export const ACTIVE_REQUESTERS_SQL = `WITH RECURSIVE t(name) AS (
    SELECT (SELECT MIN(requested_by) FROM operations WHERE ${ACTIVE_WHERE} AND requested_by IS NOT NULL)
    UNION ALL
    SELECT (SELECT MIN(requested_by) FROM operations WHERE ${ACTIVE_WHERE} AND requested_by > t.name)
    FROM t WHERE t.name IS NOT NULL
  )
  SELECT name FROM t WHERE name IS NOT NULL`;

/** How many more of `typeName`'s operations a claim within `allowance` may take, at most `limit`. */
export function roomFor(typeName: string, allowance: ClaimAllowance, limit: number): number {
  return Math.max(0, Math.min(limit, allowance.perType - (allowance.running.get(typeName) ?? 0)));
}

/** How many more operations of caller `flow` a claim within `allowance` may take, at most `limit`. */
export function flowRoomFor(flow: string | null, allowance: ClaimAllowance, limit: number): number {
  if (flow === null || allowance.perFlow === undefined) return limit;
  return Math.max(0, Math.min(limit, allowance.perFlow - (allowance.runningByFlow?.get(flow) ?? 0)));
}

/** A due row as a claim weighs it: its place, its type and its caller. */
export interface DueRow {
  seq: number | string;
  type_name: string;
  requested_by: string | null;
}

/**
 * Whether the oldest due rows, taken as they are, stay within the allowance: then they are the
 * claim (one query, the usual case), and the types and callers need not be asked one by one.
 */
export function withinAllowance(rows: readonly DueRow[], allowance: ClaimAllowance): boolean {
  return fairlyChosen([rows], allowance, Infinity).length === rows.length;
}

/**
 * The claim from candidate lists (each type's oldest due within its room, each caller's within its
 * room): the oldest first, each taken while its type and its caller have room, at most `limit`.
 */
export function fairlyChosen<Row extends DueRow>(
  lists: readonly (readonly Row[])[],
  allowance: ClaimAllowance,
  limit: number,
): Row[] {
  const byType = new Map<string, number>();
  const byFlow = new Map<string, number>();
  const seen = new Set<string>();
  const chosen: Row[] = [];
  for (const row of lists.flat().sort((a, b) => Number(a.seq) - Number(b.seq))) {
    if (chosen.length >= limit) break;
    const key = String(row.seq);
    if (seen.has(key)) continue;
    seen.add(key);
    const ofType = byType.get(row.type_name) ?? 0;
    if (ofType >= roomFor(row.type_name, allowance, Infinity)) continue;
    const flow = row.requested_by;
    const ofFlow = flow === null ? 0 : (byFlow.get(flow) ?? 0);
    if (ofFlow >= flowRoomFor(flow, allowance, Infinity)) continue;
    byType.set(row.type_name, ofType + 1);
    if (flow !== null) byFlow.set(flow, ofFlow + 1);
    chosen.push(row);
  }
  return chosen;
}

/** `limit + 1` rows → a page of `limit` and, when there were more, the cursor of its last item. */
export function page<T>(rows: T[], limit: number, cursor: (last: T) => string): Page<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return last === undefined ? { items } : { items, nextToken: cursor(last) };
}

/**
 * The most bytes of stored properties (UTF-8, sealed values included) one page of resources holds: a
 * model may be 1 MB, so a thousand of them would be a gigabyte to read, parse and answer. A page stops
 * before the resource that would pass it (the first always fits), and its nextToken goes on from there.
 * Bytes, not characters: PostgreSQL knows a stored value's byte length without decompressing it
 * (octet_length), while counting its characters decompressed every row a page looked at (~0.5 s of
 * the database's time for 40 rows of 0.7 MB).
 */
export const RESOURCE_PAGE_BYTES = 4 * 1024 * 1024;

/** The stored size of a resource row, as {@link RESOURCE_PAGE_BYTES} counts it. */
export const resourceRowBytes = (row: ResourceRow): number =>
  Buffer.byteLength(row.properties_json) + (row.sealed?.length ?? 0);

/** A page's size bound: `maxBytes` as asked, never past {@link RESOURCE_PAGE_BYTES}. */
export const pageBytes = (maxBytes: number | undefined): number =>
  Math.max(1, Math.min(Math.floor(maxBytes ?? RESOURCE_PAGE_BYTES), RESOURCE_PAGE_BYTES));

/**
 * A page of at most `limit` resources from rows in key order (at least `limit + 1` of them when more
 * remain), ending early at `maxBytes` (see {@link pageBytes}); rows past the end are never parsed,
 * and the iteration stops there.
 */
export function resourcePage(
  rows: Iterable<ResourceRow>,
  limit: number,
  cursor: (last: StoredResource) => string,
  maxBytes: number,
): ResourcePage {
  const items: StoredResource[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = resourceRowBytes(row);
    if (items.length === limit || (items.length > 0 && bytes + size > maxBytes))
      return { items, nextToken: cursor(items[items.length - 1]!), bytes };
    bytes += size;
    items.push(toStoredResource(row));
  }
  return { items, bytes };
}

/** Normalise a time to `toISOString()` form so that stored times compare as text. */
/** Already in the stored form (what toISOString gives, as the engine passes): kept as is. */
export const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isoTime(value: string, field: string): string {
  if (CANONICAL_TIME.test(value)) return value;
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) {
    throw new TypeplaneError('InvalidRequest', `${field} is not a valid time: ${JSON.stringify(value)}.`);
  }
  return time.toISOString();
}

/**
 * A resource's row as both stores write it, in their column order: type_name, identifier,
 * properties_json, sealed, created_at, updated_at, type_version.
 */
export function resourceParams(
  resource: StoredResource,
  /** `resource.properties` serialised already (the same text JSON.stringify gives). */
  propertiesJson: string = JSON.stringify(resource.properties),
): [string, string, string, string | null, string, string, string | null] {
  return [
    resource.typeName,
    resource.identifier,
    propertiesJson,
    resource.sealed ?? null,
    isoTime(resource.createdAt, 'createdAt'),
    isoTime(resource.updatedAt, 'updatedAt'),
    resource.typeVersion ?? null,
  ];
}

export function optionalIsoTime(value: string | undefined, field: string): string | null {
  return value === undefined ? null : isoTime(value, field);
}

export function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** A begun operation as stored (times normalised), without reading the row back. */
export function startedAs(operation: OperationRecord, params: OperationParams): BeginResult {
  const { checkedAgainstDefault: _, ...stored } = operation;
  return {
    kind: 'started',
    operation: {
      ...stored,
      eventTime: params.event_time,
      startedAt: params.started_at,
      deadlineAt: params.deadline_at,
    },
  };
}

export function operationParams(operation: OperationRecord): OperationParams {
  return {
    request_token: operation.requestToken,
    type_name: operation.typeName,
    identifier: operation.identifier ?? null,
    operation: operation.operation,
    status: operation.status,
    event_time: isoTime(operation.eventTime, 'eventTime'),
    resource_model_json: json(operation.resourceModel),
    status_message: operation.statusMessage ?? null,
    error_code: operation.errorCode ?? null,
    retry_after: optionalIsoTime(operation.retryAfter, 'retryAfter'),
    request_json: JSON.stringify(operation.request),
    callback_context_json: json(operation.callbackContext),
    started_at: isoTime(operation.startedAt, 'startedAt'),
    deadline_at: isoTime(operation.deadlineAt, 'deadlineAt'),
    attempts: operation.attempts,
    client_token: operation.clientToken ?? null,
    warnings_json: operation.warnings?.length ? JSON.stringify(operation.warnings) : null,
    requested_by: operation.requestedBy ?? null,
  };
}

export function toOperationRecord(row: OperationRow): OperationRecord {
  const record: OperationRecord = {
    requestToken: row.request_token,
    typeName: row.type_name,
    operation: row.operation as Operation,
    status: row.status as OperationStatus,
    eventTime: row.event_time,
    request: JSON.parse(row.request_json) as Record<string, unknown>,
    startedAt: row.started_at,
    deadlineAt: row.deadline_at,
    attempts: row.attempts,
  };
  if (row.identifier !== null) record.identifier = row.identifier;
  if (row.resource_model_json !== null) record.resourceModel = JSON.parse(row.resource_model_json) as Model;
  if (row.status_message !== null) record.statusMessage = row.status_message;
  if (row.error_code !== null) record.errorCode = row.error_code as ErrorCode;
  if (row.retry_after !== null) record.retryAfter = row.retry_after;
  if (row.callback_context_json !== null) {
    record.callbackContext = JSON.parse(row.callback_context_json) as Record<string, unknown>;
  }
  if (row.client_token !== null) record.clientToken = row.client_token;
  if (row.warnings_json) record.warnings = JSON.parse(row.warnings_json) as Verdict[];
  if (row.requested_by !== null) record.requestedBy = row.requested_by;
  return record;
}

/** A row a claim read: an operation and who held its lease before (null: nobody, or released). */
export interface ClaimableRow extends OperationRow {
  lease_owner: string | null;
}

/**
 * A claimed operation; taken over when another owner still held its lease, which ran out (a worker
 * that ends or waits for a callback releases its lease, so only a stopped or stalled one leaves one).
 */
export function toClaimedOperation(row: ClaimableRow, owner: string): ClaimedOperation {
  const claimed: ClaimedOperation = toOperationRecord(row);
  if (row.lease_owner !== null && row.lease_owner !== owner) claimed.takenOver = true;
  return claimed;
}

/**
 * Each type's operations not ended, and how many of them are due at `at` (the store's placeholder,
 * used twice), read on the index of active operations by type.
 */
export function activeCountsSql(at: string): string {
  return `SELECT type_name, COUNT(*) AS active, SUM(CASE WHEN ${dueSql(at)} THEN 1 ELSE 0 END) AS due
    FROM operations WHERE ${ACTIVE_WHERE} GROUP BY type_name ORDER BY type_name`;
}

export interface ActiveCountRow {
  type_name: string;
  /** Text on PostgreSQL (a bigint). */
  active: number | string;
  due: number | string;
}

export function toActiveOperationCount(row: ActiveCountRow): ActiveOperationCount {
  const due = Number(row.due);
  return { typeName: row.type_name, due, inProgress: Number(row.active) - due };
}

export function toStoredType(row: TypeRow): StoredType {
  return {
    typeName: row.type_name,
    version: row.version,
    model: JSON.parse(row.model_json) as ResourceType,
    source: row.source,
    registeredAt: row.registered_at,
  };
}

export function toStoredResource(row: ResourceRow): StoredResource {
  const resource: StoredResource = {
    typeName: row.type_name,
    identifier: row.identifier,
    properties: JSON.parse(row.properties_json) as Model,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.sealed !== null) resource.sealed = row.sealed;
  if (row.type_version !== null) resource.typeVersion = row.type_version;
  if (row.observed_status === 'NotFound' && row.observed_since !== null)
    resource.observed = { status: row.observed_status, since: row.observed_since };
  return resource;
}

export function toKvEntry(row: KvRow): KvEntry {
  return { value: JSON.parse(row.value_json) as Model, writtenBy: row.written_by };
}

// ---- Errors ----

export function activeConflict(operation: OperationRecord): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `Another operation is in progress on ${operation.typeName} ${operation.identifier ?? '(identifier unknown)'}.`,
    [{ pointer: '/identifier', message: 'another operation is active on this resource' }],
  );
}

export function missingOperation(requestToken: string): TypeplaneError {
  return new TypeplaneError('InternalFailure', `Operation ${requestToken} is not in the store.`);
}
/** A create finishing onto a resource that exists. */
export function alreadyExists(resource: StoredResource): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `A resource of type ${resource.typeName} with identifier ${resource.identifier} already exists.`,
    [{ pointer: '/identifier', message: 'already exists', identifier: resource.identifier }],
  );
}

/** A resource change that would give an additional identifier value another resource holds. */
export function identifierTaken(
  typeName: string,
  identifier: string,
  key: { name: string; value: string },
  holder: string,
): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `${typeName} ${holder} already has the additional identifier ${key.name} = ${key.value}, so ${identifier} cannot have it too`,
    [
      {
        pointer: '/identifier',
        message: 'additional identifier taken',
        additionalIdentifier: key.name,
        identifier: holder,
      },
    ],
  );
}

/** Deregistering a type that still has resources. */
export function typeInUse(typeName: string, count: number): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `Type ${typeName} still has ${count} resource${count === 1 ? '' : 's'}: delete ${count === 1 ? 'it' : 'them'} first.`,
    [
      {
        pointer: '/typeName',
        message: `${count} resource${count === 1 ? '' : 's'} of this type exist`,
        resourceCount: count,
      },
    ],
  );
}

/**
 * Why `expected` no longer holds for a type whose default version is now `current` (and whose
 * `usage` is read when `expected.unused`); undefined while it holds.
 */
export function unmetExpectation(
  expected: TypeVersionExpectation,
  current: string | undefined,
  usage?: TypeUsage,
): string | undefined {
  if (current !== expected.defaultVersion)
    return `its default version is ${current ?? 'gone'}, not ${expected.defaultVersion ?? 'none'}`;
  if (!expected.unused || !usage || (usage.resources === 0 && usage.activeOperations === 0)) return undefined;
  const { resources, activeOperations: active } = usage;
  return `${resources} resource${resources === 1 ? '' : 's'} and ${active} operation${active === 1 ? '' : 's'} in progress now`;
}

/** A type's resources and operations not ended, in one statement (one snapshot): `resources`, `active`. */
export const TYPE_USAGE = (param: string) =>
  `SELECT (SELECT COUNT(*) FROM resources WHERE type_name = ${param}) AS resources,
     (SELECT COUNT(*) FROM operations WHERE ${ACTIVE_WHERE} AND type_name = ${param}) AS active`;

/** One operation on a type that has not ended (its request token), or none. */
export const ACTIVE_OPERATION_OF_TYPE = (param: string) =>
  `SELECT request_token FROM operations WHERE ${ACTIVE_WHERE} AND type_name = ${param} LIMIT 1`;

/**
 * A type whose operations have not all ended cannot be deregistered: a handler may be making (or have
 * made) something that only its type's provider could ever find and remove again.
 */
/** A version of a type that cannot go: resources were last written with it, or it is the default. */
export function versionInUse(
  typeName: string,
  version: string,
  counts: { resources: number; versions: number; isDefault: boolean },
): TypeplaneError {
  if (counts.resources > 0)
    return new TypeplaneError(
      'ResourceConflict',
      `Version ${version} of ${typeName} is in use: ${counts.resources} resource${counts.resources === 1 ? ' was' : 's were'} last written with it; update ${counts.resources === 1 ? 'it' : 'them'} under another version, or delete ${counts.resources === 1 ? 'it' : 'them'}, first.`,
      [
        {
          pointer: '/version',
          message: `${counts.resources} resource${counts.resources === 1 ? '' : 's'} recorded with this version`,
          resourceCount: counts.resources,
          version,
        },
      ],
    );
  return new TypeplaneError(
    'ResourceConflict',
    `Version ${version} is the default version of ${typeName}, which has ${counts.versions - 1} other version${counts.versions === 2 ? '' : 's'}: make another one the default first ('typeplane type set-default').`,
    [{ pointer: '/version', message: 'is the default version', versionCount: counts.versions, version }],
  );
}

export function typeBusy(typeName: string, requestToken: string): TypeplaneError {
  return new TypeplaneError(
    'ResourceConflict',
    `Type ${typeName} has operations that have not ended (such as request ${requestToken}): wait for them to end, or cancel them, then deregister it.`,
    [{ pointer: '/typeName', message: 'operations of this type have not ended', requestToken }],
  );
}

/** Thrown inside a kvCommit's transaction by the write whose condition failed: it undoes them all. */
export class KvConflict extends Error {
  readonly namespace: string;
  readonly key: string;
  constructor(at: { namespace: string; key: string }) {
    super(`kv ${at.namespace} ${at.key} changed meanwhile`);
    this.namespace = at.namespace;
    this.key = at.key;
  }
}

/** Throws unless each of a completeAll's completions is of another resource, with an identifier. */
export function assertDistinctResources(completions: readonly { operation: OperationRecord }[]): void {
  // Compared pair by pair, without a key made for each: a composed create has a few parts.
  for (let i = 0; i < completions.length; i++) {
    const { typeName, identifier } = completions[i]!.operation;
    if (identifier === undefined)
      throw new Error(`completeAll takes completions of identified resources: a ${typeName} has none`);
    for (let j = 0; j < i; j++) {
      const earlier = completions[j]!.operation;
      if (earlier.identifier === identifier && earlier.typeName === typeName)
        throw new Error(`completeAll takes each resource once: ${typeName} ${identifier} twice`);
    }
  }
}

/** Thrown inside a completeAll's transaction by a completion that did not end in SUCCESS: it undoes them all. */
export class CompletionRefused extends Error {
  constructor(
    readonly index: number,
    readonly result: BeginResult,
  ) {
    super(`completion ${index} did not end in SUCCESS`);
  }
}
