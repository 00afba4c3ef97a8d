import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  cloneJson,
  firstValueAt,
  jsonEqual,
  onlyValueAt,
  stripNulls,
  valuesAt,
  type ModelPath,
  type ValueAt,
} from '../../src/model/index.js';
import { copyWithout, removeAt } from '../../src/model/pointer.js';
import { escapePointerToken } from '../../src/schema/diagnostics.js';

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

/** What a pointer designates, said recursively (the reference): each token's members, then the rest of the pointer in each. */
function designated(value: unknown, tokens: readonly string[], path: ModelPath = []): ValueAt[] {
  if (value === undefined) return [];
  if (tokens.length === 0) return [{ path, value }];
  const [token, ...rest] = tokens as [string, ...string[]];
  let members: [string | number, unknown][] = [];
  if (Array.isArray(value)) {
    if (token === '*') members = value.map((item, i) => [i, item]);
    else if (/^(0|[1-9]\d*)$/.test(token) && Number(token) < value.length)
      members = [[Number(token), value[Number(token)]]];
  } else if (typeof value === 'object' && value !== null) {
    if (token === '*') members = Object.entries(value);
    else if (Object.hasOwn(value, token)) members = [[token, (value as Record<string, unknown>)[token]]];
  }
  return members.flatMap(([key, member]) => designated(member, rest, [...path, key]));
}

/**
 * JSON values of small arrays and objects whose members are named among `names`: few names and small
 * indices, so that generated pointers often lead somewhere.
 */
function jsonTree(names: string[]): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null));
  return fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('tree'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...names), tie('tree'), { maxKeys: 3 }),
    ),
  })).tree;
}

test('valuesAt, onlyValueAt and firstValueAt designate what the pointer says, with or without *', () => {
  const token = fc.constantFrom('a', 'b', '0', '1', '01', '*', '__proto__', 'constructor', 'length');
  const tree = jsonTree(['a', 'b', '0', '1', 'length']);
  fc.assert(
    fc.property(tree, fc.array(token, { minLength: 1, maxLength: 4 }), (model, tokens) => {
      const pointer = `/properties/${tokens.map(escapePointerToken).join('/')}`;
      const expected = designated(model, tokens);
      assert.deepEqual(valuesAt(model, pointer), expected);
      assert.equal(onlyValueAt(model, pointer), expected.length === 1 ? expected[0]!.value : undefined);
      assert.equal(firstValueAt(model, pointer), expected[0]?.value);
    }),
    { numRuns: 3000 },
  );
});

test('onlyValueAt and firstValueAt: one value, none, and several', () => {
  assert.equal(onlyValueAt(model, '/properties/Name'), 'a');
  assert.equal(onlyValueAt(model, '/properties/Tags/1/Key'), 'k2');
  assert.equal(onlyValueAt(model, '/properties/Tags/*/Key'), undefined, 'two keys: not one value');
  assert.equal(firstValueAt(model, '/properties/Tags/*/Key'), 'k1');
  assert.equal(onlyValueAt(model, '/properties/Tags/*/Value'), undefined);
  assert.equal(onlyValueAt(model, '/properties/Matrix/1/*'), 3, 'a * over one item is one value');
  assert.equal(onlyValueAt(model, '/properties/Missing'), undefined);
  assert.equal(firstValueAt(model, '/properties/Tags/3/Key'), undefined, 'past the end');
  assert.equal(firstValueAt(model, '/properties/Config/Nothing'), null, 'null is a value');
  assert.equal(onlyValueAt(model, '/definitions/Name'), undefined, 'not a property pointer');
});

test('copyWithout leaves out what removeAt removes from a copy: the same members, in the same order', () => {
  const token = fc.constantFrom('a', 'b', '0', '1', '*', '__proto__', 'length');
  const tree = jsonTree(['a', 'b', '0', '1', '__proto__', 'length']);
  const object = fc.dictionary(fc.constantFrom('a', 'b', '0', '__proto__'), tree, { maxKeys: 4 });
  const pointer = fc
    .array(token, { minLength: 1, maxLength: 3 })
    .map((tokens) => `/properties/${tokens.map(escapePointerToken).join('/')}`);
  fc.assert(
    fc.property(object, fc.array(pointer, { maxLength: 4 }), (model, pointers) => {
      const before = JSON.stringify(model);
      const expected = cloneJson(model);
      for (const p of pointers) removeAt(expected, p);
      const copied = copyWithout(model, pointers);
      // JSON text: members, values and their order alike (an own `__proto__` member included).
      assert.equal(JSON.stringify(copied), JSON.stringify(expected));
      assert.equal(JSON.stringify(model), before, 'the model itself is left as it was');
      if (isObjectValue(copied)) assert.notEqual(copied, model);
    }),
    { numRuns: 3000 },
  );
});

test('copyWithout follows a pointer through an array index and under *, as removeAt does', () => {
  const model = { Items: [{ Secret: 1, Keep: 2 }, { Secret: 3 }], Name: 'n', Nested: { Pin: 4, Other: 5 } };
  assert.deepEqual(copyWithout(model, ['/properties/Items/0/Secret', '/properties/Nested/Pin']), {
    Items: [{ Keep: 2 }, { Secret: 3 }],
    Name: 'n',
    Nested: { Other: 5 },
  });
  assert.deepEqual(copyWithout(model, ['/properties/Items/*/Secret']), {
    Items: [{ Keep: 2 }, {}],
    Name: 'n',
    Nested: { Pin: 4, Other: 5 },
  });
  assert.deepEqual(model.Items[0], { Secret: 1, Keep: 2 }, 'the model itself is left as it was');
});

function isObjectValue(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
