/**
 * TP5002: a property whose listed values (enum or const) include numbers or booleans, which Bicep has
 * no literal types for, is told the Bicep type it gets instead: int, bool, or both in the order the
 * values are met.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { validateDocument } from '../../src/schema/index.js';
import { schemaWith, type Json } from './helpers.js';

function listedValuesWarning(node: Json): string | undefined {
  const document = schemaWith({ properties: { Name: { type: 'string' }, P: node } });
  const result = validateDocument(JSON.stringify(document, null, 2), { file: 'x.json', bicepWarnings: true });
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics));
  return result.diagnostics.find((d) => d.rule === 'TP5002')?.message;
}

it('names the Bicep type of listed numbers and booleans, in the order met', () => {
  const cases: [Json, RegExp | undefined][] = [
    [{ type: 'integer', enum: [1, 2] }, /lists number values.*its Bicep type is int,/],
    [{ type: 'boolean', const: false }, /lists boolean values.*its Bicep type is bool,/],
    [{ type: ['number', 'boolean'], enum: [1.5, true, 2] }, /lists number and boolean values.*int \| bool,/],
    [
      { type: ['boolean', 'integer'], enum: [true, 1, false] },
      /lists boolean and number values.*bool \| int,/,
    ],
    [{ type: 'string', enum: ['a', 'b'] }, undefined],
  ];
  for (const [node, expected] of cases) {
    const message = listedValuesWarning(node);
    if (expected === undefined) assert.equal(message, undefined, JSON.stringify(node));
    else assert.match(message ?? '', expected, JSON.stringify(node));
  }
});
