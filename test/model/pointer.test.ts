import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloneJson, jsonEqual, stripNulls, valuesAt } from '../../src/model/index.js';

const model = {
  Name: 'a',
  Tags: [{ Key: 'k1', Value: 'v1' }, { Key: 'k2' }, { Value: 'v3' }],
  Config: { Nested: { Deep: 0 }, Flag: false, Nothing: null },
  Matrix: [[1, 2], [3]],
  'we/ird~name': 'x',
};

test('valuesAt: top-level and nested members', () => {
  assert.deepEqual(valuesAt(model, '/properties/Name'), [{ path: ['Name'], value: 'a' }]);
  assert.deepEqual(valuesAt(model, '/properties/Config/Nested/Deep'), [
    { path: ['Config', 'Nested', 'Deep'], value: 0 },
  ]);
  assert.deepEqual(valuesAt(model, '/properties/Config/Flag'), [{ path: ['Config', 'Flag'], value: false }]);
  assert.deepEqual(valuesAt(model, '/properties/Config/Nothing'), [
    { path: ['Config', 'Nothing'], value: null },
  ]);
});

test('valuesAt: * expands array items and skips items without the member', () => {
  assert.deepEqual(valuesAt(model, '/properties/Tags/*/Key'), [
    { path: ['Tags', 0, 'Key'], value: 'k1' },
    { path: ['Tags', 1, 'Key'], value: 'k2' },
  ]);
  assert.deepEqual(
    valuesAt(model, '/properties/Matrix/*/*').map((v) => v.value),
    [1, 2, 3],
  );
  assert.equal(valuesAt(model, '/properties/Tags/*').length, 3);
});

test('valuesAt: missing values designate nothing', () => {
  assert.deepEqual(valuesAt(model, '/properties/Missing'), []);
  assert.deepEqual(valuesAt(model, '/properties/Config/Missing/Deep'), []);
  assert.deepEqual(valuesAt(model, '/properties/Name/*'), [], '* on a non-array');
  assert.deepEqual(valuesAt(model, '/properties/Tags/Key'), [], 'member of an array');
  assert.deepEqual(valuesAt({}, '/properties/Tags/*/Key'), []);
  assert.deepEqual(valuesAt(model, '/definitions/Tag/properties/Key'), [], 'not a model pointer');
  assert.deepEqual(valuesAt(model, '/properties/toString'), [], 'inherited members are not values');
  assert.deepEqual(valuesAt(model, '/properties/__proto__'), []);
});

test('valuesAt: escaped tokens', () => {
  assert.deepEqual(valuesAt(model, '/properties/we~1ird~0name'), [{ path: ['we/ird~name'], value: 'x' }]);
});

test('stripNulls removes null members and items at every depth, returning a new value', () => {
  const input = { a: null, b: [1, null, { c: null, d: 2 }], e: { f: null }, g: 'x' };
  const out = stripNulls(input);
  assert.deepEqual(out, { b: [1, { d: 2 }], e: {}, g: 'x' });
  assert.deepEqual(input.b, [1, null, { c: null, d: 2 }], 'input untouched');
  assert.equal(stripNulls(null), null);
  assert.equal(stripNulls(5), 5);
});

test('cloneJson and jsonEqual', () => {
  const withProto = JSON.parse('{"__proto__": {"polluted": true}, "a": [1, {"b": 2}]}') as Record<
    string,
    unknown
  >;
  const copy = cloneJson(withProto);
  assert.ok(Object.hasOwn(copy, '__proto__'));
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.ok(jsonEqual(copy, withProto));
  assert.notEqual(copy.a, withProto.a);
  assert.ok(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!jsonEqual([1, 2], [2, 1]));
  assert.ok(!jsonEqual({ a: null }, {}));
});
