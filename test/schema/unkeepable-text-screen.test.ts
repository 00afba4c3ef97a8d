/**
 * A JSON document is walked for values no store keeps (valueProblems) only when its text may hold
 * one (jsonTextMayHoldUnkeepable): the screen may say yes wrongly, never no. Numbers are where it is
 * finest: Infinity needs a three-digit exponent or 209 digits in a row, which it finds by probing
 * the text rather than reading all of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonTextMayHoldUnkeepable, validateDocument, valueProblems } from '../../src/schema/index.js';

const digits = (n: number, first = '9') => first + '0'.repeat(n - 1);

/** A resource schema whose Size property has `maximum` written as `number`. */
function withMaximum(number: string): string {
  return JSON.stringify(
    {
      typeName: 'Test::Values::Thing',
      description: 'A thing.',
      properties: { Name: { type: 'string' }, Size: { type: 'number', maximum: 0 } },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    },
    null,
    2,
  ).replace('"maximum": 0', `"maximum": ${number}`);
}

describe('the screen of JSON text for values no store keeps', () => {
  it('refuses numbers that parse to Infinity however they are written, and keeps the largest that do not', () => {
    for (const number of [digits(309), `${digits(210)}e99`, `-${digits(250)}.5e60`, '1e400', '2E+308']) {
      const text = withMaximum(number);
      assert.equal(jsonTextMayHoldUnkeepable(text), true, number);
      const result = validateDocument(text, { file: 'doc.json' });
      assert.deepEqual(
        result.diagnostics.map((d) => [d.rule, d.pointer]),
        [['TP1017', '/properties/Size/maximum']],
        number,
      );
    }
    for (const number of [
      digits(308),
      `${digits(209)}e99`,
      `${digits(208)}e99`,
      '1e99',
      `0.${'0'.repeat(300)}1`,
    ]) {
      const text = withMaximum(number);
      assert.equal(validateDocument(text, { file: 'doc.json' }).valid, true, number);
    }
    // Digits in a row anywhere, in a string too, are enough to be walked; a run one short is not.
    assert.equal(jsonTextMayHoldUnkeepable(`{"a": "${'7'.repeat(209)}"}`), true);
    assert.equal(jsonTextMayHoldUnkeepable(`{"a": "${'7'.repeat(208)}x${'7'.repeat(208)}"}`), false);
  });

  it('never says no to a text whose value holds one', () => {
    const piece = fc.oneof(
      fc.constantFrom('0', '7', '1e', 'E', '+', '-', '.', 'x', '"', '\\u', 'd83d', '005f', '__proto__', ' '),
      fc.integer({ min: 200, max: 320 }).map((n) => '5'.repeat(n)),
    );
    const number = fc
      .tuple(fc.integer({ min: 1, max: 320 }), fc.constantFrom('', 'e99', 'e+99', 'e300', 'e-400', '.5e99'))
      .map(([n, exponent]) => `${digits(n, '1')}${exponent}`);
    const text = fc.oneof(
      fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
      fc
        .tuple(number, fc.array(piece, { maxLength: 6 }))
        .map(([n, parts]) => `{"k": ${n}, "s": "${parts.join('')}"}`),
      fc.array(number, { maxLength: 4 }).map((ns) => `[${ns.join(', ')}]`),
    );
    fc.assert(
      fc.property(text, (candidate) => {
        let value: unknown;
        try {
          value = JSON.parse(candidate);
        } catch {
          return;
        }
        if (valueProblems(value).length > 0)
          assert.equal(jsonTextMayHoldUnkeepable(candidate), true, candidate);
      }),
      { numRuns: 3000 },
    );
  });
});
