/**
 * @module A consistency check of a store, read through the {@link Store} interface only, so it works
 * on any implementation and on a store another process wrote. It states the invariants the engine
 * keeps, so that a test (or an operator after an incident) can assert them:
 *
 * - every resource's properties match its type's schema (shape; presence rules relaxed, as for
 *   provider answers, since write-only values may be kept apart) and carry the primary identifier
 *   its row is keyed by. The engine stores no `null` (a nullable property set to null is
 *   removed); one found where the schema allows it (a record written before) is tolerated, and
 *   every answer drops it;
 * - every reference a resource has in the references index points at an existing resource;
 * - at most one active operation per resource, and every active operation's type is registered;
 * - every operation has a known status, and an error code (when it has one) from the catalogue.
 */
import { isErrorCode } from '../errors.js';
import { compileType } from '../registry/index.js';
import type { Store, StoredType } from '../store/types.js';
import { identifierOf } from '../model/index.js';
import { ACTIVE_STATUSES, TERMINAL_STATUSES, type OperationStatus } from './types.js';

export interface ConsistencyProblem {
  /** Which invariant is broken. */
  check:
    | 'resource-schema'
    | 'resource-identifier'
    | 'reference-dangling'
    | 'operation-status'
    | 'operation-error-code'
    | 'operation-type'
    | 'operation-concurrent';
  typeName: string;
  identifier?: string;
  requestToken?: string;
  message: string;
}

const PAGE = 500;
const ACTIVE: ReadonlySet<OperationStatus> = new Set(ACTIVE_STATUSES);

/** Every broken invariant found in `store` (empty when consistent). Reads the whole store. */
export async function checkConsistency(store: Store): Promise<ConsistencyProblem[]> {
  const problems: ConsistencyProblem[] = [];
  const types = await store.listTypes();
  for (const type of types) await checkResources(store, type, problems);
  await checkOperations(store, new Set(types.map((t) => t.typeName)), problems);
  return problems;
}

async function checkResources(store: Store, stored: StoredType, problems: ConsistencyProblem[]) {
  const { typeName } = stored;
  const compiled = compileType(stored.model);
  let nextToken: string | undefined;
  do {
    const page = await store.listResources(typeName, { limit: PAGE, ...(nextToken ? { nextToken } : {}) });
    for (const { identifier, properties } of page.items) {
      const at = { typeName, identifier };
      if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
        problems.push({ ...at, check: 'resource-schema', message: 'properties are not an object' });
        continue;
      }
      for (const detail of compiled.validateOutput(properties)) {
        problems.push({
          ...at,
          check: 'resource-schema',
          message: `${detail.pointer ?? ''} ${detail.message}`,
        });
      }
      const own = identifierOf(stored.model, properties);
      if (own !== identifier) {
        problems.push({
          ...at,
          check: 'resource-identifier',
          message:
            own === undefined
              ? 'the properties lack the primary identifier'
              : `the properties identify ${JSON.stringify(own)}, not the row's identifier`,
        });
      }
      for (const target of await store.listReferences(typeName, identifier)) {
        if (!(await store.getResource(target.typeName, target.identifier))) {
          problems.push({
            ...at,
            check: 'reference-dangling',
            message: `refers to ${target.typeName} ${target.identifier}, which does not exist`,
          });
        }
      }
    }
    nextToken = page.nextToken;
  } while (nextToken);
}

async function checkOperations(
  store: Store,
  registered: ReadonlySet<string>,
  problems: ConsistencyProblem[],
) {
  const activeBy = new Map<string, string>();
  let nextToken: string | undefined;
  do {
    const page = await store.listOperations({}, { limit: PAGE, ...(nextToken ? { nextToken } : {}) });
    for (const op of page.items) {
      const at = {
        typeName: op.typeName,
        requestToken: op.requestToken,
        ...(op.identifier !== undefined ? { identifier: op.identifier } : {}),
      };
      if (!ACTIVE.has(op.status) && !TERMINAL_STATUSES.has(op.status)) {
        problems.push({
          ...at,
          check: 'operation-status',
          message: `unknown status ${JSON.stringify(op.status)}`,
        });
        continue;
      }
      if (op.errorCode !== undefined && !isErrorCode(op.errorCode)) {
        problems.push({
          ...at,
          check: 'operation-error-code',
          message: `error code ${JSON.stringify(op.errorCode)} is not in the catalogue`,
        });
      }
      if (!ACTIVE.has(op.status)) continue;
      if (!registered.has(op.typeName)) {
        problems.push({
          ...at,
          check: 'operation-type',
          message: 'an active operation of a type not registered',
        });
      }
      if (op.identifier === undefined) continue;
      const key = `${op.typeName}\u0000${op.identifier}`;
      const other = activeBy.get(key);
      if (other !== undefined) {
        problems.push({
          ...at,
          check: 'operation-concurrent',
          message: `a second active operation on the resource (the other is ${other})`,
        });
      } else {
        activeBy.set(key, op.requestToken);
      }
    }
    nextToken = page.nextToken;
  } while (nextToken);
}
