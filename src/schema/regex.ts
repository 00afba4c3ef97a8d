/**
 * @module Regular expressions in user schemas.
 *
 * Typeplane enforces `pattern` and `patternProperties` with RE2 semantics (linear time, no
 * backtracking), so a pattern is valid when RE2 accepts it. Compiling every pattern with re2js costs
 * ~0.3 ms each, so the native engine screens first: a pattern the native engine accepts and that
 * uses no construct where the two dialects differ is valid for RE2 too.
 */
import { RE2JS } from 're2js';

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
 * Constructs where ECMAScript (with the `u` flag) and RE2 may disagree, so RE2 must decide. Screening
 * too much only costs time; screening too little accepts a pattern RE2 refuses, so this lists what is
 * known to be neutral and sends everything else to RE2:
 * - any escape but the common ones (`\d \w \s`, their negations, `\n \r \t \f \v`, escaped
 *   punctuation): `\u`, `\c`, `\p{…}`, `\b` (a backspace in a class), `\k`, `\0`-`\9`, `\x`…;
 * - any `(?` group: lookaround, named groups, flags;
 * - `[]` and `[^]`, which are empty/any classes in ECMAScript and an unclosed class in RE2;
 * - repeat counts of 100 or more, and a counted repeat of a group (RE2 caps nested repeats at 1000);
 * - deep group nesting (RE2 caps it).
 */
const DIALECT_SENSITIVE =
  /\\[^dDwWsSnrtfv.\\/\-[\](){}*+?|^$]|\(\?|\[\^?\]|\{\d*,?\d{3,}|\)\{|(\([^()]*){50}/;

/** `(?=`, `(?!`, `(?<=`, `(?<!`: RE2 refuses them with a message about named groups. */
const LOOKAROUND = /\(\?<?[=!]/;

/** `undefined` when the pattern compiles; otherwise the engine's reason. */
export function checkPattern(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `the pattern has ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH} are allowed`;
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  let verdict: string | undefined;
  let nativeOk = true;
  try {
    new RegExp(pattern, 'u');
  } catch {
    nativeOk = false;
  }
  if (!nativeOk || DIALECT_SENSITIVE.test(pattern) || pattern.length > MEASURED_LENGTH) {
    try {
      const size = RE2JS.compile(pattern).programSize();
      if (size > MAX_PATTERN_PROGRAM)
        verdict = `it compiles to ${size} RE2 instructions; at most ${MAX_PATTERN_PROGRAM} are allowed: lower its repeat counts`;
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

/** A matcher for `pattern` with RE2 semantics, or `undefined` when it does not compile. */
export function compilePattern(pattern: string): ((input: string) => boolean) | undefined {
  try {
    const re = RE2JS.compile(pattern);
    return (input) => re.matcher(input).find();
  } catch {
    return undefined;
  }
}
