/**
 * Store.completeAll on both stores: several operations completed and kv writes made in one
 * transaction, all or none — what a composed create (an instance and the record-backed resources it
 * is made of) is written with.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type {
  AllCompleted,
  Completion,
  CompletionRequest,
  KvWrite,
  OperationRecord,
  Store,
  StoredResource,
} from '../../src/store/types.js';
import { eachStore, freshStoreOf, operation, resource, type StoreKind } from './fixtures.js';

const INSTANCE = 'Acme::Test::Instance';
const PART = 'Acme::Test::Thing';

/** A create as the engine decides a record-backed one: AlreadyExists when the resource is there. */
function creating(
  typeName: string,
  identifier: string,
  overrides: Partial<OperationRecord> = {},
): CompletionRequest {
  return {
    operation: operation({ typeName, identifier, status: 'SUCCESS', request: {}, ...overrides }),
    requestHash: overrides.clientToken === undefined ? undefined : `hash-of-${identifier}`,
    decide: (current: StoredResource | undefined): Completion =>
      current
        ? { status: 'FAILED', errorCode: 'AlreadyExists', statusMessage: `${identifier} already exists` }
        : {
            status: 'SUCCESS',
            resourceModel: { Name: identifier },
            change: { kind: 'put', resource: resource(identifier, { typeName }) },
          },
  };
}

const record = (key: string): KvWrite => ({
  namespace: 'instances',
  key,
  entry: { value: { made: key }, writtenBy: 'r1' },
});

async function written(store: Store, all: CompletionRequest[], key: string) {
  return {
    resources: await Promise.all(
      all.map(
        async (c) => (await store.getResource(c.operation.typeName, c.operation.identifier!))?.identifier,
      ),
    ),
    operations: await Promise.all(
      all.map(async (c) => (await store.getOperation(c.operation.requestToken))?.status),
    ),
    kv: (await store.kvGet('instances', key))?.value,
  };
}

async function fresh(t: TestContext, kind: StoreKind) {
  return (await freshStoreOf(t, kind)).store;
}

const kindOf = (r: AllCompleted) =>
  r.kind === 'refused' ? `refused ${'key' in r ? r.key.key : `${r.index} ${r.result.kind}`}` : r.kind;

eachStore(
  'completeAll writes every operation, every resource and the kv writes together',
  async (t, kind) => {
    const store = await fresh(t, kind);
    const all = [
      creating(INSTANCE, 'orders', { clientToken: 'instance-token' }),
      creating(PART, 'orders_db', { clientToken: 'part-token-1' }),
      creating(PART, 'orders_user', { clientToken: 'part-token-2' }),
    ];
    const result = await store.completeAll(all, [record('orders')]);
    assert.equal(result.kind, 'started');
    assert.equal(result.kind === 'started' && result.operation.requestToken, all[0]!.operation.requestToken);
    assert.deepEqual(await written(store, all, 'orders'), {
      resources: ['orders', 'orders_db', 'orders_user'],
      operations: ['SUCCESS', 'SUCCESS', 'SUCCESS'],
      kv: { made: 'orders' },
    });
    // Each part's client token is its own, and replays what it began.
    const part = await store.getOperationByClientToken('part-token-2');
    assert.equal(part?.operation.requestToken, all[2]!.operation.requestToken);
    assert.equal(part?.requestHash, 'hash-of-orders_user');
    // The change log tells of each resource, as of any create.
    const changes = await store.readChanges(0, 100);
    assert.deepEqual(
      changes.changes.map((c) => [c.operation.identifier, c.resourceChange]),
      [
        ['orders', 'put'],
        ['orders_db', 'put'],
        ['orders_user', 'put'],
      ],
    );
  },
);

eachStore(
  'completeAll writes nothing when a later completion does not end in SUCCESS, and says which',
  async (t, kind) => {
    const store = await fresh(t, kind);
    // Taken before: the second part's create ends in AlreadyExists.
    assert.equal((await store.completeAll([creating(PART, 'orders_user')], [])).kind, 'started');
    const all = [
      creating(INSTANCE, 'orders', { clientToken: 'instance-token' }),
      creating(PART, 'orders_db'),
      creating(PART, 'orders_user'),
    ];
    const result = await store.completeAll(all, [record('orders')]);
    assert.equal(kindOf(result), 'refused 2 started');
    assert.ok(result.kind === 'refused' && 'result' in result && result.result.kind === 'started');
    assert.equal(result.result.operation.errorCode, 'AlreadyExists');
    assert.deepEqual(await written(store, all, 'orders'), {
      resources: [undefined, undefined, 'orders_user'],
      operations: [undefined, undefined, undefined],
      kv: undefined,
    });
    // The instance's client token began nothing: asked again, it starts afresh.
    assert.equal(await store.getOperationByClientToken('instance-token'), undefined);
  },
);

