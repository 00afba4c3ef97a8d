/**
 * @module The regular-expression engine ajv runs `pattern` and `patternProperties` on: RE2 (re2js),
 * linear in the input and free of backtracking, so a user's pattern cannot stall the server, and RE2
 * syntax such as `(?s)` works.
 *
 * Linear is not cheap: re2js simulates the pattern's program over the input, so one test costs up to
 * program size × characters (`1[01]{1000}2`, 1,004 instructions, against 90,000 characters of 0s
 * and 1s holds the event loop ~0.8 s). Every validation therefore has a budget of that product
 * ({@link PATTERN_WORK_LIMIT}), charged before each test runs; the test that would pass it is not
 * run, and the validation answers which value was too long instead.
 */
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import type { RE2JS } from 're2js';
import { re2js } from '../schema/re2js.js';

/**
 * Program instructions × characters that one validation may spend on patterns, all tests together.
 * A unit (one thread of re2js's NFA on one character) measured 25-100 ns on a 2-core machine at load
 * 15, so the budget holds the event loop ~25-100 ms at worst there, and a fraction of that on an idle
 * one: with a few such requests in one turn of the event loop, still under the 200 ms the fuzz test
 * allows a turn (2,000,000 let two of them pass it). Real identifiers and ARNs fit with room to
 * spare: a 1,000-instruction ARN pattern checks strings of a thousand characters.
 */
export const PATTERN_WORK_LIMIT = 1_000_000;

/** Thrown inside a validation when a test would pass the budget; {@link withPatternBudget} catches it. */
export class PatternWorkExceeded extends Error {
  constructor(
    readonly pattern: string,
    readonly programSize: number,
    readonly inputLength: number,
  ) {
    super(`pattern work limit passed by a string of ${inputLength} characters`);
  }
}

/** What a validation may still spend; unbounded outside {@link withPatternBudget}. */
let workLeft = Number.POSITIVE_INFINITY;

/**
 * `run` with a fresh pattern budget: its result, or the {@link PatternWorkExceeded} that stopped it.
 * Validations are synchronous, so one budget at a time is all there is.
 */
export function withPatternBudget<T>(run: () => T): T | PatternWorkExceeded {
  workLeft = PATTERN_WORK_LIMIT;
  try {
    return run();
  } catch (e) {
    if (e instanceof PatternWorkExceeded) return e;
    throw e;
  } finally {
    workLeft = Number.POSITIVE_INFINITY;
  }
}

/** What ajv needs of a compiled pattern. `toString` is ajv's dedup key, so it must be the pattern. */
interface Re2Like {
  test(input: string): boolean;
  toString(): string;
}

/**
 * What the compiled patterns kept for reuse may hold, in bytes. A program takes ~75-110 bytes an
 * instruction (measured), so one at the program limit (100,000, src/schema/regex.ts) ~13 MB; the
 * published AWS schemas' 2,033 patterns (245,153 instructions) ~31 MB. Past it the oldest go.
 */
export const PATTERN_CACHE_BYTES = 64 * 1024 * 1024;
const BYTES_PER_INSTRUCTION = 128;
const BYTES_PER_ENTRY = 1024;
const compiled = new Map<string, { rx: Re2Like; bytes: number }>();
let cachedBytes = 0;

function remember(pattern: string, rx: Re2Like, programSize: number): void {
  const bytes = BYTES_PER_ENTRY + BYTES_PER_INSTRUCTION * programSize;
  compiled.set(pattern, { rx, bytes });
  cachedBytes += bytes;
  for (const [oldest, entry] of compiled) {
    if (cachedBytes <= PATTERN_CACHE_BYTES) break;
    compiled.delete(oldest);
    cachedBytes -= entry.bytes;
  }
}

function re2(pattern: string): Re2Like {
  let rx = compiled.get(pattern)?.rx;
  if (rx === undefined) {
    let re: ReturnType<typeof RE2JS.compile>;
    try {
      re = re2js().RE2JS.compile(pattern);
    } catch (e) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is not a valid RE2 regular expression: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    const size = re.programSize();
    // JSON Schema patterns are unanchored: a match anywhere in the string counts, which is what
    // test() answers (without building a Matcher and its capture state, as find() would).
    rx = {
      test: (input: string) => {
        workLeft -= size * (input.length + 1);
        if (workLeft < 0) throw new PatternWorkExceeded(pattern, size, input.length);
        return re.test(input);
      },
      toString: () => `re2:${pattern}`,
    };
    remember(pattern, rx, size);
  }
  return rx;
}

/**
 * Whether `input` matches `pattern` as a whole (as a stack parameter's `AllowedPattern` does), on the
 * same compiled patterns and pattern budget as schemas. The pattern must have passed `checkPattern`
 * (src/schema/regex.ts): anchoring it in a group would make some invalid ones valid.
 */
export function matchesWhole(pattern: string, input: string): boolean {
  return re2(`^(?:${pattern})$`).test(input);
}

/**
 * ajv's `code.regExp` option. The flags ajv passes (`u`) do not apply: RE2 is always Unicode-aware.
 * `code` only matters for standalone code generation, which Typeplane does not use.
 */
export const re2Engine: RegExpEngine = Object.assign((pattern: string, _flags: string) => re2(pattern), {
  code: 'typeplaneRe2',
});
