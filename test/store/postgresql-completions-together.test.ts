/**
 * The PostgreSQL store's completions issued in one turn of the event loop, run in one transaction
 * (PostgresStore.completeOperation), on a real database: they share it, and each is decided as it
 * would be alone — two of one resource or one client token one after the other, a decision that
 * throws refused alone, and a unique value two of them claim settled by running each alone.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { TypeplaneError } from '../../src/errors.js';
import {
  openPostgresStore,
  type BeginResult,
  type OperationRecord,
  type StoredResource,
} from '../../src/store/index.js';
import { DefaultVersionMoved, type Completion } from '../../src/store/types.js';
import { PG_URL, freshSchema, pgSkip } from '../helpers/postgres.js';
import { operation, resource, storedType } from './fixtures.js';

async function fresh(t: TestContext) {
  let transactions = 0;
  const store = await openPostgresStore(PG_URL, {
    schema: freshSchema(t, 'tp_together'),
    observer: { transactionEnded: () => void transactions++ },
  });
  t.after(() => store.close());
  return { store, transactions: () => transactions };
}

/** A create as the engine decides a record-backed one: AlreadyExists when the resource is there. */
const createOf =
  (identifier: string, extra: Partial<StoredResource> = {}) =>
  (current: StoredResource | undefined): Completion =>
    current
      ? { status: 'FAILED', errorCode: 'AlreadyExists', statusMessage: `${identifier} already exists` }
      : {
          status: 'SUCCESS',
          resourceModel: { Name: identifier },
          change: { kind: 'put', resource: resource(identifier, extra) },
        };

const creating = (identifier: string, overrides: Partial<OperationRecord> = {}) =>
  operation({ identifier, status: 'SUCCESS', request: {}, ...overrides });

const started = (r: BeginResult) => (r.kind === 'started' ? r.operation : assert.fail(`${r.kind}`));

test(
  'completions issued in one turn share one transaction, each written as alone',
  { skip: pgSkip },
  async (t) => {
    const { store, transactions } = await fresh(t);
    const before = transactions();
    const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
    const results = await Promise.all(
      ids.map((id) => store.completeOperation(creating(id), 'h', createOf(id))),
    );
    assert.deepEqual(
      results.map((r) => started(r).status),
      ids.map(() => 'SUCCESS'),
    );
    assert.equal(transactions() - before, 1, 'one transaction for the twenty');
    for (const id of ids) assert.equal((await store.getResource('Acme::Test::Thing', id))?.identifier, id);
    const op = started(results[3]!);
    assert.equal((await store.getOperation(op.requestToken))?.status, 'SUCCESS');
  },
);

test(
  'two creates of one resource in one turn: the second finds the first one made',
  { skip: pgSkip },
  async (t) => {
    const { store } = await fresh(t);
    const [first, second] = await Promise.all([
      store.completeOperation(
        creating('same'),
        'h1',
        createOf('same', { properties: { Name: 'same', By: 1 } }),
      ),
      store.completeOperation(
        creating('same'),
        'h2',
        createOf('same', { properties: { Name: 'same', By: 2 } }),
      ),
    ]);
    assert.equal(started(first!).status, 'SUCCESS');
    assert.equal(started(second!).status, 'FAILED');
    assert.equal(started(second!).errorCode, 'AlreadyExists');
    assert.deepEqual((await store.getResource('Acme::Test::Thing', 'same'))?.properties, {
      Name: 'same',
      By: 1,
    });
  },
);

test(
  'one client token used twice in one turn: the second replays the first, or is refused',
  { skip: pgSkip },
  async (t) => {
    const { store } = await fresh(t);
    const [first, replay, mismatch] = await Promise.all([
      store.completeOperation(creating('a', { clientToken: 'tok' }), 'h', createOf('a')),
      store.completeOperation(creating('a', { clientToken: 'tok' }), 'h', createOf('a')),
      store.completeOperation(creating('b', { clientToken: 'tok' }), 'other', createOf('b')),
    ]);
    const made = started(first!);
    assert.equal(replay!.kind, 'replayed');
    assert.equal(replay!.kind === 'replayed' && replay!.operation.requestToken, made.requestToken);
    assert.equal(mismatch!.kind, 'token-mismatch');
    assert.equal(await store.getResource('Acme::Test::Thing', 'b'), undefined);
  },
);

