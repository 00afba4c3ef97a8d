/**
 * A `pattern` is valid exactly when RE2 compiles it, to a program of at most MAX_PATTERN_PROGRAM
 * instructions (testing a string costs instructions x characters). Most patterns are screened by the native engine
 * and only parsed by RE2 when they use a construct where the dialects differ, so the verdict must
 * still be RE2's own for any pattern: the same acceptance, and the same reason when refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { MAX_PATTERN_PROGRAM, checkPattern } from '../../src/schema/regex.js';

/** RE2's verdict from a full compile: `undefined` when it compiles small enough, else the reason. */
function re2Verdict(pattern: string): string | undefined {
  try {
    const size = RE2JS.compile(pattern).programSize();
    return size > MAX_PATTERN_PROGRAM
      ? `it compiles to ${size} RE2 instructions; at most ${MAX_PATTERN_PROGRAM} are allowed: lower its repeat counts`
      : undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function assertSameVerdict(pattern: string): void {
  const ours = checkPattern(pattern);
  const theirs = re2Verdict(pattern);
  if (theirs === undefined) assert.equal(ours, undefined, `${pattern} compiles in RE2`);
  else if (/\(\?<?[=!]/.test(pattern)) assert.match(ours ?? '', /lookaround is not supported/, pattern);
  else assert.equal(ours, theirs, `${pattern} is refused by RE2`);
}

// Pieces where the two dialects meet: counted repeats near RE2's caps, groups, escapes, classes.
const PIECES = [
  'a',
  '\\d',
  '\\w',
  '.',
  '[a-z]',
  '[^x]',
  '(',
  ')',
  '(?:',
  '(?i)',
  '(?=',
  '|',
  '*',
  '+',
  '?',
  '{2}',
  '{3,}',
  '{0}',
  '{1,255}',
  '{0,1000}',
  '{1000}',
  '{1001}',
  '{01}',
  '{2,1}',
  '{',
  '}',
  ',',
  '\\x41',
  '\\x4',
  '\\_',
  '\\.',
  '\\-',
  '\\(',
  '\\)',
  '\\{',
  '\\}',
  '\\[',
  '\\]',
  '\\\\',
  '\\ ',
  '\\:',
  '\\é',
  '^',
  '$',
  '[',
  ']',
  '\\p{L}',
  '\\P{Nd}',
  '\\p{Lx}',
  '\\p{Greek}',
  '\\pN',
  '\\u0041',
];

describe('pattern verdicts', () => {
  it('are RE2 verdicts for any pattern built from the pieces where the dialects differ', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }), (pieces) =>
        assertSameVerdict(pieces.join('')),
      ),
      { numRuns: Number(process.env.PATTERN_RUNS ?? 5000) },
    );
  });

  for (const pattern of [
    '^[a-zA-Z0-9-]{1,1000}$',
    '^(?:arn:aws[a-z-]*:)?[\\x20-\\x7E]{1,255}$',
    '^(\\d{1,3}\\.){3}\\d{1,3}$',
    'a{1001}',
    '(a{2}){501}',
    '(a{10}){100}',
    `${'('.repeat(60)}a${')'.repeat(60)}`,
    `${'('.repeat(1001)}a${')'.repeat(1001)}`,
    '(a{10}){101}',
    '((a{20}){20}){3}',
    '(a{20}){20}(b{30}){30}',
    '^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}:){1,7}:)$',
    '^([a-z0-9-]{1,63}\\.){1,10}[a-z]{2,63}$',
    '((((a{2}){2}){2}){2}|b{5}){3}'.repeat(40),
    'x{01}',
    '.{1000}'.repeat(1300),
    '.{1000}'.repeat(1428),
  ])
    it(`${pattern.length > 40 ? `${pattern.slice(0, 30)}… (${pattern.length} characters)` : pattern}: RE2's verdict`, () =>
      assertSameVerdict(pattern));
});
