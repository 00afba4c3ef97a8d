import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { OperationMovedOn } from '../../src/store/index.js';
import { eachStore, T0, at, createResource, freshStoreOf, operation, resource } from './fixtures.js';

function isCode(code: string) {
  return (error: unknown) => error instanceof TypeplaneError && error.code === code;
}

eachStore('a begun operation is stored as given, without absent optional fields', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const op = operation({ identifier: 'a' });
  const begun = await store.beginOperation(op);
  assert.deepEqual(begun, { kind: 'started', operation: op });
  const stored = await store.getOperation(op.requestToken);
  assert.deepEqual(stored, op);
  for (const field of [
    'resourceModel',
    'statusMessage',
    'errorCode',
    'retryAfter',
    'callbackContext',
    'clientToken',
    'requestedBy',
  ]) {
    assert.equal(Object.hasOwn(stored ?? {}, field), false, field);
  }
  assert.equal(await store.getOperation('nope'), undefined);

  const full = operation({
    identifier: 'b',
    resourceModel: { Name: 'b', Nested: { list: [1, 2] } },
    statusMessage: 'working',
    errorCode: 'Throttling',
    retryAfter: at(5000),
    callbackContext: { step: 2 },
    clientToken: 'ct-full',
    requestedBy: 'tok_asker',
  });
  await store.beginOperation(full, 'hash');
  assert.deepEqual(await store.getOperation(full.requestToken), full);
});

eachStore(
  'a client token seen before replays the same request and refuses a different one',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const first = operation({ identifier: 'a', clientToken: 'ct-1' });
    assert.equal((await store.beginOperation(first, 'h1')).kind, 'started');

    const retry = operation({ identifier: 'a', clientToken: 'ct-1' });
    assert.deepEqual(await store.beginOperation(retry, 'h1'), { kind: 'replayed', operation: first });
    assert.deepEqual(await store.beginOperation(retry, 'h2'), { kind: 'token-mismatch', operation: first });
    assert.equal(
      await store.getOperation(retry.requestToken),
      undefined,
      'neither inserted a second operation',
    );

    // Replay holds after the first finished too (no conflict check runs for a known token).
    await store.finishOperation({ ...first, status: 'SUCCESS' }, { kind: 'put', resource: resource('a') });
    const replayed = await store.beginOperation(retry, 'h1');
    assert.equal(replayed.kind, 'replayed');
    assert.equal(replayed.kind === 'replayed' && replayed.operation.status, 'SUCCESS');

    // Without a hash both times, the requests count as the same.
    const bare = operation({ identifier: 'x', clientToken: 'ct-2' });
    await store.beginOperation(bare);
    assert.equal((await store.beginOperation(operation({ clientToken: 'ct-2' }))).kind, 'replayed');
  },
);

eachStore('a second active operation on the same resource is a conflict', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const first = operation({ operation: 'UPDATE', identifier: 'a' });
  await store.beginOperation(first);
  assert.deepEqual(await store.beginOperation(operation({ operation: 'DELETE', identifier: 'a' })), {
    kind: 'conflict',
    activeRequestToken: first.requestToken,
  });
  // Other resources, other types and operations without an identifier are not affected.
  assert.equal((await store.beginOperation(operation({ identifier: 'b' }))).kind, 'started');
  assert.equal(
    (await store.beginOperation(operation({ typeName: 'Acme::Test::Other', identifier: 'a' }))).kind,
    'started',
  );
  assert.equal((await store.beginOperation(operation())).kind, 'started');
  assert.equal((await store.beginOperation(operation())).kind, 'started');

  // A client token of a conflicting request is not remembered.
  const refused = operation({ identifier: 'a', clientToken: 'ct-refused' });
  assert.equal((await store.beginOperation(refused, 'h')).kind, 'conflict');

  // Once the first is terminal, the resource is free again.
  await store.finishOperation({ ...first, status: 'FAILED', errorCode: 'NotFound', statusMessage: 'gone' });
  assert.equal((await store.beginOperation(refused, 'h')).kind, 'started');
});

