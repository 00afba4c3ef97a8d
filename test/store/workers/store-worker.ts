/**
 * A separate process racing other processes on one store (see store-concurrency.test.ts).
 *
 * Prints `ready`, then reads one JSON command a line, `{ mode, spec, owner, count }`, opens the store
 * `spec` names (a SQLite file or a PostgreSQL schema), runs it, closes the store and prints one JSON line of results:
 * - `begin`: beginOperation on resources res-0 … res-<count-1> → the kinds, in order;
 * - `token`: beginOperation with client tokens ct-0 … ct-<count-1> → the kinds, in order;
 * - `claim`: claimOperations in batches of 3 until none is left → the request tokens claimed.
 * Exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import type { OperationRecord } from '../../../src/store/index.js';
import { openSpec, type StoreSpec } from '../fixtures.js';

interface Command {
  mode: 'begin' | 'token' | 'claim';
  spec: StoreSpec;
  owner: string;
  count: number;
}

function op(owner: string, n: number, overrides: Partial<OperationRecord>): OperationRecord {
  const now = new Date().toISOString();
  return {
    requestToken: `${owner}-${n}`,
    typeName: 'Acme::Test::Thing',
    operation: 'UPDATE',
    status: 'IN_PROGRESS',
    eventTime: now,
    request: {},
    startedAt: now,
    deadlineAt: now,
    attempts: 0,
    ...overrides,
  };
}

async function run({ mode, spec, owner, count }: Command): Promise<string[]> {
  const store = await openSpec(spec);
  const results: string[] = [];
  try {
    if (mode === 'begin') {
      for (let n = 0; n < count; n += 1) {
        results.push((await store.beginOperation(op(owner, n, { identifier: `res-${n}` }))).kind);
      }
    } else if (mode === 'token') {
      for (let n = 0; n < count; n += 1) {
        results.push((await store.beginOperation(op(owner, n, { clientToken: `ct-${n}` }), 'same')).kind);
      }
    } else {
      for (;;) {
        const claimed = await store.claimOperations(owner, new Date(), 60_000, 3);
        if (claimed.length === 0) break;
        results.push(...claimed.map((o) => o.requestToken));
      }
    }
  } finally {
    await store.close();
  }
  return results;
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const results = await run(JSON.parse(line) as Command);
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
