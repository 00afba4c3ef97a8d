/**
 * A mistyped name in a resource schema is answered with the name it is closest to: top-level keys
 * (`requried`, `readOnlyProperty`), property keywords (`enumm`) and property pointers in
 * primaryIdentifier, additionalIdentifiers, the property lists and tagging (`/properties/Nme`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pretty, schemaWith, validate } from './helpers.js';

const messages = (overrides: Parameters<typeof schemaWith>[0]) =>
  Object.fromEntries(validate(pretty(schemaWith(overrides))).diagnostics.map((d) => [d.pointer, d.message]));

test('unknown top-level keys and property keywords suggest the closest known one', () => {
  const m = messages({
    requried: ['Name'],
    readOnlyProperty: ['/properties/Name'],
    properties: { Name: { type: 'string', enumm: ['a'] } },
    zzzzzzzz: true,
  });
  assert.equal(m['/requried'], "unknown top-level key 'requried'; did you mean 'required'?");
  assert.equal(
    m['/readOnlyProperty'],
    "unknown top-level key 'readOnlyProperty'; did you mean 'readOnlyProperties'?",
  );
  assert.equal(
    m['/properties/Name/enumm'],
    "unknown keyword 'enumm' in a property schema; did you mean 'enum'?",
  );
  assert.equal(m['/zzzzzzzz'], "unknown top-level key 'zzzzzzzz'; remove it or check its spelling");
});

test('pointers naming no declared property suggest the closest declared one', () => {
  const m = messages({
    properties: { Name: { type: 'string' }, Size: { type: 'string' } },
    primaryIdentifier: ['/properties/Nme'],
    additionalIdentifiers: [['/properties/Siz']],
    readOnlyProperties: ['/properties/Sise'],
    createOnlyProperties: ['/properties/Elsewhere'],
  });
  assert.equal(
    m['/primaryIdentifier/0'],
    "primaryIdentifier '/properties/Nme' does not name a declared property; did you mean '/properties/Name'?",
  );
  assert.equal(
    m['/additionalIdentifiers/0/0'],
    "additionalIdentifiers pointer '/properties/Siz' does not name a declared property; did you mean '/properties/Size'?",
  );
  assert.equal(
    m['/readOnlyProperties/0'],
    "readOnlyProperties entry '/properties/Sise' does not name a declared property; it has no effect until it does; did you mean '/properties/Size'?",
  );
  assert.equal(
    m['/createOnlyProperties/0'],
    "createOnlyProperties entry '/properties/Elsewhere' does not name a declared property; it has no effect until it does",
  );
});
