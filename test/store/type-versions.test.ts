/**
 * Type versions in both stores: numbered in registration order, a default that can be moved, one
 * version removed while others stay, refusals naming counts, and each resource's recorded version;
 * a new default stored only while what it was decided on holds (several types' together, or none),
 * and operations begun only under the default version they were checked against.
 */
import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { DefaultVersionMoved, TypeChangedMeanwhile, type Store } from '../../src/store/types.js';
import { at, eachStore, freshStoreOf, openSpec, operation, resource, storedType } from './fixtures.js';

const NAME = 'Acme::Test::Thing';

async function addVersion(store: Store, typeName = NAME, offset = 0): Promise<string> {
  const { version: _, ...type } = storedType(typeName, '1', at(offset));
  return (await store.addTypeVersion(type)).version;
}

async function writeResource(store: Store, identifier: string, typeVersion: string, update = false) {
  const typeName = NAME;
  const op = operation({ typeName, identifier, ...(update ? { operation: 'UPDATE' as const } : {}) });
  assert.equal((await store.beginOperation(op)).kind, 'started');
  await store.finishOperation(
    { ...op, status: 'SUCCESS' },
    { kind: 'put', resource: resource(identifier, { typeName, typeVersion }) },
  );
}

const conflict = (pattern: RegExp) => (e: unknown) =>
  e instanceof TypeplaneError && e.code === 'ResourceConflict' && pattern.test(e.message);

eachStore('versions are numbered 1, 2, 3 per type, and the newest is the default', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  assert.deepEqual(
    [await addVersion(store), await addVersion(store), await addVersion(store)],
    ['1', '2', '3'],
  );
  // Another type counts on its own, even one whose name starts with this one's.
  assert.equal(await addVersion(store, `${NAME}Policy`), '1');
  assert.equal((await store.getType(NAME))?.version, '3');
  assert.deepEqual(
    (await store.listTypeVersions(NAME)).map((v) => v.version),
    ['1', '2', '3'],
  );
});

eachStore('the default can be moved to an older version, and a new one takes it again', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await addVersion(store);
  await addVersion(store);
  assert.equal(await store.setDefaultTypeVersion(NAME, '1'), true);
  assert.equal((await store.getType(NAME))?.version, '1');
  assert.equal((await store.getTypeStamp(NAME))?.version, '1');
  assert.equal((await store.listTypes()).find((x) => x.typeName === NAME)?.version, '1');
  assert.equal(await store.setDefaultTypeVersion(NAME, '9'), false);
  assert.equal(await addVersion(store), '3');
  assert.equal((await store.getType(NAME))?.version, '3');
});

eachStore('resources record their version; a version in use or the default cannot go', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await addVersion(store);
  await addVersion(store);
  await addVersion(store);
  await writeResource(store, 'a', '1');
  await writeResource(store, 'b', '1');
  assert.equal((await store.getResource(NAME, 'a'))?.typeVersion, '1');
  assert.deepEqual(await store.countResourcesByVersion(NAME), { '1': 2 });

  await assert.rejects(store.deleteTypeVersion(NAME, '1'), conflict(/version 1 .* in use: 2 resources/i));
  await assert.rejects(store.deleteTypeVersion(NAME, '3'), conflict(/default version .* 2 other versions/));
  assert.equal(await store.deleteTypeVersion(NAME, '2'), true);
  assert.equal(await store.deleteTypeVersion(NAME, '2'), false);
  assert.deepEqual(
    (await store.listTypeVersions(NAME)).map((v) => v.version),
    ['1', '3'],
  );
  // An update under version 3 moves the resource's record to it.
  await writeResource(store, 'a', '3', true);
  assert.deepEqual(await store.countResourcesByVersion(NAME), { '1': 1, '3': 1 });
  await assert.rejects(store.deleteTypeVersion(NAME, '3'), conflict(/version 3 .* in use: 1 resource was/i));
});

eachStore('the last version goes only as the type goes: not while resources exist', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await addVersion(store);
  await writeResource(store, 'a', '1');
  await assert.rejects(store.deleteTypeVersion(NAME, '1'), conflict(/still has 1 resource/));
  const op = operation({ typeName: NAME, identifier: 'a', operation: 'DELETE' });
  await store.beginOperation(op);
  await store.finishOperation(
    { ...op, status: 'SUCCESS' },
    { kind: 'delete', typeName: NAME, identifier: 'a' },
  );
  assert.equal(await store.deleteTypeVersion(NAME, '1'), true);
  assert.equal(await store.getType(NAME), undefined);
});

