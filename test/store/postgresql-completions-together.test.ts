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

test(
  "new resources' creates in one turn are one statement: every column written as a lone create writes it",
  { skip: pgSkip },
  async (t) => {
    const { store, transactions } = await fresh(t);
    await store.putType(storedType('Acme::Test::Thing', '1'));
    // Values that a JSON carrier must hand over unchanged: quotes, backslashes, escapes, non-ASCII.
    const awkward = { Name: 'full', Text: 'a "quoted" \\ back\\slash \u00e9 \u{1F600} \\u0000 \n' };
    const full = (id: string) =>
      creating(id, {
        clientToken: `tok-${id}`,
        requestedBy: 'tp_alice',
        warnings: [{ rule: 'W1', message: 'said "so"', severity: 'warning' } as never],
        checkedAgainstDefault: '1',
        attempts: 2,
      });
    const extra: Partial<StoredResource> = {
      properties: awkward,
      sealed: 'sealed-text',
      typeVersion: '1',
      createdAt: '2026-01-02T03:04:05.678Z',
      updatedAt: '2026-01-02T03:04:05.678Z',
    };
    // The reference: a create whose change lists additional identifiers (none) is written by the
    // statements that read first, each value a parameter of its own, not by the batch's statement.
    const lone = await store.completeOperation(full('lone'), 'hash-lone', (current) => {
      const made = createOf('lone', extra)(current);
      return made.status === 'SUCCESS' && made.change.kind === 'put'
        ? { ...made, change: { ...made.change, identifiers: [] } }
        : made;
    });
    const before = transactions();
    const together = await Promise.all(
      ['t1', 't2', 't3'].map((id) => store.completeOperation(full(id), `hash-${id}`, createOf(id, extra))),
    );
    // A record with its own names made alike, its request token (each its own) left out.
    const strip = (o: object | undefined, id: string) => {
      const copy = JSON.parse(JSON.stringify(o ?? {}).replaceAll(id, '<id>')) as Record<string, unknown>;
      delete copy.requestToken;
      return copy;
    };
    assert.equal(transactions() - before, 1, 'the three written by one transaction, not decided again');
    const loneOp = started(lone);
    for (const [i, result] of together.entries()) {
      const id = `t${i + 1}`;
      const op = started(result);
      assert.equal(op.status, 'SUCCESS');
      assert.deepEqual(
        strip(await store.getOperation(op.requestToken), id),
        strip(await store.getOperation(loneOp.requestToken), 'lone'),
      );
      assert.deepEqual(
        strip(await store.getResource('Acme::Test::Thing', id), id),
        strip(await store.getResource('Acme::Test::Thing', 'lone'), 'lone'),
      );
      const byToken = await store.getOperationByClientToken(`tok-${id}`);
      assert.equal(byToken?.requestHash, `hash-${id}`);
    }
    assert.deepEqual((await store.getResource('Acme::Test::Thing', 't2'))?.properties, {
      ...awkward,
      Name: 'full',
    });
  },
);

test(
  'one create of a batch whose default version moved: the batch is decided again, and only that one fails',
  { skip: pgSkip },
  async (t) => {
    const { store, transactions } = await fresh(t);
    await store.putType(storedType('Acme::Test::Thing', '1'));
    await store.putType(storedType('Acme::Test::Thing', '2'));
    const before = transactions();
    const results = await Promise.allSettled([
      store.completeOperation(creating('m1', { checkedAgainstDefault: '2' }), 'h', createOf('m1')),
      store.completeOperation(creating('m2', { checkedAgainstDefault: '1' }), 'h', createOf('m2')),
      store.completeOperation(creating('m3'), 'h', createOf('m3')),
    ]);
    assert.equal(results[0]!.status, 'fulfilled');
    assert.equal(results[2]!.status, 'fulfilled');
    assert.ok(
      results[1]!.status === 'rejected' && results[1].reason instanceof DefaultVersionMoved,
      JSON.stringify(results[1]),
    );
    assert.ok(transactions() - before >= 2, 'the refused batch, then its creates decided again');
    assert.ok(await store.getResource('Acme::Test::Thing', 'm1'));
    assert.equal(await store.getResource('Acme::Test::Thing', 'm2'), undefined);
    assert.ok(await store.getResource('Acme::Test::Thing', 'm3'));
  },
);
