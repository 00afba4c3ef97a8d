import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { eachStore, at, createResource, freshStoreOf, storedType } from './fixtures.js';

eachStore('a stored type comes back as registered', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const type = storedType('Acme::Test::Thing');
  await store.putType(type);
  assert.deepEqual(await store.getType('Acme::Test::Thing'), type);
  assert.deepEqual(await store.getType('Acme::Test::Thing', '1'), type);
  assert.equal(await store.getType('Acme::Test::Thing', '2'), undefined);
  assert.equal(await store.getType('Acme::Test::Other'), undefined);
});

eachStore('the default version is the most recently registered one', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  const name = 'Applications.Test/things';
  await store.putType(storedType(name, '2025-08-01', at(0)));
  await store.putType(storedType(name, '2024-01-01', at(1000)));
  assert.equal((await store.getType(name))?.version, '2024-01-01');
  assert.deepEqual(
    (await store.listTypeVersions(name)).map((v) => v.version),
    ['2025-08-01', '2024-01-01'],
  );

  // Re-registering a version replaces it and makes it the default again.
  const again = { ...storedType(name, '2025-08-01', at(2000)), source: 'changed' };
  await store.putType(again);
  assert.deepEqual(await store.getType(name), again);
  assert.deepEqual(
    (await store.listTypeVersions(name)).map((v) => v.version),
    ['2024-01-01', '2025-08-01'],
  );
  assert.equal((await store.getType(name, '2024-01-01'))?.version, '2024-01-01');
});

eachStore('listTypes gives the latest version of every type, sorted by name', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await store.putType(storedType('Zeta::A::B'));
  await store.putType(storedType('Applications.Test/things', 'v1'));
  await store.putType(storedType('Acme::A::B'));
  await store.putType(storedType('Applications.Test/things', 'v2'));
  await store.putType(storedType('Applications.Test/things', 'v1'));
  const types = await store.listTypes();
  assert.deepEqual(
    types.map((x) => [x.typeName, x.version]),
    [
      ['Acme::A::B', '1'],
      ['Applications.Test/things', 'v1'],
      ['Zeta::A::B', '1'],
    ],
  );
});

eachStore('listTypeStamps gives what listTypes gives, without the models', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await store.putType(storedType('Zeta::A::B', '1', at(0)));
  await store.putType(storedType('Applications.Test/things', 'v1', at(1000)));
  await store.putType(storedType('Applications.Test/things', 'v2', at(2000)));
  const stamps = await store.listTypeStamps();
  assert.deepEqual(
    stamps,
    (await store.listTypes()).map((x) => ({
      typeName: x.typeName,
      version: x.version,
      registeredAt: x.registeredAt,
    })),
  );
  assert.deepEqual(stamps[0], {
    typeName: 'Applications.Test/things',
    version: 'v2',
    registeredAt: at(2000),
  });
  await store.deleteType('Zeta::A::B');
  assert.deepEqual(
    (await store.listTypeStamps()).map((x) => x.typeName),
    ['Applications.Test/things'],
  );
});

eachStore('deleteType removes every version, and says false when there was none', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await store.putType(storedType('Applications.Test/things', 'v1'));
  await store.putType(storedType('Applications.Test/things', 'v2'));
  assert.equal(await store.deleteType('Applications.Test/things'), true);
  assert.equal(await store.getType('Applications.Test/things'), undefined);
  assert.deepEqual(await store.listTypeVersions('Applications.Test/things'), []);
  assert.equal(await store.deleteType('Applications.Test/things'), false);
});

eachStore('deleteType is refused while resources of the type exist', async (t, kind) => {
  const { store } = await freshStoreOf(t, kind);
  await store.putType(storedType('Acme::Test::Thing'));
  await createResource(store, 'a');
  await createResource(store, 'b');
  await assert.rejects(store.deleteType('Acme::Test::Thing'), (error: unknown) => {
    assert.ok(error instanceof TypeplaneError);
    assert.equal(error.code, 'ResourceConflict');
    assert.match(error.message, /2 resources/);
    assert.equal(error.details[0]?.resourceCount, 2);
    return true;
  });
  assert.ok(await store.getType('Acme::Test::Thing'));
  assert.equal(await store.countResources('Acme::Test::Thing'), 2);
});
