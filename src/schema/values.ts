/**
 * @module JSON values that cannot be kept as they were given: a `__proto__` member (a JavaScript
 * object would take it as its prototype, so copies silently lose it), a string holding a lone UTF-16
 * surrogate (no UTF-8 encodes it: stores and URLs replace it with U+FFFD, so what is kept differs
 * from what was answered) and a number JSON cannot write back (`1e400` parses as Infinity, which
 * `JSON.stringify` writes as `null`). Type documents and request bodies are both checked with it.
 */
import { escapePointerToken } from './diagnostics.js';

export type ValueProblemKind = 'prototype-key' | 'lone-surrogate' | 'not-finite';

export interface ValueProblem {
  kind: ValueProblemKind;
  /** JSON pointer of the value (of the member, for a key). */
  pointer: string;
  /** What is wrong and how to fix it. */
  message: string;
  /** The problem is the member's name, not its value. */
  onKey?: true;
}

/** Node 20 has String.prototype.isWellFormed; the ES2023 library typings do not declare it yet. */
const wellFormed = String.prototype as unknown as { isWellFormed: (this: string) => boolean };

/** Whether a string holds a UTF-16 surrogate without its pair (not Unicode text). */
export function hasLoneSurrogate(text: string): boolean {
  return !wellFormed.isWellFormed.call(text);
}

/** A place in the value, its pointer built only when a problem needs it. */
interface Place {
  parent: Place | undefined;
  token: string;
}

function pointerOf(place: Place | undefined): string {
  const tokens: string[] = [];
  for (let p = place; p; p = p.parent) tokens.push(escapePointerToken(p.token));
  return tokens.length === 0 ? '' : `/${tokens.reverse().join('/')}`;
}

/** A `\u` escape of a surrogate, or of a letter of `__proto__` (`_`, `o`, `p`, `r`, `t`). */
const TELLING_ESCAPE = /\\u(?:[dD][89a-fA-F]|00(?:5[fF]|6[fF]|7[024]))/;

/**
 * What a number JSON.parse makes Infinity needs: a three-digit exponent (after a digit, as in every
 * JSON number), or 209 digits in a row (208 digits and a two-digit exponent stay under 10^307; see
 * {@link hasDigitRun}).
 */
const HUGE_EXPONENT = /\d[eE][+-]?\d{3}/;
const HUGE_NUMBER_DIGITS = 209;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * Whether `text` has `length` digits in a row. Probed `length` characters apart, as Boyer-Moore
 * searches: a run of that many covers a probe, and a probe that is no digit rules out every run
 * through it, so most of the text is never read. `/\d{209}/` read every character, and cost as much
 * as all the other checks of a document together.
 */
function hasDigitRun(text: string, length: number): boolean {
  for (let end = length - 1; end < text.length;) {
    if (!isDigit(text.charCodeAt(end))) {
      end += length;
      continue;
    }
    // The run through `end`, back to where it starts (or far enough).
    let start = end;
    while (start > end - length + 1 && isDigit(text.charCodeAt(start - 1))) start--;
    if (start === end - length + 1) return true;
    // A run long enough would start at `start` or later, so end at least `length - 1` after it.
    end = start + length - 1;
  }
  return false;
}

/**
 * Whether JSON text may hold a value {@link valueProblems} reports, from its characters alone (native
 * scans, no walk of the parsed value): a lone surrogate is either in the text or written as a `\u`
 * escape, `__proto__` is written as it is or with `\u` escapes of its letters, and a number parses to
 * Infinity only with a large exponent or hundreds of digits. `false` is exact; `true` leaves it to
 * the walk.
 */
export function jsonTextMayHoldUnkeepable(text: string): boolean {
  return (
    // A search for the escape's backslash and `u` first: most texts have none (the regular
    // expression alone read each character a few times over).
    (text.includes('\\u') && TELLING_ESCAPE.test(text)) ||
    text.includes('__proto__') ||
    HUGE_EXPONENT.test(text) ||
    hasDigitRun(text, HUGE_NUMBER_DIGITS) ||
    hasLoneSurrogate(text)
  );
}

function placeOf(parent: Place | undefined, token: string | number | undefined): Place | undefined {
  return token === undefined ? parent : { parent, token: String(token) };
}

/**
 * The first `limit` problems of a parsed JSON (or YAML) value. Every object is visited once, so a
 * value sharing subtrees (YAML aliases) costs its distinct nodes only. A value waits on the stack as
 * its parent's place and its own token; its place is made only when it is a container or at fault.
 */
export function valueProblems(value: unknown, limit = 20): ValueProblem[] {
  const problems: ValueProblem[] = [];
  const seen = new Set<object>();
  const nodes: unknown[] = [value];
  const parents: (Place | undefined)[] = [undefined];
  const tokens: (string | number | undefined)[] = [undefined];
  while (nodes.length > 0 && problems.length < limit) {
    const node = nodes.pop();
    const parent = parents.pop();
    const token = tokens.pop();
    if (typeof node === 'string') {
      if (hasLoneSurrogate(node)) problems.push(loneSurrogate(pointerOf(placeOf(parent, token)), 'value'));
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node))
        problems.push({
          kind: 'not-finite',
          pointer: pointerOf(placeOf(parent, token)),
          message: 'is a number too large for JSON to hold (it would be kept as null); give a finite number',
        });
    } else if (typeof node === 'object' && node !== null && !seen.has(node)) {
      seen.add(node);
      const at = placeOf(parent, token);
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          nodes.push(node[i]);
          parents.push(at);
          tokens.push(i);
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          if (key === '__proto__')
            problems.push({
              kind: 'prototype-key',
              pointer: pointerOf({ parent: at, token: key }),
              message:
                "member name '__proto__' is not allowed: it would be taken as an object's prototype; rename it",
              onKey: true,
            });
          else if (hasLoneSurrogate(key))
            problems.push({
              ...loneSurrogate(pointerOf({ parent: at, token: key }), 'member name'),
              onKey: true,
            });
          nodes.push((node as Record<string, unknown>)[key]);
          parents.push(at);
          tokens.push(key);
        }
      }
    }
  }
  return problems.slice(0, limit);
}

function loneSurrogate(pointer: string, what: string): ValueProblem {
  return {
    kind: 'lone-surrogate',
    pointer,
    message: `${what} holds a lone UTF-16 surrogate (an escape such as \\udc00 without its pair), which is not Unicode text and cannot be stored; send well-formed text`,
  };
}