eachStore('removing a type or a version never touches a type whose name shares a prefix', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  for (const name of [NAME, `${NAME}s`, `${NAME}::Sub`]) {
    await addVersion(store, name);
    await addVersion(store, name);
  }
  assert.equal(await store.deleteTypeVersion(NAME, '1'), true);
  assert.equal(await store.deleteType(NAME), true);
  for (const name of [`${NAME}s`, `${NAME}::Sub`])
    assert.deepEqual(
      (await store.listTypeVersions(name)).map((v) => v.version),
      ['1', '2'],
      name,
    );
});

eachStore('registrations at once get versions of their own, none lost', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const versions = await Promise.all(Array.from({ length: 8 }, (_, i) => addVersion(store, NAME, i)));
  assert.deepEqual(
    versions.map(Number).sort((a, b) => a - b),
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
  assert.equal((await store.listTypeVersions(NAME)).length, 8);
});

const changedMeanwhile = (e: unknown) => e instanceof TypeChangedMeanwhile;

eachStore(
  'a new version is stored only while the default it was decided against is still the default',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    const { version: _, ...type } = storedType(NAME, '1', at(0));
    assert.equal((await store.addTypeVersion(type, { defaultVersion: undefined })).version, '1');
    // A second first registration, decided before the first was stored: refused, nothing written.
    await assert.rejects(store.addTypeVersion(type, { defaultVersion: undefined }), changedMeanwhile);
    // Two registrations decided against version 1 at once: one stores version 2, the other is refused.
    const both = await Promise.allSettled([
      store.addTypeVersion(type, { defaultVersion: '1' }),
      store.addTypeVersion(type, { defaultVersion: '1' }),
    ]);
    assert.deepEqual(both.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.ok(both.some((r) => r.status === 'rejected' && changedMeanwhile(r.reason)));
    assert.deepEqual(
      (await store.listTypeVersions(NAME)).map((v) => v.version),
      ['1', '2'],
    );
    // A default moved back is a default that changed.
    assert.equal(await store.setDefaultTypeVersion(NAME, '1', { defaultVersion: '2' }), true);
    await assert.rejects(store.setDefaultTypeVersion(NAME, '2', { defaultVersion: '2' }), changedMeanwhile);
    assert.equal((await store.getTypeStamp(NAME))?.version, '1');
  },
);

eachStore(
  'a version decided on an unused type is refused once a resource or an operation appeared',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    await addVersion(store);
    const op = operation({ typeName: NAME, identifier: 'a' });
    assert.equal((await store.beginOperation(op)).kind, 'started');
    const { version: _, ...type } = storedType(NAME, '1', at(1));
    // An operation in progress may still write a resource under version 1.
    await assert.rejects(
      store.addTypeVersion(type, { defaultVersion: '1', unused: true }),
      (e: unknown) => changedMeanwhile(e) && /1 operation in progress/.test((e as Error).message),
    );
    await store.finishOperation(
      { ...op, status: 'SUCCESS' },
      { kind: 'put', resource: resource('a', { typeName: NAME, typeVersion: '1' }) },
    );
    await assert.rejects(
      store.addTypeVersion(type, { defaultVersion: '1', unused: true }),
      (e: unknown) => changedMeanwhile(e) && /1 resource and 0 operations/.test((e as Error).message),
    );
    await assert.rejects(
      store.setDefaultTypeVersion(NAME, '1', { defaultVersion: '1', unused: true }),
      changedMeanwhile,
    );
    assert.deepEqual(await store.typeUsage(NAME), { resources: 1, activeOperations: 0 });
    // Not relying on it being unused (a change that breaks nothing), it is stored.
    assert.equal((await store.addTypeVersion(type, { defaultVersion: '1' })).version, '2');
  },
);

eachStore("several types' versions are stored together or not at all", async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const OTHER = 'Acme::Test::Other';
  await addVersion(store, OTHER);
  const { version: _a, ...first } = storedType(NAME, '1', at(1));
  const { version: _b, ...second } = storedType(OTHER, '1', at(1));
  // The second type's default moved on since the registration was decided: neither is written.
  await assert.rejects(
    store.addTypeVersions([
      { type: first, expected: { defaultVersion: undefined } },
      { type: second, expected: { defaultVersion: undefined } },
    ]),
    (e: unknown) => changedMeanwhile(e) && (e as Error).message.includes(OTHER),
  );
  assert.equal(await store.getTypeStamp(NAME), undefined);
  assert.deepEqual(
    (await store.listTypeVersions(OTHER)).map((v) => v.version),
    ['1'],
  );
  // Decided on what is there: both written, each with its next number, in the order given.
  const added = await store.addTypeVersions([
    { type: first, expected: { defaultVersion: undefined } },
    { type: second, expected: { defaultVersion: '1' } },
  ]);
  assert.deepEqual(
    added.map((r) => [r.typeName, r.version]),
    [
      [NAME, '1'],
      [OTHER, '2'],
    ],
  );
  assert.equal((await store.getTypeStamp(OTHER))?.version, '2');
});

