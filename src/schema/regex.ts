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

/** Constructs where ECMAScript and RE2 disagree: lookaround, backreferences, big repeat counts. */
const DIALECT_SENSITIVE = /\(\?[=!<]|\\[1-9]|\\k<|\{\d{4,}|\{\d*,\d{4,}\}|\(\?[a-zA-Z]/;

/** `undefined` when the pattern compiles; otherwise the engine's reason. */
export function checkPattern(pattern: string): string | undefined {
  if (verdicts.has(pattern)) return verdicts.get(pattern);
  let verdict: string | undefined;
  let nativeOk = true;
  try {
    new RegExp(pattern, 'u');
  } catch {
    nativeOk = false;
  }
  if (!nativeOk || DIALECT_SENSITIVE.test(pattern)) {
    try {
      RE2JS.compile(pattern);
    } catch (e) {
      verdict = (e as Error).message;
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
