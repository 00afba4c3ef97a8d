/**
 * `typeplane resource create --properties` with a mistyped property: the server refuses it and its
 * answer names the closest declared property, at the top level and inside a nested object.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';
import { exits, typeplaneCli } from '../stacks/helpers.js';

const NESTED = JSON.stringify({
  typeName: 'Test::Shop::Box',
  description: 'A box for tests.',
  properties: {
    Name: { type: 'string' },
    Lid: { type: 'object', properties: { Colour: { type: 'string' } }, additionalProperties: false },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});

test('resource create --properties with a mistyped property answers the closest declared one', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  for (const type of [WIDGET, NESTED]) assert.equal((await s.call('POST', '/v1/types', type)).status, 201);
  const cli = (...args: string[]) => typeplaneCli(s.url, s.token, args);
  const [top, nested] = await Promise.all([
    cli('resource', 'create', 'Test::Shop::Widget', '--properties', '{"Name":"w","Colour":"red"}'),
    cli('resource', 'create', 'Test::Shop::Box', '--properties', '{"Name":"b","Lid":{"Color":"red"}}'),
  ]);
  exits(top, 1);
  assert.match(top.stderr, /\/Colour 'Colour' is not a declared property; did you mean 'Color'\?/);
  exits(nested, 1);
  assert.match(nested.stderr, /\/Lid\/Color 'Color' is not a declared property; did you mean 'Colour'\?/);
});