test('a decision that throws refuses its own completion only', { skip: pgSkip }, async (t) => {
  const { store, transactions } = await fresh(t);
  const before = transactions();
  const results = await Promise.allSettled([
    store.completeOperation(creating('x'), 'h', createOf('x')),
    store.completeOperation(creating('y'), 'h', () => {
      throw new TypeplaneError('ResourceConflict', 'y changed meanwhile');
    }),
    store.completeOperation(creating('z'), 'h', createOf('z')),
  ]);
  assert.equal(results[0]!.status, 'fulfilled');
  assert.equal(results[2]!.status, 'fulfilled');
  assert.equal(results[1]!.status, 'rejected');
  assert.match(String((results[1] as PromiseRejectedResult).reason), /y changed meanwhile/);
  assert.equal(transactions() - before, 1);
  assert.ok(await store.getResource('Acme::Test::Thing', 'x'));
  assert.equal(await store.getResource('Acme::Test::Thing', 'y'), undefined);
  assert.ok(await store.getResource('Acme::Test::Thing', 'z'));
});

test(
  'two claiming one additional identifier in one turn: each is run alone, and the second is refused',
  { skip: pgSkip },
  async (t) => {
    const { store } = await fresh(t);
    const claiming =
      (id: string) =>
      (current: StoredResource | undefined): Completion => {
        const made = createOf(id)(current);
        return made.status === 'SUCCESS' && made.change.kind === 'put'
          ? {
              ...made,
              change: { ...made.change, identifiers: [{ name: '/properties/Arn', value: 'arn:one' }] },
            }
          : made;
      };
    const results = await Promise.allSettled([
      store.completeOperation(creating('p'), 'h', claiming('p')),
      store.completeOperation(creating('q'), 'h', claiming('q')),
    ]);
    const succeeded = results.filter(
      (r) => r.status === 'fulfilled' && started(r.value).status === 'SUCCESS',
    );
    assert.equal(succeeded.length, 1, JSON.stringify(results));
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    assert.ok(refused, 'the other is refused');
    assert.ok(refused.reason instanceof TypeplaneError, String(refused.reason));
    const winner = started((succeeded[0] as PromiseFulfilledResult<BeginResult>).value).identifier;
    assert.equal(await store.findByIdentifier('Acme::Test::Thing', '/properties/Arn', 'arn:one'), winner);
  },
);

test(
  'a create its one round trip cannot write is decided again after reading: an operation in progress, a default moved',
  { skip: pgSkip },
  async (t) => {
    const { store } = await fresh(t);
    await store.putType(storedType('Acme::Test::Thing', '1'));
    await store.putType(storedType('Acme::Test::Thing', '2'));
    const busy = operation({ identifier: 'busy', status: 'IN_PROGRESS' });
    assert.equal((await store.beginOperation(busy)).kind, 'started');
    const conflict = await store.completeOperation(creating('busy'), 'h', createOf('busy'));
    assert.deepEqual(conflict, { kind: 'conflict', activeRequestToken: busy.requestToken });

    await assert.rejects(
      store.completeOperation(creating('old', { checkedAgainstDefault: '1' }), 'h', createOf('old')),
      (error: unknown) => error instanceof DefaultVersionMoved,
    );
    assert.equal(await store.getResource('Acme::Test::Thing', 'old'), undefined);
    const current = await store.completeOperation(
      creating('new', { checkedAgainstDefault: '2' }),
      'h',
      createOf('new'),
    );
    assert.equal(started(current).status, 'SUCCESS');
  },
);
