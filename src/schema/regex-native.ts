/**
 * @module How the native engine screens an RE2 pattern: RE2 syntax that ECMAScript lacks, rewritten
 * to constructs it reads alike, and a bound on the size of RE2's program for a screened pattern. Both
 * only serve `checkPattern`, whose verdicts test/schema/pattern-verdicts.test.ts pins to RE2's own.
 */

const COUNT_AT = /\{(\d+)(?:,(\d*))?\}/y;

/** The length of a counted repeat (`{2}`, `{2,}`, `{2,5}`) at `i`, or 0; RE2 reads any other `{` as itself. */
function countLength(pattern: string, i: number): number {
  COUNT_AT.lastIndex = i;
  return COUNT_AT.exec(pattern)?.[0].length ?? 0;
}

/** Whether a repetition operator follows `i`: RE2 repeats assertions, ECMAScript only groups. */
function repeatedAt(pattern: string, i: number): boolean {
  const c = pattern[i];
  return c === '*' || c === '+' || c === '?' || (c === '{' && countLength(pattern, i) > 0);
}

const FLAGS = /\(\?(?:i|s|is|si)([):])/y;
/** An escape that more characters may still complete: `\x4`, `\u12`, `\c`, `\1`. */
const UNFINISHED_ESCAPE = /^\\(?:x[0-9a-fA-F]?|u[0-9a-fA-F]{0,3}|c|\d+)$/;
const HEX_BRACED = /\\x\{([0-9a-fA-F]+)\}/y;
/** Class escapes after which RE2 reads `-` as itself; ECMAScript refuses it as a range. */
const CLASS_ESCAPE = /\\(?:[dDwWsS]|[pP]\{[^}]*\})/y;

/**
 * `pattern` (escaped punctuation already read as `\xHH`) with the RE2 constructs below rewritten to
 * ECMAScript that the native engine (`u` mode) accepts exactly when RE2 accepts the original; any
 * other construct is left as it is, for the dialect screen to send to RE2:
 * - `\A`, `\z`, `\b`, `\B` outside a class are assertions, as `^` and `$` are (a class escape inside);
 * - an assertion followed by a repetition operator (`${1,256}`, which RE2 repeats) becomes a group;
 * - the flags `(?i)`, `(?s)`, `(?is)` change no verdict and are dropped; `(?i:` becomes `(?:`;
 * - `\x{HHHH}` is the character it names (`\xHH` below U+0080, where a character may be syntax);
 * - `{` that starts no counted repeat, and `}` that ends none, are themselves;
 * - `-` right after a class escape in a class is itself (`[\w-.]`), as `\x2d` is;
 * - `[:` in a class, where RE2 reads a named class (`[[:alpha:]]`), is escaped so that RE2 decides.
 */
