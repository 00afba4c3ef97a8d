/**
 * @module Duplicate keys in a JSON manifest. `JSON.parse` keeps the last one silently; Radius reads
 * manifests strictly and refuses them, as Typeplane does for YAML (see source.ts).
 */
import { diagnostic, pointerOf } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import { LIMITS } from '../source.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Frame {
  /** The keys seen so far, for an object; `undefined` for an array. */
  keys?: Set<string>;
  /** Whether the next string of this object is a key. */
  expectKey: boolean;
  /** The pointer token of the member being read: its key, or its index in an array. */
  current: string;
}

/**
 * A TP1005 finding at each key that repeats an earlier key of the same object, up to as many as
 * syntax errors are reported. `text` is JSON that `JSON.parse` accepted, so one pass over its
 * characters (strings skipped by `indexOf`) finds its keys: linear, with no tree built.
 */
export function duplicateKeyFindings(text: string): Finding[] {
  const findings: Finding[] = [];
  const frames: Frame[] = [];
  for (let i = 0; i < text.length && findings.length < LIMITS.maxSyntaxErrors; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      const top = frames.at(-1);
      if (top?.keys && top.expectKey) {
        const raw = text.slice(i + 1, end);
        // Escapes spell the same key differently ("a" and "\u0061"): compare what they mean.
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) {
          const path = [...frames.slice(0, -1).map((f) => f.current), key];
          findings.push({
            ...diagnostic(
              'TP1005',
              pointerOf(path),
              `duplicate key '${key.length > 80 ? `${key.slice(0, 79)}…` : key}'; a key may appear once in a mapping`,
            ),
            target: 'key',
          });
        }
        top.keys.add(key);
        top.current = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      frames.push({ keys: new Set(), expectKey: true, current: '' });
    } else if (c === 0x5b /* [ */) {
      frames.push({ expectKey: false, current: '0' });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
    } else if (c === 0x2c /* , */) {
      const top = frames.at(-1);
      if (top?.keys) top.expectKey = true;
      else if (top) top.current = String(Number(top.current) + 1);
    }
  }
  return findings;
}

/** The index of the quote that closes the string whose content starts at `from`. */
function closingQuote(text: string, from: number): number {
  let end = text.indexOf('"', from);
  while (end > 0) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}
