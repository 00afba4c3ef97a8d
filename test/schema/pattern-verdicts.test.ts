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
import { nativeEquivalents, programBound } from '../../src/schema/regex-native.js';

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
  else if (ours?.startsWith('it compiles to over ')) {
    // Refused from a lower bound of its program, without compiling it: RE2's program is larger.
    const least = Number(/over (\d+)/.exec(ours)![1]);
    const size = Number(/compiles to (\d+)/.exec(theirs)?.[1]);
    assert.ok(least > MAX_PATTERN_PROGRAM && size > least, `${pattern}: over ${least}, RE2: ${theirs}`);
  } else assert.equal(ours, theirs, `${pattern} is refused by RE2`);
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
  // RE2 syntax the screen reads as ECMAScript would: flags, assertions, braced hex, a dash after a class escape.
  '(?s)',
  '(?is)',
  '(?i:',
  '(?m)',
  '\\A',
  '\\z',
  '\\Z',
  '\\b',
  '\\B',
  '\\x{60}',
  '\\x{5b}',
  '\\x{e9}',
  '\\x{10FFFF}',
  '\\x{110000}',
  '\\x{D800}',
  '\\x{}',
  '\\w-',
  '\\p{L}-',
  '-',
  '[:alpha:]',
  '[:foo:]',
  '{1,256}',
  '{,5}',
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

  it('are never under the size of the program RE2 compiles, for the patterns the screen bounds', () => {
    // Long patterns of repeated parts, where a loose bound would let a large program through.
    const parts = [
      'a',
      'ab',
      '.',
      '[a-z]',
      '\\d',
      '^',
      '$',
      '(',
      '(?:',
      ')',
      '|',
      '*',
      '+?',
      '?',
      '{3}',
      '{2,}',
      '{0}',
      '{1,50}',
      '{40}',
      '{0,1000}',
      '\\b',
      '(?i)',
      '\\x{7a}',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...parts), { minLength: 1, maxLength: 40 }), (pieces) => {
        const pattern = pieces.join('');
        let size: number;
        try {
          size = RE2JS.compile(pattern).programSize();
        } catch {
          return;
        }
        const screened = nativeEquivalents(pattern);
        try {
          new RegExp(screened, 'u');
        } catch {
          return;
        }
        assert.ok(
          programBound(screened) >= size,
          `${pattern}: bound ${programBound(screened)} under ${size}`,
        );
      }),
      { numRuns: Number(process.env.PATTERN_RUNS ?? 5000) / 5 },
    );
  });

  for (const pattern of [
    '^[a-zA-Z0-9-]{1,1000}$',
    '^(?:arn:aws[a-z-]*:)?[\\x20-\\x7E]{1,255}$',
    '^(\\d{1,3}\\.){3}\\d{1,3}$',
    'a{1001}',
    // Flags between an escape and what follows do not join them (the screen once read `\x4a`).
    '\\x4(?s)a',
    '\\x4(?s)*a',
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
    '.{0,1000}'.repeat(49),
    '.{0,1000}'.repeat(51),
    'a{999,1000}'.repeat(50),
    'a{1000,}'.repeat(50),
    '[\\w-.~]+',
    '(?s).+',
    '\\A[a-zA-Z0-9_\\.\\-]+$',
    '^([\\p{L}\\p{Z}\\p{N}_.:\\/=+\\-@]*)${1,256}',
    '^([\\w!$&()*+,./:;=?@\\x{60}-]|%([\\dA-Fa-f]{2}|[\\dA-Fa-f]?\\*))+$',
    '^(?:alias\\/.*|(?i)[0-9a-f]{8}-[0-9a-f]{4})$',
    '(^\\$\\{Parameters\\.[a-zA-z]+([a-zA-z_0-9]*)}$)',
    '^([a-zA-Z0-9_\\-=/]|\\{satellite_id\\}|\\{config\\-name}|\\{year\\}){1,900}$',
    '[[:foo:][x]',
    '[[:alpha:][x]',
    '(\\b[a-z]{1,1000}\\b){100}',
    `(${'[a-z]{1,1000}'.repeat(60)})`,
  ])
    it(`${pattern.length > 40 ? `${pattern.slice(0, 30)}… (${pattern.length} characters)` : pattern}: RE2's verdict`, () =>
      assertSameVerdict(pattern));
});
