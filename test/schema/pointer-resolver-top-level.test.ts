/**
 * A pointer to a property of the model itself is answered without the walk through `$ref`s and
 * branches (semantic.ts, PointerResolver.declaredAtTop): its answer must be the walk's, for every form
 * a pointer takes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PointerResolver } from '../../src/schema/resource-schema/semantic.js';

const doc = {
  typeName: 'Org::Service::Thing',
  properties: {
    Name: { type: 'string' },
    'a/b': { type: 'string' },
    'c~d': { type: 'string' },
    '': { type: 'string' },
    Flag: true,
    Config: { $ref: '#/definitions/Config' },
  },
  definitions: { Config: { type: 'object', properties: { Id: { type: 'string' } } } },
  oneOf: [{ properties: { Branch: { type: 'string' } } }],
};

describe('PointerResolver, for a property of the model itself', () => {
  it('answers as the walk does: declared, escaped, empty, not a schema, only in a branch, nested, absent', () => {
    const pointers = [
      '/properties/Name',
      '/properties/a~1b',
      '/properties/c~0d',
      '/properties/',
      '/properties/Flag',
      '/properties/Branch',
      '/properties/Config/Id',
      '/properties/Config/Nope',
      '/properties/Nope',
      '/properties/toString',
      '/definitions/Config',
    ];
    const expected = [true, true, true, true, false, true, true, false, false, false, false];
    pointers.forEach((pointer, i) => {
      const walked = new PointerResolver(doc).walk(pointer) !== undefined;
      assert.equal(walked, expected[i], `the walk, ${pointer}`);
      assert.equal(new PointerResolver(doc).resolves(pointer), walked, pointer);
    });
  });
});
