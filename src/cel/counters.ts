/**
 * @module How often this process's CEL evaluator has done its costly things. Tests read the counts
 * to catch a regression to per-evaluation planning, interpretation of expressions direct evaluation
 * covers, regular expressions compiled per call, or models converted per rule — counts, unlike
 * timings, do not depend on the machine.
 */
export const celCounters = {
  /** Expressions planned for @bufbuild/cel's interpreter (once each, when compiled). */
  plans: 0,
  /** Evaluations the interpreter made (direct evaluation did not cover the expression or the values). */
  interpreted: 0,
  /** Regular expressions compiled for `matches()`. */
  patternCompilations: 0,
  /** JSON values converted to CEL values (`toCel` calls from outside, each a whole value). */
  conversions: 0,
};