eachStore('finishOperation stores the terminal state and puts the resource in one step', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  // A create whose identifier becomes known only when it finishes.
  const op = operation();
  await store.beginOperation(op);
  const done = {
    ...op,
    identifier: 'gen-1',
    status: 'SUCCESS' as const,
    eventTime: at(1000),
    resourceModel: { Name: 'gen-1' },
  };
  await store.finishOperation(done, {
    kind: 'put',
    resource: resource('gen-1', { createdAt: at(1000), updatedAt: at(1000) }),
  });
  assert.deepEqual(await store.getOperation(op.requestToken), done);
  assert.deepEqual(
    await store.getResource('Acme::Test::Thing', 'gen-1'),
    resource('gen-1', { createdAt: at(1000), updatedAt: at(1000) }),
  );

  // An update keeps the creation time.
  const update = operation({ operation: 'UPDATE', identifier: 'gen-1' });
  await store.beginOperation(update);
  await store.finishOperation(
    { ...update, status: 'SUCCESS' },
    {
      kind: 'put',
      resource: resource('gen-1', {
        properties: { Name: 'gen-1', Size: 2 },
        createdAt: at(5000),
        updatedAt: at(5000),
      }),
    },
  );
  assert.deepEqual(await store.getResource('Acme::Test::Thing', 'gen-1'), {
    ...resource('gen-1'),
    properties: { Name: 'gen-1', Size: 2 },
    createdAt: at(1000),
    updatedAt: at(5000),
  });
  // A read's one column: the model as the JSON text written.
  assert.equal(
    await store.getResourceJson('Acme::Test::Thing', 'gen-1'),
    JSON.stringify({ Name: 'gen-1', Size: 2 }),
  );

  // A delete removes it.
  const del = operation({ operation: 'DELETE', identifier: 'gen-1' });
  await store.beginOperation(del);
  await store.finishOperation(
    { ...del, status: 'SUCCESS' },
    { kind: 'delete', typeName: 'Acme::Test::Thing', identifier: 'gen-1' },
  );
  assert.equal(await store.getResource('Acme::Test::Thing', 'gen-1'), undefined);
  assert.equal(await store.getResourceJson('Acme::Test::Thing', 'gen-1'), undefined);
  assert.equal((await store.getOperation(del.requestToken))?.status, 'SUCCESS');
});

eachStore('a create finishing onto an existing resource fails and changes nothing', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await createResource(store, 'taken');
  const before = await store.getResource('Acme::Test::Thing', 'taken');

  // Generated identifier, so the begin could not see the clash.
  const op = operation({ retryAfter: at(100), attempts: 3 });
  await store.beginOperation(op);
  await store.claimOperations('worker', new Date(T0.getTime() + 200), 60_000, 10);
  await assert.rejects(
    store.finishOperation(
      { ...op, identifier: 'taken', status: 'SUCCESS', attempts: 4 },
      { kind: 'put', resource: resource('taken', { properties: { Name: 'other' } }) },
    ),
    isCode('ResourceConflict'),
  );
  assert.deepEqual(await store.getOperation(op.requestToken), op, 'the operation is unchanged');
  assert.deepEqual(
    await store.getResource('Acme::Test::Thing', 'taken'),
    before,
    'the resource is unchanged',
  );
  // And the lease was kept, as the operation was not finished.
  assert.deepEqual(await store.claimOperations('other', new Date(T0.getTime() + 200), 60_000, 10), []);
});

eachStore('saving or finishing an unknown operation fails', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await assert.rejects(store.saveOperation(operation()), isCode('InternalFailure'));
  await assert.rejects(store.finishOperation(operation({ status: 'SUCCESS' })), isCode('InternalFailure'));
});

eachStore(
  'saveOperation records progress and refuses an identifier another active operation holds',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const busy = operation({ operation: 'UPDATE', identifier: 'a' });
    await store.beginOperation(busy);
    const op = operation();
    await store.beginOperation(op);
    const progressed = {
      ...op,
      callbackContext: { step: 1 },
      retryAfter: at(2000),
      attempts: 1,
      statusMessage: 'waiting',
    };
    await store.saveOperation(progressed);
    assert.deepEqual(await store.getOperation(op.requestToken), progressed);
    await assert.rejects(store.saveOperation({ ...progressed, identifier: 'a' }), isCode('ResourceConflict'));
    assert.deepEqual(await store.getOperation(op.requestToken), progressed);
    // Optional fields can be dropped again.
    const { callbackContext: _c, retryAfter: _r, statusMessage: _s, ...cleared } = progressed;
    await store.saveOperation(cleared);
    assert.deepEqual(await store.getOperation(op.requestToken), cleared);
  },
);

