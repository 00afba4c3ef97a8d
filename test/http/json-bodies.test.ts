/**
 * Request bodies: most are parsed in one pass, and nothing the full checks refuse gets through that
 * pass — prototype keys however they are spelled, lone surrogates, numbers too large for a double.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseJsonBody } from '../../src/http/index.js';
import { TypeplaneError } from '../../src/errors.js';

/** A JSON text of `value` with every character of `key` possibly written as a \uXXXX escape. */
const spelled = (key: string) =>
  fc
    .array(fc.boolean(), { minLength: key.length, maxLength: key.length })
    .map((escapes) =>
      [...key]
        .map((c, i) => (escapes[i] ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
        .join(''),
    );

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a value holds what a body may not: a `__proto__` key, `constructor` holding `prototype`, a lone surrogate. */
function refusable(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(refusable);
  return Object.entries(value).some(
    ([k, v]) =>
      k === '__proto__' ||
      LONE_SURROGATE.test(k) ||
      (k === 'constructor' && typeof v === 'object' && v !== null && Object.hasOwn(v, 'prototype')) ||
      refusable(v),
  );
}

test('a body is taken as JSON.parse reads it unless it holds what the checks refuse', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      const text = JSON.stringify(value);
      if (refusable(JSON.parse(text)))
        assert.throws(
          () => parseJsonBody(Buffer.from(text)),
          (e: unknown) => e instanceof TypeplaneError && e.code === 'InvalidRequest',
        );
      else assert.deepEqual(parseJsonBody(Buffer.from(text)), JSON.parse(text));
    }),
    { numRuns: 1000 },
  );
});

test('prototype keys, lone surrogates and numbers too large are refused however they are written', () => {
  const refused = fc.oneof(
    spelled('__proto__').map((k) => `{"a":1,"${k}":{"x":1}}`),
    spelled('prototype').chain((p) => spelled('constructor').map((c) => `{"${c}":{"${p}":{"x":1}}}`)),
    fc.constantFrom('d800', 'DBFF', 'dc00', 'DFFF').map((s) => `{"name":"a\\u${s}b"}`),
    fc.constantFrom('1e400', '-2E+309', '1.5e999', '9'.repeat(400)).map((n) => `{"size":${n}}`),
  );
  fc.assert(
    fc.property(refused, (text) => {
      assert.throws(
        () => parseJsonBody(Buffer.from(text)),
        (e: unknown) => e instanceof TypeplaneError && e.code === 'InvalidRequest',
        text,
      );
    }),
    { numRuns: 300 },
  );
});

test('text handed over as a string (a member holding JSON) is refused for a raw lone surrogate too', () => {
  assert.throws(
    () => parseJsonBody('{"name":"a\uD800b"}'),
    (e: unknown) => e instanceof TypeplaneError && /lone UTF-16 surrogate/.test(e.message),
  );
});

test("malformed JSON is refused with the parser's message", () => {
  assert.throws(
    () => parseJsonBody(Buffer.from('{"a":1,}')),
    (e: unknown) => e instanceof TypeplaneError && /request body is not valid JSON/.test(e.message),
  );
});
