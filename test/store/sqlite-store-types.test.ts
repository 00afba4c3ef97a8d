import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeplaneError } from '../../src/errors.js';
import { at, createResource, freshStore, storedType } from './fixtures.js';

test('a stored type comes back as registered', async (t) => {
  const { store } = await freshStore(t);
  const type = storedType('Acme::Test::Thing');
  await store.putType(type);
  assert.deepEqual(await store.getType('Acme::Test::Thing'), type);
  assert.deepEqual(await store.getType('Acme::Test::Thing', '1'), type);
  assert.equal(await store.getType('Acme::Test::Thing', '2'), undefined);
  assert.equal(await store.getType('Acme::Test::Other'), undefined);
});

test('the default version is the most recently registered one', async (t) => {
  const { store } = await freshStore(t);
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

test('listTypes gives the latest version of every type, sorted by name', async (t) => {
  const { store } = await freshStore(t);
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

test('deleteType removes every version, and says false when there was none', async (t) => {
  const { store } = await freshStore(t);
  await store.putType(storedType('Applications.Test/things', 'v1'));
  await store.putType(storedType('Applications.Test/things', 'v2'));
  assert.equal(await store.deleteType('Applications.Test/things'), true);
  assert.equal(await store.getType('Applications.Test/things'), undefined);
  assert.deepEqual(await store.listTypeVersions('Applications.Test/things'), []);
  assert.equal(await store.deleteType('Applications.Test/things'), false);
});

test('deleteType is refused while resources of the type exist', async (t) => {
  const { store } = await freshStore(t);
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
