/**
 * Shared helpers of the store tests: a fresh SQLite file per test, and record builders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  openSqliteStore,
  type OperationRecord,
  type SqliteStore,
  type StoredResource,
  type StoredType,
} from '../../src/store/index.js';
import type { ResourceType } from '../../src/schema/index.js';

/** A fresh directory, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'typeplane-store-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A store on a fresh file (closed when the test ends), and the file's path. */
export async function freshStore(t: TestContext): Promise<{ store: SqliteStore; path: string; dir: string }> {
  const dir = tempDir(t);
  const path = join(dir, 'state', 'typeplane.db');
  const store = await openSqliteStore(path);
  t.after(() => store.close());
  return { store, path, dir };
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
  store: SqliteStore,
  identifier: string,
  typeName = 'Acme::Test::Thing',
): Promise<void> {
  const op = operation({ typeName, identifier });
  const begun = await store.beginOperation(op);
  if (begun.kind !== 'started') throw new Error(`could not begin: ${begun.kind}`);
  await store.finishOperation(
    { ...op, status: 'SUCCESS' },
    { kind: 'put', resource: resource(identifier, { typeName }) },
  );
}