eachStore('times are stored in toISOString form so that they compare', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const op = operation({ eventTime: '2025-01-01T00:00:00Z', retryAfter: '2025-01-01T01:00:00+01:00' });
  await store.beginOperation(op);
  const stored = await store.getOperation(op.requestToken);
  assert.equal(stored?.eventTime, '2025-01-01T00:00:00.000Z');
  assert.equal(stored?.retryAfter, '2025-01-01T00:00:00.000Z');
  await assert.rejects(store.beginOperation(operation({ startedAt: 'yesterday' })), isCode('InvalidRequest'));
});

eachStore('claimOperations hands out due operations once, until their lease runs out', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const now = new Date(T0.getTime() + 10_000);
  const due = operation({ identifier: 'due' });
  const dueByTime = operation({ identifier: 'due-by-time', retryAfter: at(10_000) });
  const later = operation({ identifier: 'later', retryAfter: at(10_001) });
  const done = operation({ identifier: 'done', status: 'SUCCESS' });
  const cancelling = operation({
    identifier: 'cancelling',
    status: 'CANCEL_IN_PROGRESS',
    operation: 'UPDATE',
  });
  for (const op of [due, dueByTime, later, done, cancelling]) await store.beginOperation(op);

  const claimed = await store.claimOperations('w1', now, 30_000, 10);
  assert.deepEqual(
    claimed.map((o) => o.requestToken),
    [due.requestToken, dueByTime.requestToken, cancelling.requestToken],
  );
  assert.deepEqual(claimed[0], due);

  // Held: nobody else gets them, not even the same owner twice.
  assert.deepEqual(await store.claimOperations('w2', now, 30_000, 10), []);
  assert.deepEqual(await store.claimOperations('w1', now, 30_000, 10), []);
  assert.deepEqual(
    (await store.claimOperations('w2', new Date(now.getTime() + 29_999), 30_000, 10)).map(
      (o) => o.requestToken,
    ),
    [later.requestToken],
    'only the one that became due meanwhile',
  );
  await store.renewLease(later.requestToken, 'w2', now, 0);

  // `later` becomes due; the leased ones stay held.
  const afterRetry = new Date(T0.getTime() + 10_001);
  assert.deepEqual(
    (await store.claimOperations('w2', afterRetry, 30_000, 10)).map((o) => o.requestToken),
    [later.requestToken],
  );

  // The lease runs out: another owner may take them.
  const expired = new Date(now.getTime() + 30_000);
  const taken = await store.claimOperations('w2', expired, 30_000, 2);
  assert.deepEqual(
    taken.map((o) => o.requestToken),
    [due.requestToken, dueByTime.requestToken],
    'limit respected',
  );
  assert.equal(await store.renewLease(due.requestToken, 'w1', expired, 30_000), false, 'w1 lost it');
  assert.equal(await store.renewLease(due.requestToken, 'w2', expired, 30_000), true);
});

eachStore(
  "claimOperations within an allowance takes at most that many of one type, counting those running, and reaches other types' operations behind its backlog",
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const of = (typeName: string, n: number) =>
      Array.from({ length: n }, (_, i) => operation({ typeName, identifier: `${typeName}-${i}` }));
    // A type's backlog first, then two others' operations behind it.
    const flood = of('Acme::Test::Flood', 30);
    const quiet = of('Acme::Test::Quiet', 3);
    const other = of('Acme::Test::Other', 2);
    for (const op of [...flood, ...quiet, ...other]) await store.beginOperation(op);
    const tokens = (ops: { requestToken: string }[]) => ops.map((o) => o.requestToken);

    const first = await store.claimOperations('w1', T0, 30_000, 10, {
      perType: 4,
      running: new Map([['Acme::Test::Flood', 1]]),
    });
    assert.deepEqual(
      tokens(first),
      tokens([...flood.slice(0, 3), ...quiet, ...other]),
      'three of the backlog (one runs already), then every other type, oldest first',
    );

    // A type at its allowance takes nothing; the others' are leased already.
    const full = await store.claimOperations('w2', T0, 30_000, 10, {
      perType: 4,
      running: new Map([['Acme::Test::Flood', 4]]),
    });
    assert.deepEqual(full, []);
    const limited = await store.claimOperations('w2', T0, 30_000, 3, { perType: 4, running: new Map() });
    assert.deepEqual(tokens(limited), tokens(flood.slice(3, 6)), 'the limit holds too');
    // Without an allowance, the oldest due, whatever their type.
    assert.deepEqual(tokens(await store.claimOperations('w3', T0, 30_000, 5)), tokens(flood.slice(6, 11)));
  },
);

