/**
 * @module Regular expressions in user schemas.
 *
 * Typeplane enforces `pattern` and `patternProperties` with RE2 semantics (linear time, no
 * backtracking), so a pattern is valid when RE2 accepts it. Compiling every pattern with re2js costs
 * ~0.3 ms each, so the native engine screens first: a pattern the native engine accepts (RE2 syntax
 * it lacks read as its own equivalents, see regex-native.ts) and that uses no construct where the
 * two dialects differ is valid for RE2 too, and its program is bounded from its parts. The rest are
 * only parsed: RE2's parser makes every check it has (syntax, repeat counts, size, nesting), and
 * building the matcher after it costs ~7x more and refuses nothing more.
 */
import { re2js } from './re2js.js';
import { nativeEquivalents, programBound } from './regex-native.js';

const verdicts = new Map<string, string | undefined>();

/** The longest pattern accepted: RE2 compiles in time linear in the pattern, so a huge one stalls. */
export const MAX_PATTERN_LENGTH = 10_000;

/**
 * The largest RE2 program a pattern may compile to (its instructions: counted repeats multiply them,
 * `[01]{1000}` is 1,000). Testing a string costs up to instructions × characters, which a validation
 * budgets; this bounds the program itself. The published AWS schemas peak at 57,603
 * (AWS::GroundStation::Config's S3KeyPrefix, a group repeated `{1,900}`).
 */
export const MAX_PATTERN_PROGRAM = 100_000;

/**
 * Without a counted repeat of 100 or more or of a group (both screened below), a pattern of this
 * length compiles to well under {@link MAX_PATTERN_PROGRAM} instructions; a longer one is measured.
 */
const MEASURED_LENGTH = 1000;

/**
 * Constructs where ECMAScript (with the `u` flag) and RE2 may disagree, so RE2 must decide (once
 * `nativeEquivalents` has rewritten `\A \z \b \B`, `\x{…}`, the flags `(?i)` `(?s)` and more).
 * Screening too much only costs time; screening too little accepts a pattern RE2 refuses, so this
 * lists what is known to be neutral and sends everything else to RE2:
 * - any escape but the common ones (`\d \w \s`, their negations, `\n \r \t \f \v`, `\xHH`, a general
 *   category `\p{Lu}`; escaped punctuation is read as `\xHH` first, see `neutralEscapes`): `\u`, `\c`,
 *   other `\p{…}`, `\b` (a backspace in a class), `\k`, `\0`-`\9`, `\x{…}` past U+10FFFF…;
 * - any `(?` group but `(?:`: lookaround, named groups, other flags;
 * - `[]` and `[^]`, which are empty/any classes in ECMAScript and an unclosed class in RE2;
 * - repeat counts RE2 refuses or reads differently, or that could pass its caps (see `smallCounts`);
 * - many groups (RE2 caps their nesting).
 */
