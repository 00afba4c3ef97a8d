/**
 * @module The regular-expression engine ajv runs `pattern` and `patternProperties` on: RE2 (re2js),
 * linear in the input and free of backtracking, so a user's pattern cannot stall the server, and RE2
 * syntax such as `(?s)` works.
 */
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** What ajv needs of a compiled pattern. `toString` is ajv's dedup key, so it must be the pattern. */
interface Re2Like {
  test(input: string): boolean;
  toString(): string;
}

const compiled = new Map<string, Re2Like>();
const MAX_CACHED = 20_000;

function re2(pattern: string): Re2Like {
  let rx = compiled.get(pattern);
  if (rx === undefined) {
    let re: ReturnType<typeof RE2JS.compile>;
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is not a valid RE2 regular expression: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    // JSON Schema patterns are unanchored: a match anywhere in the string counts, which is what
    // test() answers (without building a Matcher and its capture state, as find() would).
    rx = { test: (input: string) => re.test(input), toString: () => `re2:${pattern}` };
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(pattern, rx);
  }
  return rx;
}

/**
 * ajv's `code.regExp` option. The flags ajv passes (`u`) do not apply: RE2 is always Unicode-aware.
 * `code` only matters for standalone code generation, which Typeplane does not use.
 */
export const re2Engine: RegExpEngine = Object.assign((pattern: string, _flags: string) => re2(pattern), {
  code: 'typeplaneRe2',
});
