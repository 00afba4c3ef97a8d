/**
 * Writes issued together (the SQLite store commits them as one group) stay independent: one that
 * fails is undone whole — including the statements it ran before failing — and the others commit.
 */
import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { eachStore, createResource, freshStoreOf, operation, resource } from './fixtures.js';

eachStore(
  'a write that fails among others issued at once is undone whole; the others commit',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    await createResource(store, 'taken');
    const fine = operation({ identifier: 'fresh' });
    const clash = operation({ identifier: 'taken' });
    for (const op of [fine, clash]) assert.equal((await store.beginOperation(op)).kind, 'started');

    // The clash's finish first marks its operation SUCCESS, then finds the resource exists and throws.
    const [a, b, c, d] = await Promise.allSettled([
      store.finishOperation({ ...fine, status: 'SUCCESS' }, { kind: 'put', resource: resource('fresh') }),
      store.finishOperation(
        { ...clash, status: 'SUCCESS' },
        { kind: 'put', resource: resource('taken', { properties: { Name: 'taken', Other: true } }) },
      ),
      store.kvInsert('test', 'k', { value: { v: 1 }, writtenBy: 'w' }),
      store.completeOperation(operation({ identifier: 'inline' }), undefined, () => ({
        status: 'SUCCESS',
        change: { kind: 'put', resource: resource('inline') },
      })),
    ]);
    assert.equal(a.status, 'fulfilled');
    assert.equal(b.status, 'rejected');
    assert.ok(
      (b as PromiseRejectedResult).reason instanceof TypeplaneError &&
        (b as PromiseRejectedResult).reason.code === 'ResourceConflict',
    );
    assert.equal(c.status, 'fulfilled');
    assert.equal(d.status, 'fulfilled');

    assert.equal((await store.getOperation(fine.requestToken))?.status, 'SUCCESS');
    assert.ok(await store.getResource(fine.typeName, 'fresh'));
    assert.ok(await store.getResource(fine.typeName, 'inline'));
    assert.deepEqual((await store.kvGet('test', 'k'))?.value, { v: 1 });
    // Nothing of the failed write stayed: its operation is still in progress, the resource untouched.
    assert.equal((await store.getOperation(clash.requestToken))?.status, 'IN_PROGRESS');
    assert.deepEqual((await store.getResource(clash.typeName, 'taken'))?.properties, { Name: 'taken' });
  },
);

eachStore(
  'a failing decision among writes issued at once leaves no trace; the others commit',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const failing = operation({ identifier: 'f', clientToken: 'ct-f' });
    const results = await Promise.allSettled(
      ['x', 'y', 'f', 'z'].map((id) =>
        store.completeOperation(id === 'f' ? failing : operation({ identifier: id }), 'hash', () => {
          if (id === 'f') throw new TypeplaneError('InvalidRequest', 'refused by the decision');
          return { status: 'SUCCESS', change: { kind: 'put', resource: resource(id) } };
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    for (const id of ['x', 'y', 'z']) assert.ok(await store.getResource('Acme::Test::Thing', id), id);
    assert.equal(await store.getResource('Acme::Test::Thing', 'f'), undefined);
    assert.equal(await store.getOperation(failing.requestToken), undefined);
    // The token was not taken by the failed write: it can be used.
    const again = await store.completeOperation(
      operation({ identifier: 'f', clientToken: 'ct-f' }),
      'hash',
      () => ({
        status: 'SUCCESS',
        change: { kind: 'put', resource: resource('f') },
      }),
    );
    assert.equal(again.kind, 'started');
  },
);

eachStore('a write that fails alone is undone whole', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await createResource(store, 'taken');
  const clash = operation({ identifier: 'taken' });
  await store.beginOperation(clash);
  await assert.rejects(
    store.finishOperation({ ...clash, status: 'SUCCESS' }, { kind: 'put', resource: resource('taken') }),
    (e: unknown) => e instanceof TypeplaneError && e.code === 'ResourceConflict',
  );
  assert.equal((await store.getOperation(clash.requestToken))?.status, 'IN_PROGRESS');
});