export function nativeEquivalents(pattern: string): string {
  let out = '';
  let inClass = false;
  /** Where in `out` the last escape passed as written begins. */
  let escapeAt = -1;
  const assertion = (symbol: string, next: number): string =>
    repeatedAt(pattern, next) ? `(?:${symbol})` : symbol;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === 'x' && pattern[i + 2] === '{') {
        HEX_BRACED.lastIndex = i;
        const match = HEX_BRACED.exec(pattern);
        const code = match ? parseInt(match[1]!, 16) : NaN;
        if (code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
          out += code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : String.fromCodePoint(code);
          i += match![0].length - 1;
          continue;
        }
      }
      CLASS_ESCAPE.lastIndex = i;
      const escape = inClass ? CLASS_ESCAPE.exec(pattern)?.[0] : undefined;
      if (escape) {
        out += escape;
        i += escape.length - 1;
        if (pattern[i + 1] === '-') {
          out += '\\x2d';
          i++;
        }
        continue;
      }
      if ((e === 'p' || e === 'P' || e === 'x' || e === 'u') && pattern[i + 2] === '{') {
        // `\p{L}`, and a `\x{…}` or `\u{…}` that stays as written: braces that are no repeat.
        const end = pattern.indexOf('}', i);
        const stop = end < 0 ? pattern.length - 1 : end;
        out += pattern.slice(i, stop + 1);
        i = stop;
        continue;
      }
      if (!inClass && (e === 'A' || e === 'b' || e === 'B' || e === 'z')) {
        out += assertion(e === 'z' ? '$' : '^', i + 2);
        i++;
        continue;
      }
      escapeAt = out.length;
      out += c + (e ?? '');
      i++;
    } else if (inClass) {
      // RE2 reads `[:alpha:]` in a class as a named class: escaped, the dialect screen sends it to RE2.
      out += c === '[' && pattern[i + 1] === ':' ? '\\[' : c;
      if (c === ']') inClass = false;
    } else if (c === '[') {
      out += c;
      inClass = true;
      // A `]` or `^]` right after the bracket closes nothing in RE2; the dialect screen catches it.
      if (pattern[i + 1] === '^') out += pattern[++i];
    } else if (c === '(') {
      FLAGS.lastIndex = i;
      const flags = FLAGS.exec(pattern);
      if (flags) {
        if (flags[1] === ':') out += '(?:';
        // Dropped, the flags would join an unfinished escape to what follows (`\x4(?s)a` read as
        // `\x4a`, which RE2 refuses): an empty group keeps them apart.
        else if (escapeAt >= 0 && UNFINISHED_ESCAPE.test(out.slice(escapeAt))) out += '(?:)';
        i += flags[0].length - 1;
      } else out += c;
    } else if (c === '^' || c === '$') {
      out += assertion(c, i + 1);
    } else if (c === '{') {
      const length = countLength(pattern, i);
      if (length > 0) {
        out += pattern.slice(i, i + length);
        i += length - 1;
      } else out += '\\x7b';
    } else if (c === '}') {
      out += '\\x7d';
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * An upper bound on the instructions of RE2's program for `pattern`, a pattern the native engine
 * accepts built only from literals, `.`, `^`, `$`, classes, the escapes the screen passes, groups,
 * alternation and repetition. RE2 compiles a literal character, a class, `.` or an assertion to one
 * instruction; a group captures with two (counted for every group) and may hold an empty match, one
 * more; `|` adds a branch and maybe an empty one; `*`, `+`, `?` add at most two; `x{n,m}` is m copies
 * of x and m - n branches, `x{n,}` n copies of x and a loop; the program adds a failure, a match and
 * maybe an empty match.
 */
export function programBound(pattern: string): number {
  // The size of each open group so far (the whole pattern's first), and of the last item in it.
  const sizes = [0];
  let last = 0;
  const add = (n: number) => {
    sizes[sizes.length - 1]! += n;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let item = 1;
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === 'x') i += 3;
      else if ((e === 'p' || e === 'P') && pattern[i + 2] === '{') i = pattern.indexOf('}', i);
      else i++;
    } else if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') {
      if (pattern[i + 1] === '?') i += 2;
      sizes.push(0);
      last = 0;
      continue;
    } else if (c === ')') {
      item = (sizes.length > 1 ? sizes.pop()! : Infinity) + 3;
    } else if (c === '|') {
      add(2);
      last = 0;
      continue;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && countLength(pattern, i) > 0)) {
      let copies = 1;
      if (c === '{') {
        COUNT_AT.lastIndex = i;
        const [count, min, max] = COUNT_AT.exec(pattern)!;
        copies = Math.max(max === undefined ? Number(min) : max === '' ? Number(min) + 1 : Number(max), 1);
        i += count.length - 1;
      }
      const repeated = copies * (last + 2);
      add(repeated - last);
      last = repeated;
      // A lazy repeat costs what a greedy one does.
      if (pattern[i + 1] === '?') i++;
      continue;
    }
    add(item);
    last = item;
  }
  return sizes.length === 1 ? sizes[0]! + 3 : Infinity;
}
