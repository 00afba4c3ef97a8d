import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, MAX_PATCH_OPERATIONS } from '../../src/model/index.js';
import { TypeplaneError } from '../../src/errors.js';
import { thing, typeOf } from '../registry/fixtures.js';

const current = () => ({
  Name: 'alpha',
  Size: 'S',
  Tags: [
    { Key: 'a', Value: '1' },
    { Key: 'b', Value: '2' },
  ],
  Config: { Mode: 'fast' },
  Labels: { env: 'prod' },
  Policy: { Statement: [{ Effect: 'Allow' }] },
});

/** Asserts an InvalidRequest whose first detail is about operation `index` and matches `message`. */
function refused(fn: () => unknown, message: RegExp, index?: number) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof TypeplaneError, String(e));
    assert.equal(e.code, 'InvalidRequest');
    assert.match(e.message, message);
    if (index !== undefined) assert.equal(e.details[0]?.index, index);
    return true;
  });
}

test('replace, add, remove on properties and array items', () => {
  const model = current();
  const out = applyPatch(thing, model, [
    { op: 'replace', path: '/Size', value: 'L' },
    { op: 'add', path: '/Tags/-', value: { Key: 'c', Value: '3' } },
    { op: 'remove', path: '/Tags/0' },
    { op: 'replace', path: '/Tags/0/Value', value: 'two' },
    { op: 'add', path: '/Count', value: 3 },
    { op: 'remove', path: '/Config/Mode' },
  ]);
  assert.deepEqual(out, {
    ...current(),
    Size: 'L',
    Count: 3,
    Tags: [
      { Key: 'b', Value: 'two' },
      { Key: 'c', Value: '3' },
    ],
    Config: {},
  });
  assert.deepEqual(model, current(), 'current is never mutated');
});

test('move, copy and a passing test', () => {
  const out = applyPatch(thing, current(), [
    { op: 'test', path: '/Tags/0', value: { Value: '1', Key: 'a' } },
    { op: 'copy', from: '/Tags/0', path: '/Tags/-' },
    { op: 'move', from: '/Tags/0', path: '/Tags/1' },
    { op: 'move', from: '/Name', path: '/Secret' },
  ]);
  assert.deepEqual(out.Tags, [
    { Key: 'b', Value: '2' },
    { Key: 'a', Value: '1' },
    { Key: 'a', Value: '1' },
  ]);
  assert.equal(out.Secret, 'alpha');
  assert.equal(out.Name, undefined);
});

test('values are copied, not shared with the patch', () => {
  const value = { Key: 'z', Value: 'v' };
  const out = applyPatch(thing, current(), [{ op: 'add', path: '/Tags/0', value }]);
  value.Key = 'mutated';
  assert.equal((out.Tags as { Key: string }[])[0]!.Key, 'z');
});

test('map members under patternProperties and free-form values are patchable', () => {
  const out = applyPatch(thing, current(), [
    { op: 'add', path: '/Labels/team', value: 'core' },
    { op: 'replace', path: '/Policy/Statement/0/Effect', value: 'Deny' },
    { op: 'add', path: '/Policy/Version', value: '2012-10-17' },
  ]);
  assert.deepEqual(out.Labels, { env: 'prod', team: 'core' });
  assert.deepEqual(out.Policy, { Statement: [{ Effect: 'Deny' }], Version: '2012-10-17' });
});

test('paths must name declared properties', () => {
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Nope', value: 1 }]),
    /patch path \/Nope is not a property of Acme::Test::Thing/,
    0,
  );
  refused(
    () =>
      applyPatch(thing, current(), [
        { op: 'replace', path: '/Size', value: 'M' },
        { op: 'add', path: '/Tags/0/Colour', value: 'red' },
      ]),
    /operation 1: patch path \/Tags\/0\/Colour is not a property/,
    1,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Labels/Not-Matching', value: 'x' }]),
    /not a property/,
  );
  refused(() => applyPatch(thing, current(), [{ op: 'add', path: '/Size/0', value: 'x' }]), /not a property/);
  refused(
    () => applyPatch(thing, current(), [{ op: 'copy', from: '/Nope', path: '/Name' }]),
    /patch from \/Nope is not a property/,
  );
  refused(() => applyPatch(thing, current(), [{ op: 'replace', path: '', value: {} }]), /whole model/);
});