eachStore('renewLease extends or releases a lease the owner holds', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const op = operation({ identifier: 'a' });
  await store.beginOperation(op);
  assert.equal(await store.renewLease(op.requestToken, 'w1', T0, 1000), false, 'not leased yet');
  await store.claimOperations('w1', T0, 1000, 10);
  assert.equal(await store.renewLease(op.requestToken, 'w2', T0, 1000), false);
  assert.equal(await store.renewLease(op.requestToken, 'w1', new Date(T0.getTime() + 900), 1000), true);
  // Extended to 1900: still held at 1500.
  assert.deepEqual(await store.claimOperations('w2', new Date(T0.getTime() + 1500), 1000, 10), []);
  // saveOperation keeps the lease.
  await store.saveOperation({ ...op, attempts: 1 });
  assert.deepEqual(await store.claimOperations('w2', new Date(T0.getTime() + 1500), 1000, 10), []);
  // Released: claimable at once.
  assert.equal(await store.renewLease(op.requestToken, 'w1', new Date(T0.getTime() + 1500), 0), true);
  assert.equal((await store.claimOperations('w2', new Date(T0.getTime() + 1500), 1000, 10)).length, 1);
  // Finishing drops the lease; a finished operation cannot be renewed or claimed.
  await store.finishOperation({ ...op, status: 'SUCCESS' }, { kind: 'put', resource: resource('a') });
  assert.equal(await store.renewLease(op.requestToken, 'w2', new Date(T0.getTime() + 1500), 1000), false);
  assert.deepEqual(await store.claimOperations('w3', new Date(T0.getTime() + 1e9), 1000, 10), []);
});

eachStore(
  'a worker whose lease ran out and was taken over can neither save nor finish the operation',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const op = operation({ identifier: 'a' });
    await store.beginOperation(op);
    assert.equal((await store.claimOperations('w1', T0, 1000, 10)).length, 1);
    // w1 stalls past its lease; w2 takes the operation over and makes progress.
    const expired = new Date(T0.getTime() + 1000);
    assert.equal((await store.claimOperations('w2', expired, 1000, 10)).length, 1);
    const progressed = { ...op, attempts: 1, statusMessage: 'w2 at work', eventTime: at(1100) };
    await store.saveOperation(progressed, 'w2');

    // w1 wakes up with a stale answer: the operation is still active, yet neither write lands.
    const stale = { ...op, attempts: 1, statusMessage: 'w1 was here', eventTime: at(1200) };
    const movedOn = (error: unknown) =>
      error instanceof OperationMovedOn && error.requestToken === op.requestToken;
    await assert.rejects(store.saveOperation(stale, 'w1'), movedOn);
    await assert.rejects(
      store.finishOperation({ ...stale, status: 'SUCCESS' }, { kind: 'put', resource: resource('a') }, 'w1'),
      movedOn,
    );
    assert.deepEqual(await store.getOperation(op.requestToken), progressed, "w2's state stands");
    assert.equal(await store.getResource('Acme::Test::Thing', 'a'), undefined, 'no resource was put');

    // The holder finishes it.
    await store.finishOperation(
      { ...progressed, status: 'SUCCESS' },
      { kind: 'put', resource: resource('a') },
      'w2',
    );
    assert.equal((await store.getOperation(op.requestToken))?.status, 'SUCCESS');
    assert.deepEqual(await store.getResource('Acme::Test::Thing', 'a'), resource('a'));
  },
);

