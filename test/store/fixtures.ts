/**
 * Shared helpers of the store tests: a fresh store per test — a SQLite file, or a schema of its own
 * in the PostgreSQL server at TYPEPLANE_TEST_POSTGRES_URL (default 127.0.0.1:5432/test) — and record
 * builders. `eachStore` defines a test once per store kind; the PostgreSQL one skips, saying so, when
 * no server answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  openPostgresStore,
  openSqliteStore,
  type OperationRecord,
  type SqliteStore,
  type Store,
  type StoredResource,
  type StoredType,
} from '../../src/store/index.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';
import { meterStatements, type StatementMeter } from '../helpers/sqlite-meter.js';
import type { ResourceType } from '../../src/schema/index.js';

/**
 * A fresh directory, removed when the test ends. A test's `after` hooks run in the order they were
 * added, so a store opened on a file here after this call is still open while it is removed: its
 * checkpointer or its counts may write a file into it meanwhile (ENOTEMPTY). The removal tries again
 * then, as `rm -r` would be run again; freshStore and meteredStore also close first.
 */
export function tempDir(t: TestContext, prefix = 'typeplane-store-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }));
  return dir;
}

/**
 * A store on a fresh file (closed when the test ends), and the file's path. Its close is registered
 * before its folder's removal: a test's `after` hooks run in the order they were added, and a store
 * still open while its folder goes (its counts flushed on their clock, its checkpointer thread) can
 * write a file into it meanwhile (ENOTEMPTY).
 */
export async function freshStore(t: TestContext): Promise<{ store: SqliteStore; path: string; dir: string }> {
  const opened: { store?: SqliteStore } = {};
  t.after(() => opened.store?.close());
  const dir = tempDir(t);
  const path = join(dir, 'state', 'typeplane.db');
  const store = (opened.store = await openSqliteStore(path));
  return { store, path, dir };
}

/**
 * A store on a fresh file whose statements are counted from its opening (`meter`), holding one type
 * (Acme::Test::Thing) and one resource of it (`made`); what those took is already taken.
 */
export async function meteredStore(t: TestContext): Promise<{ store: SqliteStore; meter: StatementMeter }> {
  // Both let go of the file before its folder is removed (see freshStore).
  const opened: { store?: SqliteStore; meter?: StatementMeter } = {};
  t.after(() => opened.meter?.stop());
  t.after(() => opened.store?.close());
  const path = join(tempDir(t), 'typeplane.db');
  const meter = (opened.meter = meterStatements(path, new Set()));
  const store = (opened.store = await openSqliteStore(path));
  await store.putType(storedType('Acme::Test::Thing'));
  await createResource(store, 'made');
  meter.take();
  return { store, meter };
}

export type StoreKind = 'sqlite' | 'postgresql';

/** Where a store is: what another process needs to open the same one. */
export type StoreSpec =
  { kind: 'sqlite'; path: string } | { kind: 'postgresql'; url: string; schema: string };

export function openSpec(spec: StoreSpec): Promise<Store> {
  return spec.kind === 'sqlite'
    ? openSqliteStore(spec.path)
    : openPostgresStore(spec.url, { schema: spec.schema });
}

/** A place for a fresh store, removed when the test ends (a temp folder, or a PostgreSQL schema). */
export async function freshSpec(t: TestContext, kind: StoreKind): Promise<StoreSpec> {
  if (kind === 'sqlite') return { kind, path: join(tempDir(t), 'state', 'typeplane.db') };
  const schema = freshSchema(t, 'tp_store_test');
  return { kind, url: PG_URL, schema };
}

/** A fresh store of `kind`, closed when the test ends (before its place is removed, see freshStore), and where it is. */
export async function freshStoreOf(
  t: TestContext,
  kind: StoreKind,
): Promise<{ store: Store; spec: StoreSpec }> {
  const opened: { store?: Store } = {};
  t.after(() => opened.store?.close());
  const spec = await freshSpec(t, kind);
  const store = (opened.store = await openSpec(spec));
  return { store, spec };
}

/** The test once per store kind, named with the kind. */
export function eachStore(name: string, fn: (t: TestContext, kind: StoreKind) => Promise<void>): void {
  test(`${name} [sqlite]`, (t) => fn(t, 'sqlite'));
  test(`${name} [postgresql]`, { skip: pgSkip }, (t) => fn(t, 'postgresql'));
}

export const T0 = new Date('2025-01-01T00:00:00.000Z');

export function at(offsetMs: number): string {
  return new Date(T0.getTime() + offsetMs).toISOString();
}

export function model(typeName: string, apiVersion?: string): ResourceType {
  return {
    typeName,
    ...(apiVersion === undefined ? {} : { apiVersion }),
    dialect: apiVersion === undefined ? 'resource-schema' : 'manifest',
    description: `The ${typeName} type.`,
    schema: { type: 'object', properties: { Name: { type: 'string' } } },
    primaryIdentifier: ['/properties/Name'],
    additionalIdentifiers: [],
    readOnlyProperties: [],
    writeOnlyProperties: [],
    createOnlyProperties: ['/properties/Name'],
    conditionalCreateOnlyProperties: [],
    deprecatedProperties: [],
    handlers: {},
    traits: { noReplace: false, references: [] },
  };
}

export function storedType(typeName: string, version = '1', registeredAt = at(0)): StoredType {
  return {
    typeName,
    version,
    model: model(typeName, version === '1' ? undefined : version),
    source: JSON.stringify({ typeName, version }),
    registeredAt,
  };
}

let counter = 0;

export function operation(overrides: Partial<OperationRecord> = {}): OperationRecord {
  counter += 1;
  return {
    requestToken: `req-${process.pid}-${counter}`,
    typeName: 'Acme::Test::Thing',
    operation: 'CREATE',
    status: 'IN_PROGRESS',
    eventTime: at(0),
    request: { desiredState: { Name: 'a' } },
    startedAt: at(0),
    deadlineAt: at(3_600_000),
    attempts: 0,
    ...overrides,
  };
}

export function resource(identifier: string, overrides: Partial<StoredResource> = {}): StoredResource {
  return {
    typeName: 'Acme::Test::Thing',
    identifier,
    properties: { Name: identifier },
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

/** Create a resource the way the engine does: begin a CREATE, finish it with a put. */
export async function createResource(
  store: Store,
  identifier: string,
  typeName = 'Acme::Test::Thing',
  typeVersion?: string,
): Promise<void> {
  const op = operation({ typeName, identifier });
  const begun = await store.beginOperation(op);
  if (begun.kind !== 'started') throw new Error(`could not begin: ${begun.kind}`);
  await store.finishOperation(
    { ...op, status: 'SUCCESS' },
    {
      kind: 'put',
      resource: resource(identifier, { typeName, ...(typeVersion === undefined ? {} : { typeVersion }) }),
    },
  );
}
