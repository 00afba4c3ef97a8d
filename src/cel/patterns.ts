/**
 * @module The regular expressions of `matches()`, compiled once per expression instead of on every
 * call. @bufbuild/cel compiles the pattern each time `matches` runs, and its RE2's lazy DFA starts
 * empty with each compilation: for a rule such as `self.Owner.matches('^[a-z]+@example[.]com$')`
 * that was three quarters of a create's rule checking. An expression's literal patterns are kept
 * with it (found when it is compiled) and used by its evaluations; a pattern computed from the
 * values is compiled per call as before, so what a request sends is never kept.
 *
 * What a kept pattern holds grows with the text it scans, up to its RE2 DFA's own limit of 10,000
 * states (past it the DFA starts over, and after five such restarts gives up for the slower NFA).
 * After {@link RESCAN_LIMIT} characters it is compiled afresh, so what one large value made of it
 * does not stay. Not much more often: compiling again every 4,096 characters added about 1 µs to
 * each match of a 15-character value (the DFA warms up again over the matches that follow).
 */
import { createRequire } from 'node:module';
import { celCounters } from './counters.js';

interface Matcher {
  test(text: string): boolean;
}

/** Characters a kept pattern scans before it is compiled again (its DFA's states dropped). */
export const RESCAN_LIMIT = 65_536;

/** The literal patterns of the expression being evaluated (evaluation is synchronous: one at a time). */
let active: ReadonlyMap<string, KeptPattern> | undefined;

let compileRe2: ((pattern: string) => Matcher) | undefined;

function compile(pattern: string): Matcher {
  if (!compileRe2) {
    // The RE2 @bufbuild/cel itself uses (its `matches` semantics), resolved from where it is.
    const fromCel = createRequire(createRequire(import.meta.url).resolve('@bufbuild/cel'));
    const { RE2JS } = fromCel('@bufbuild/re2') as { RE2JS: { compile(p: string): Matcher } };
    compileRe2 = (p) => RE2JS.compile(p);
  }
  celCounters.patternCompilations++;
  return compileRe2(pattern);
}

/** Why `pattern` is no RE2 expression (@bufbuild/cel's `matches` syntax); undefined when it is one. */
export function patternProblem(pattern: string): string | undefined {
  // A check, not a compilation the counters should show.
  const counted = celCounters.patternCompilations;
  try {
    compile(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    celCounters.patternCompilations = counted;
  }
}

class KeptPattern implements Matcher {
  private matcher: Matcher | undefined;
  private scanned = 0;
  constructor(private readonly pattern: string) {}

  test(text: string): boolean {
    this.matcher ??= compile(this.pattern);
    const matched = this.matcher.test(text);
    this.scanned += text.length;
    if (this.scanned > RESCAN_LIMIT) {
      this.matcher = undefined;
      this.scanned = 0;
    }
    return matched;
  }
}

/** The RE2 engine handed to @bufbuild/cel's environment: a kept pattern when there is one. */
export const re2 = {
  compile: (pattern: string): Matcher => active?.get(pattern) ?? compile(pattern),
};

/** The patterns to keep for an expression (its literal ones), or undefined when it has none. */
export function keptPatterns(literals: ReadonlySet<string>): ReadonlyMap<string, Matcher> | undefined {
  if (literals.size === 0) return undefined;
  return new Map([...literals].map((p) => [p, new KeptPattern(p)]));
}

/** `run` with `patterns` as the kept ones. */
export function withPatterns<T>(patterns: ReadonlyMap<string, Matcher> | undefined, run: () => T): T {
  const outer = active;
  active = patterns as ReadonlyMap<string, KeptPattern> | undefined;
  try {
    return run();
  } finally {
    active = outer;
  }
}