eachStore('expireTokens forgets old terminal operations and their client tokens', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const oldDone = operation({ identifier: 'a', clientToken: 'old-done' });
  const oldActive = operation({ identifier: 'b', clientToken: 'old-active' });
  // Begun after an operation that is still active: expiry does not stop at the active one.
  const oldDoneLater = operation({ identifier: 'd', clientToken: 'old-done-later', startedAt: at(2000) });
  const recentDone = operation({
    identifier: 'c',
    clientToken: 'recent',
    startedAt: at(50_000),
    eventTime: at(50_000),
  });
  for (const op of [oldDone, oldActive, oldDoneLater, recentDone]) await store.beginOperation(op, 'h');
  await store.finishOperation(
    { ...oldDone, status: 'SUCCESS', eventTime: at(1000) },
    { kind: 'put', resource: resource('a') },
  );
  await store.finishOperation({
    ...oldDoneLater,
    status: 'FAILED',
    eventTime: at(3000),
    errorCode: 'NotFound',
  });
  await store.finishOperation({
    ...recentDone,
    status: 'FAILED',
    eventTime: at(60_000),
    errorCode: 'NotFound',
  });

  // The old terminal operations go, with their tokens.
  assert.equal(await store.expireTokens(new Date(T0.getTime() + 10_000)), 2);
  assert.equal(await store.getOperation(oldDone.requestToken), undefined);
  assert.equal(await store.getOperation(oldDoneLater.requestToken), undefined);
  assert.ok(await store.getOperation(oldActive.requestToken), 'active operations stay');
  assert.ok(await store.getOperation(recentDone.requestToken));
  assert.ok(await store.getResource('Acme::Test::Thing', 'a'), 'resources stay');

  // A forgotten token starts afresh; the tokens of operations kept still replay them.
  assert.equal(
    (
      await store.beginOperation(
        operation({ identifier: 'a', clientToken: 'old-done', startedAt: at(20_000) }),
        'h',
      )
    ).kind,
    'started',
  );
  assert.equal(
    (await store.beginOperation(operation({ identifier: 'b', clientToken: 'old-active' }), 'h')).kind,
    'replayed',
  );
  assert.equal(
    (await store.beginOperation(operation({ identifier: 'c', clientToken: 'recent' }), 'h')).kind,
    'replayed',
  );
  assert.equal(await store.expireTokens(new Date(T0.getTime() + 10_000)), 0);
});

eachStore('listOperations filters by type, resource, operation and status, newest first', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const a = operation({ identifier: 'a' });
  const b = operation({ identifier: 'b', operation: 'UPDATE' });
  const c = operation({ identifier: 'c', typeName: 'Acme::Test::Other' });
  const d = operation({ identifier: 'd', operation: 'DELETE', status: 'FAILED' });
  for (const op of [a, b, c, d]) await store.beginOperation(op);
  const tokens = async (filter: Parameters<typeof store.listOperations>[0]) =>
    (await store.listOperations(filter, { limit: 10 })).items.map((o) => o.requestToken);
  assert.deepEqual(
    await tokens({}),
    [d, c, b, a].map((o) => o.requestToken),
  );
  assert.deepEqual(
    await tokens({ typeName: 'Acme::Test::Thing' }),
    [d, b, a].map((o) => o.requestToken),
  );
  assert.deepEqual(
    await tokens({ operation: ['CREATE', 'DELETE'] }),
    [d, c, a].map((o) => o.requestToken),
  );
  assert.deepEqual(await tokens({ status: ['FAILED'] }), [d.requestToken]);
  // One resource's history: its type and identifier.
  assert.deepEqual(await tokens({ typeName: 'Acme::Test::Thing', identifier: 'b' }), [b.requestToken]);
  assert.deepEqual(await tokens({ typeName: 'Acme::Test::Other', identifier: 'b' }), []);
  assert.deepEqual(
    await tokens({ status: [] }),
    [d, c, b, a].map((o) => o.requestToken),
    'an empty list filters nothing',
  );
  assert.deepEqual(
    await tokens({ typeName: 'Acme::Test::Other', operation: ['CREATE'], status: ['IN_PROGRESS'] }),
    [c.requestToken],
  );
  assert.deepEqual((await store.listOperations({}, { limit: 10 })).items[3], a);
});
