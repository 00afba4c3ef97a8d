/**
 * @module Times as operations and records keep them (`toISOString` text). Formatting a Date costs
 * ~0.5 µs and a create formats three (its operation's start and deadline, its record's time), a
 * recipe instance nine; they mostly fall in the same millisecond, as do the creates of a busy one.
 */

/** The last two times formatted (an operation's start and its deadline alternate). */
let lastMs = Number.NaN;
let lastIso = '';
let otherMs = Number.NaN;
let otherIso = '';

/** `new Date(ms).toISOString()`, answered from the last two when it is one of them. */
export function isoOf(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (ms === otherMs) return otherIso;
  otherMs = lastMs;
  otherIso = lastIso;
  lastMs = ms;
  lastIso = new Date(ms).toISOString();
  return lastIso;
}