const DIALECT_SENSITIVE = /\\(?!x[0-9a-fA-F]{2}|[pP]\{[LMNPSZC][a-z]?\})[^dDwWsSnrtfv]|\(\?(?!:)|\[\^?\]/;

/** 50 groups or more: RE2 caps nesting, and counting is cheaper than finding how deep they nest. */
function manyGroups(pattern: string): boolean {
  let groups = 0;
  for (let i = pattern.indexOf('('); i >= 0; i = pattern.indexOf('(', i + 1)) if (++groups >= 50) return true;
  return false;
}

/**
 * An escaped ASCII character that is neither a letter nor a digit is that character in RE2, as `\xHH`
 * is in both dialects; ECMAScript's `u` mode refuses most of them (`\_`, `\:`), so they are read as
 * `\xHH` before the native engine screens the pattern. Pairs are read left to right, so `\\_` is an
 * escaped backslash and a plain underscore.
 */
function neutralEscapes(pattern: string): string {
  if (!pattern.includes('\\')) return pattern;
  return pattern.replace(/\\([\s\S])/g, (escape, c: string) => {
    const code = c.charCodeAt(0);
    return code < 0x80 && !/[0-9A-Za-z]/.test(c) ? `\\x${code.toString(16).padStart(2, '0')}` : escape;
  });
}

const COUNTED_REPEAT = /\{(\d+)(?:,(\d*))?\}/g;

/**
 * Whether every counted repeat is one RE2 takes as ECMAScript does, within RE2's caps: counts of at
 * most 1000 without a leading zero, nested counts whose product is at most 1000, and a program of at
 * most ~1.4 million instructions. Counts on single characters, classes or escapes never nest and each
 * adds at most twice its count to the program, so a total of 100,000 is safe. A count on a group
 * (`){`) nests the counts inside it: the longest chain of nested counts (their product) must then be
 * at most 1000, and each character of the pattern adds at most 3 instructions times that product.
 * When they are, the sum of the counts, which bounds the program (see `mayBeLarge`), or Infinity when
 * one is on a group; `undefined` when they are not.
 */
/** A count RE2 reads as ECMAScript does: no leading zero, at most 4 digits (or none, for `{n,}`). */
function plainCount(n: string | undefined): boolean {
  return !n || ((n.length === 1 || n[0] !== '0') && n.length <= 4);
}

function smallCounts(pattern: string): number | undefined {
  if (!pattern.includes('{')) return 0;
  let total = 0;
  let groupCounts = false;
  COUNTED_REPEAT.lastIndex = 0;
  for (let match = COUNTED_REPEAT.exec(pattern); match; match = COUNTED_REPEAT.exec(pattern)) {
    const [, min, max] = match;
    if (!plainCount(min) || !plainCount(max)) return undefined;
    const count = Number(max || min);
    if (count > 1000 || (total += count) > 100_000) return undefined;
    if (pattern[match.index - 1] === ')') groupCounts = true;
  }
  if (!groupCounts) return total;
  const chain = nestedCounts(pattern);
  return chain <= 1000 && 3 * pattern.length * chain <= 1_000_000 ? Infinity : undefined;
}

const COUNT_AT = /\{(\d+)(?:,(\d*))?\}/y;

/**
 * The largest product of counted repeats nested in one another, for a pattern the native engine
 * accepts (so brackets and groups are balanced); counts are read as `smallCounts` does.
 */
function nestedCounts(pattern: string): number {
  // The largest chain within each open group, innermost last; the first is the whole pattern's.
  const open = [1];
  const countAt = (i: number): number | undefined => {
    COUNT_AT.lastIndex = i;
    const match = COUNT_AT.exec(pattern);
    return match ? Math.max(Number(match[2] || match[1]), 1) : undefined;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') open.push(1);
    else if (c === ')') {
      if (open.length === 1) return Infinity;
      const inner = open.pop()! * (countAt(i + 1) ?? 1);
      open[open.length - 1] = Math.max(open[open.length - 1]!, inner);
    } else if (c === '{') {
      open[open.length - 1] = Math.max(open[open.length - 1]!, countAt(i) ?? 1);
    }
  }
  return open[0]!;
}

/**
 * Whether the pattern may compile past {@link MAX_PATTERN_PROGRAM} instructions, so it must be
 * compiled and measured: when long, or when the screen vouches for it (`counts` is the sum of its
 * counted repeats) and its bound passes the limit, or when the screen does not and it has a count of
 * 100 or more, or one on a group. Without a count on a group, a character adds at most 2
 * instructions and a count c on one at most 3(c + 1) (see `programBound`): the sum bounds the
 * program, and only a count on a group needs the bound from the pattern's parts.
 */
function mayBeLarge(escaped: string, screened: string, counts: number | undefined): boolean {
  if (escaped.length > MEASURED_LENGTH) return true;
  if (counts !== undefined)
    return (
      3 * counts + 5 * screened.length + 3 > MAX_PATTERN_PROGRAM &&
      programBound(screened) > MAX_PATTERN_PROGRAM
    );
  for (const match of escaped.matchAll(COUNTED_REPEAT))
    if (Number(match[2] || match[1]) >= 100 || escaped[match.index - 1] === ')') return true;
  return false;
}

/** `(?=`, `(?!`, `(?<=`, `(?<!`: RE2 refuses them with a message about named groups. */
const LOOKAROUND = /\(\?<?[=!]/;

/** Constructs the native engine accepts but reads unlike RE2, which `nativeEquivalents` rewrites. */
const NOT_NATIVE_ALIKE = /\\[bB]|\[:/;

/**
 * An escape, with the general categories by their short names (`\p{L}`, `\P{Nd}`) apart. To the native
 * parser such a category is valid exactly where `\w` is (a class escape, in or out of a class), but
 * costs it far more: building the category's ranges was most of what screening the AWS corpus's
 * 2,000 distinct patterns cost. Escapes are read in pairs from the left, so `\\p{L}` is no category.
 */
const GENERAL_CATEGORY =
  /\\(?:[pP]\{(?:L[ultmo]?|M[nce]?|N[dlo]?|P[cdsefio]?|S[mcko]?|Z[slp]?|C[cfsno]?)\}|[\s\S])/g;

function nativeAccepts(pattern: string): boolean {
  if (pattern.includes('\\p{') || pattern.includes('\\P{'))
    pattern = pattern.replace(GENERAL_CATEGORY, (escape) =>
      escape.length === 2 ? escape : escape[1] === 'p' ? '\\w' : '\\W',
    );
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** `undefined` when the pattern compiles; otherwise the engine's reason. */
export function checkPattern(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `the pattern has ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH} are allowed`;
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  let verdict: string | undefined;
  const escaped = neutralEscapes(pattern);
  // Most patterns are ECMAScript already: the RE2 syntax that needs rewriting makes the native engine
  // refuse the pattern, but for `\b`, `\B` (read otherwise in a class) and `[:` (a named class in one).
  let screened = escaped;
  let nativeOk = nativeAccepts(escaped);
  if (!nativeOk || NOT_NATIVE_ALIKE.test(escaped)) {
    screened = nativeEquivalents(escaped);
    nativeOk = nativeAccepts(screened);
  }
  // The sum of the counts when the screen vouches for the pattern.
  const counts =
    nativeOk && !DIALECT_SENSITIVE.test(screened) && !manyGroups(screened)
      ? smallCounts(screened)
      : undefined;
  const large = mayBeLarge(escaped, screened, counts);
  const least = large ? programAtLeast(pattern) : 0;
  if (large || counts === undefined) {
    try {
      if (least > MAX_PATTERN_PROGRAM) {
        // Surely too large: parsed for RE2's own reason if it has one, never compiled (a 4 KB
        // pattern of 570,000 instructions takes seconds to compile).
        new (re2js().RE2Set)().add(pattern);
        verdict = `it compiles to over ${least} RE2 instructions; at most ${MAX_PATTERN_PROGRAM} are allowed: lower its repeat counts`;
      } else if (large) {
        // Only a compiled program can be measured.
        const size = re2js().RE2JS.compile(pattern).programSize();
        if (size > MAX_PATTERN_PROGRAM)
          verdict = `it compiles to ${size} RE2 instructions; at most ${MAX_PATTERN_PROGRAM} are allowed: lower its repeat counts`;
      } else {
        // Adding to a set parses (and simplifies) the pattern with RE2JS.compile's flags, and stops there.
        new (re2js().RE2Set)().add(pattern);
      }
    } catch (e) {
      verdict = LOOKAROUND.test(pattern)
        ? 'lookaround is not supported: RE2 has no lookahead or lookbehind, which keeps matching linear in time'
        : (e as Error).message;
    }
  }
  if (verdicts.size > 10_000) verdicts.clear();
  verdicts.set(pattern, verdict);
  return verdict;
}

/**
 * Fewer instructions than RE2 compiles `pattern` to, counted from the repeats of single characters
 * and classes (`x{1000}`, `[01]{2,500}`, `.{9,}`): each copy is at least one instruction, and none is
 * dropped unless a group is repeated zero times or a negated class is empty (neither is counted:
 * the bound is then 0, or the class counts nothing). Escapes, groups and assertions count nothing,
 * and `\Q…\E` or a named class (`[:alpha:]`) makes it 0: a lower bound only.
 */
function programAtLeast(pattern: string): number {
  if (/\{0+(?:,0*)?\}|\\Q|\[:/.test(pattern)) return 0;
  let total = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const negated = pattern[i + 1] === '^';
      i += negated ? 2 : 1;
      // A `]` first in a class is itself.
      for (i += pattern[i] === ']' ? 1 : 0; i < pattern.length && pattern[i] !== ']'; i++)
        if (pattern[i] === '\\') i++;
      if (negated) continue;
    } else if ('()|^$*+?{}'.includes(c)) continue;
    COUNT_AT.lastIndex = i + 1;
    const count = COUNT_AT.exec(pattern);
    if (count) total += Number(count[2] || count[1]);
  }
  return total;
}

/** A matcher for `pattern` with RE2 semantics, or `undefined` when it does not compile. */
export function compilePattern(pattern: string): ((input: string) => boolean) | undefined {
  try {
    const re = re2js().RE2JS.compile(pattern);
    return (input) => re.matcher(input).find();
  } catch {
    return undefined;
  }
}