eachStore('completeAll writes nothing when a kv write does not hold', async (t, kind) => {
  const store = await fresh(t, kind);
  await store.kvInsert('instances', 'orders', { value: { left: 'behind' }, writtenBy: 'r0' });
  const all = [creating(INSTANCE, 'orders'), creating(PART, 'orders_db')];
  const result = await store.completeAll(all, [record('orders')]);
  assert.equal(kindOf(result), 'refused orders');
  assert.deepEqual(await written(store, all, 'orders'), {
    resources: [undefined, undefined],
    operations: [undefined, undefined],
    kv: { left: 'behind' },
  });
});

eachStore(
  "completeAll answers the first's own outcome when it does not end in SUCCESS, and writes only that",
  async (t, kind) => {
    const store = await fresh(t, kind);
    const first = [creating(INSTANCE, 'orders', { clientToken: 'instance-token' }), creating(PART, 'a')];
    assert.equal((await store.completeAll(first, [record('orders')])).kind, 'started');

    // Its client token used before, with the same request: the earlier operation, nothing more.
    const again = [creating(INSTANCE, 'orders', { clientToken: 'instance-token' }), creating(PART, 'b')];
    const replayed = await store.completeAll(again, [record('other')]);
    assert.equal(replayed.kind, 'replayed');
    assert.equal(
      replayed.kind === 'replayed' && replayed.operation.requestToken,
      first[0]!.operation.requestToken,
    );
    assert.deepEqual(await written(store, again, 'other'), {
      resources: ['orders', undefined],
      operations: [undefined, undefined],
      kv: undefined,
    });

    // The resource there already: the first fails (AlreadyExists, written as an operation), the rest is not.
    const taken = [creating(INSTANCE, 'orders'), creating(PART, 'c')];
    const failed = await store.completeAll(taken, [record('third')]);
    assert.equal(failed.kind, 'started');
    assert.equal(failed.kind === 'started' && failed.operation.errorCode, 'AlreadyExists');
    assert.deepEqual(await written(store, taken, 'third'), {
      resources: ['orders', undefined],
      operations: ['FAILED', undefined],
      kv: undefined,
    });
  },
);

eachStore(
  "completeAll refuses the whole when a part's client token began an operation before",
  async (t, kind) => {
    const store = await fresh(t, kind);
    assert.equal(
      (await store.completeAll([creating(PART, 'orders_db', { clientToken: 'part-token' })], [])).kind,
      'started',
    );
    const all = [creating(INSTANCE, 'orders'), creating(PART, 'orders_db', { clientToken: 'part-token' })];
    const result = await store.completeAll(all, [record('orders')]);
    assert.equal(kindOf(result), 'refused 1 replayed');
    assert.deepEqual(await written(store, all, 'orders'), {
      resources: [undefined, 'orders_db'],
      operations: [undefined, undefined],
      kv: undefined,
    });
  },
);

eachStore('completeAll refuses a list naming one resource twice, and writes nothing', async (t, kind) => {
  const store = await fresh(t, kind);
  const all = [creating(INSTANCE, 'orders'), creating(PART, 'twice'), creating(PART, 'twice')];
  await assert.rejects(
    store.completeAll(all, [record('orders')]),
    /each resource once: Acme::Test::Thing twice twice/,
  );
  assert.deepEqual(await written(store, all, 'orders'), {
    resources: [undefined, undefined, undefined],
    operations: [undefined, undefined, undefined],
    kv: undefined,
  });
});

eachStore(
  'completeAll refuses the whole when an operation is in progress on one of its resources, and says which',
  async (t, kind) => {
    const store = await fresh(t, kind);
    const busy = operation({ typeName: PART, identifier: 'orders_user', status: 'IN_PROGRESS', request: {} });
    assert.equal((await store.beginOperation(busy)).kind, 'started');
    const all = [creating(INSTANCE, 'orders'), creating(PART, 'orders_db'), creating(PART, 'orders_user')];
    const result = await store.completeAll(all, [record('orders')]);
    assert.equal(kindOf(result), 'refused 2 conflict');
    assert.ok(result.kind === 'refused' && 'result' in result && result.result.kind === 'conflict');
    assert.equal(result.result.activeRequestToken, busy.requestToken);
    assert.deepEqual(await written(store, all, 'orders'), {
      resources: [undefined, undefined, undefined],
      operations: [undefined, undefined, undefined],
      kv: undefined,
    });
  },
);