eachStore('an operation checked against a default version that moved on does not begin', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await addVersion(store);
  await addVersion(store);
  const stale = operation({ typeName: NAME, identifier: 'a', checkedAgainstDefault: '1' });
  await assert.rejects(
    store.beginOperation(stale),
    (e: unknown) =>
      e instanceof DefaultVersionMoved && e.defaultVersion === '2' && e.code === 'ResourceConflict',
  );
  await assert.rejects(
    store.completeOperation(stale, undefined, () => ({
      status: 'FAILED',
      errorCode: 'InternalFailure',
      statusMessage: 'x',
    })),
    DefaultVersionMoved,
  );
  assert.equal(await store.getOperation(stale.requestToken), undefined, 'nothing was written');
  assert.deepEqual(await store.typeUsage(NAME), { resources: 0, activeOperations: 0 });
  const current = operation({ typeName: NAME, identifier: 'a', checkedAgainstDefault: '2' });
  const begun = await store.beginOperation(current);
  assert.equal(begun.kind, 'started');
  assert.deepEqual(await store.typeUsage(NAME), { resources: 0, activeOperations: 1 });
  assert.equal(
    'checkedAgainstDefault' in (begun.kind === 'started' ? begun.operation : {}),
    false,
    'the check is not part of the operation',
  );
});

eachStore(
  'a default version moved by another connection to the store stops the next begin',
  async (t, kind) => {
    const { store, spec } = await freshStoreOf(t, kind);
    const other = await openSpec(spec);
    t.after(() => other.close());
    await addVersion(store);
    // The first store has checked a begin against version 1 (and may remember it).
    const first = operation({ typeName: NAME, identifier: 'a', checkedAgainstDefault: '1' });
    assert.equal((await store.beginOperation(first)).kind, 'started');
    assert.equal(await addVersion(other), '2');
    const stale = operation({ typeName: NAME, identifier: 'b', checkedAgainstDefault: '1' });
    await assert.rejects(store.beginOperation(stale), DefaultVersionMoved);
    // And the same store moving it back (version 1 the default again) is seen at once too.
    assert.equal(await store.setDefaultTypeVersion(NAME, '1'), true);
    assert.equal((await store.beginOperation(stale)).kind, 'started');
    const late = operation({ typeName: NAME, identifier: 'c', checkedAgainstDefault: '2' });
    await assert.rejects(store.beginOperation(late), DefaultVersionMoved);
  },
);

eachStore(
  'resources are counted per version through creates, version changes and deletes',
  async (t, kind) => {
    const { store } = await freshStoreOf(t, kind);
    await addVersion(store);
    await writeResource(store, 'a', '1');
    await writeResource(store, 'b', '1');
    await addVersion(store);
    await writeResource(store, 'c', '2');
    assert.deepEqual(await store.countResourcesByVersion(NAME), { '1': 2, '2': 1 });
    // Rewritten with the other version: counted under it, no longer under the first.
    await writeResource(store, 'a', '2', true);
    // Rewritten with the same version: counted once still.
    await writeResource(store, 'c', '2', true);
    assert.deepEqual(await store.countResourcesByVersion(NAME), { '1': 1, '2': 2 });
    assert.equal(await store.countResources(NAME), 3);
    const op = operation({ typeName: NAME, identifier: 'b', operation: 'DELETE' });
    assert.equal((await store.beginOperation(op)).kind, 'started');
    await store.finishOperation(
      { ...op, status: 'SUCCESS' },
      { kind: 'delete', typeName: NAME, identifier: 'b' },
    );
    assert.deepEqual(await store.countResourcesByVersion(NAME), { '2': 2 });
    assert.deepEqual(await store.typeUsage(NAME), { resources: 2, activeOperations: 0 });
    // Version 1 holds no resource now: it can go.
    assert.equal(await store.deleteTypeVersion(NAME, '1'), true);
  },
);