test('prototype names are refused anywhere in a path', () => {
  for (const path of [
    '/__proto__',
    '/Policy/__proto__/polluted',
    '/Policy/constructor/prototype',
    '/Labels/prototype',
  ]) {
    refused(
      () => applyPatch(thing, current(), [{ op: 'add', path, value: { polluted: true } }]),
      /reserved name/,
      0,
    );
  }
  refused(
    () => applyPatch(thing, current(), [{ op: 'move', from: '/Policy/__proto__', path: '/Name' }]),
    /reserved name/,
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('the patch document shape is checked, with the index of each bad operation', () => {
  refused(() => applyPatch(thing, current(), { op: 'add' }), /JSON array/);
  refused(() => applyPatch(thing, current(), ['add']), /operation 0: must be an object/, 0);
  refused(
    () =>
      applyPatch(thing, current(), [
        { op: 'replace', path: '/Size', value: 'M' },
        { op: 'merge', path: '/Size' },
      ]),
    /'op' must be one of/,
    1,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Size' }]),
    /'value' is required for add/,
    0,
  );
  refused(() => applyPatch(thing, current(), [{ op: 'move', path: '/Size' }]), /'from' must be a string/, 0);
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: 'Size', value: 'M' }]),
    /not a JSON pointer/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Si~ze', value: 'M' }]),
    /not a JSON pointer/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'move', from: '/Config', path: '/Config/Mode' }]),
    /into itself/,
    0,
  );
  assert.throws(
    () => applyPatch(thing, current(), [{ op: 'add' }, { op: 'remove', path: 7 }]),
    (e: unknown) =>
      e instanceof TypeplaneError &&
      e.details.some((d) => d.index === 0) &&
      e.details.some((d) => d.index === 1),
  );
});

test('patches are bounded', () => {
  const ops = Array.from({ length: MAX_PATCH_OPERATIONS + 1 }, () => ({
    op: 'test',
    path: '/Size',
    value: 'S',
  }));
  refused(() => applyPatch(thing, current(), ops), /at most 1000/);
  assert.doesNotThrow(() => applyPatch(thing, current(), ops.slice(1)));
  assert.deepEqual(applyPatch(thing, current(), []), current());
});

test('operation failures name the operation', () => {
  refused(
    () =>
      applyPatch(thing, current(), [
        { op: 'replace', path: '/Size', value: 'M' },
        { op: 'test', path: '/Size', value: 'S' },
      ]),
    /patch operation 1 \(test \/Size\): test failed/,
    1,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'remove', path: '/Count' }]),
    /operation 0 .*\/Count does not exist/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'replace', path: '/Tags/5', value: { Key: 'x' } }]),
    /does not exist/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Tags/5', value: { Key: 'x' } }]),
    /past the end/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Tags/01', value: { Key: 'x' } }]),
    /not a property|not an array index/,
    0,
  );
  refused(() => applyPatch(thing, current(), [{ op: 'remove', path: '/Tags/-' }]), /does not exist/, 0);
  refused(
    () => applyPatch(thing, current(), [{ op: 'add', path: '/Items/0/Name', value: 'x' }]),
    /\/Items does not exist/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'test', path: '/Count', value: 1 }]),
    /does not exist/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'move', from: '/Count', path: '/Size' }]),
    /\/Count does not exist/,
    0,
  );
  refused(
    () => applyPatch(thing, current(), [{ op: 'remove', path: '/Policy/toString' }]),
    /does not exist/,
    0,
  );
});

test('a failing operation leaves current untouched even after earlier ones applied', () => {
  const model = current();
  refused(
    () =>
      applyPatch(thing, model, [
        { op: 'remove', path: '/Tags' },
        { op: 'remove', path: '/Tags' },
      ]),
    /does not exist/,
    1,
  );
  assert.deepEqual(model, current());
});

test('maps declared with an additionalProperties schema are patchable', () => {
  const mapType = typeOf({
    typeName: 'Acme::Test::Mapped',
    description: 'A type whose normalised schema is edited below to hold an additionalProperties map.',
    properties: {
      Name: { type: 'string' },
      Env: { type: 'object', additionalProperties: false, properties: {} },
    },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  });
  // Manifests describe maps this way; the resource-schema dialect does not allow it, so set it directly.
  const properties = mapType.schema.properties as Record<string, unknown>;
  properties.Env = {
    type: 'object',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      properties: { Value: { type: 'string' } },
    },
  };
  const out = applyPatch(mapType, { Name: 'n', Env: {} }, [
    { op: 'add', path: '/Env/HOME', value: { Value: '/root' } },
    { op: 'replace', path: '/Env/HOME/Value', value: '/home' },
  ]);
  assert.deepEqual(out.Env, { HOME: { Value: '/home' } });
  refused(
    () =>
      applyPatch(mapType, { Name: 'n', Env: { HOME: {} } }, [
        { op: 'add', path: '/Env/HOME/Other', value: 'x' },
      ]),
    /not a property/,
  );
});
