/**
 * @module Strings that match an RE2 `pattern`, made with bounded effort: the pattern is read into a
 * small syntax tree (literals, classes, `.`, groups, alternation, repeats, anchors), a few
 * candidates are written from it with different choices (short repeats, longer ones, other
 * alternatives), and the first that RE2 itself matches, within the lengths asked, is taken. A
 * pattern outside what is read here (lookaround, which RE2 refuses anyway; a repeat of a group
 * nested past the budget) gives no string: the caller leaves the value out.
 *
 * Choices prefer what reads naturally: letters and digits from a class, the first alternative, the
 * fewest optional parts; and where an ARN is being written, the partition, region and account the
 * caller hints at for its fields.
 */
import { compilePattern } from '../../schema/regex.js';
import type { Seed } from './seed.js';

type Range = readonly [number, number];

type Node =
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'chars'; ranges: Range[] }
  | { kind: 'repeat'; node: Node; min: number; max: number }
  | { kind: 'assert' };

/** What the candidates are written with. */
export interface PatternRequest {
  pattern: string;
  minLength: number;
  maxLength: number | undefined;
  seed: Seed;
  /** Values for an ARN's fields, by index (1 partition, 2 service, 3 region, 4 account). */
  arnFields?: readonly string[];
}

/** The longest string written (and the most nodes visited) for one candidate. */
const MAX_OUTPUT = 2048;
const MAX_STEPS = 20_000;
/** Plain characters, a class's members preferred tier by tier. */
const NICE = ['abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', '-_.', '/:+=@,'];
const PRINTABLE: Range = [0x20, 0x7e];

const matchers = new Map<string, ((input: string) => boolean) | undefined>();
const parsed = new Map<string, Node | undefined>();

/** A matcher with RE2 semantics, compiled once per pattern (a few hundred kept). */
export function patternMatcher(pattern: string): ((input: string) => boolean) | undefined {
  if (!matchers.has(pattern)) {
    if (matchers.size > 500) matchers.clear();
    matchers.set(pattern, compilePattern(pattern));
  }
  return matchers.get(pattern);
}

/** A string RE2 matches with `pattern`, of an allowed length; undefined when none was found. */
export function stringMatching(request: PatternRequest): string | undefined {
  const matches = patternMatcher(request.pattern);
  if (!matches) return undefined;
  if (!parsed.has(request.pattern)) {
    if (parsed.size > 500) parsed.clear();
    parsed.set(request.pattern, parse(request.pattern));
  }
  const tree = parsed.get(request.pattern);
  if (!tree) return undefined;
  const fits = (s: string) => {
    const n = [...s].length;
    return n >= request.minLength && (request.maxLength === undefined || n <= request.maxLength);
  };
  const modes: Mode[] = ['natural', 'shortest', 'long', 'varied', 'varied', 'varied'];
  for (const [attempt, mode] of modes.entries()) {
    const writer = new Writer(mode, request.seed.derive(`attempt ${attempt}`), request);
    const candidate = writer.write(tree);
    if (candidate !== undefined && fits(candidate) && matches(candidate)) return candidate;
  }
  return undefined;
}

type Mode = 'natural' | 'shortest' | 'long' | 'varied';

class Writer {
  private out = '';
  private steps = 0;

  constructor(
    private readonly mode: Mode,
    private readonly seed: Seed,
    private readonly request: PatternRequest,
  ) {}

  write(node: Node): string | undefined {
    try {
      this.emit(node);
      return this.out;
    } catch (e) {
      if (e instanceof OutOfBudget) return undefined;
      throw e;
    }
  }

  private emit(node: Node): void {
    if (++this.steps > MAX_STEPS || this.out.length > MAX_OUTPUT) throw new OutOfBudget();
    switch (node.kind) {
      case 'assert':
        return;
      case 'chars':
        this.out += this.member(node.ranges);
        return;
      case 'seq':
        for (const item of node.items) this.emit(item);
        return;
      case 'alt': {
        const usable = node.options.filter((o) => !empty(o));
        const options = usable.length > 0 ? usable : node.options;
        this.emit(this.mode === 'varied' ? this.seed.pick(options) : options[0]!);
        return;
      }
      case 'repeat': {
        if (node.node.kind === 'chars' && this.mode !== 'shortest') {
          const hinted = this.hint(node.node.ranges, node.min, node.max);
          if (hinted !== undefined) {
            this.out += hinted;
            return;
          }
        }
        const count = this.count(node);
        for (let i = 0; i < count; i++) this.emit(node.node);
      }
    }
  }

  /** How many times a repeat is written: few for groups, a name's length for characters. */
  private count(node: { node: Node; min: number; max: number }): number {
    const { min, max } = node;
    const single = node.node.kind === 'chars';
    const cap = (n: number) => Math.min(max, Math.max(min, n));
    switch (this.mode) {
      case 'shortest':
        return min;
      case 'long':
        return cap(single ? Math.max(this.request.minLength, 12) : min + 1);
      case 'varied':
        return cap(min + this.seed.below(single ? 12 : 2));
      default:
        // Optional parts read best left out (`aws[-a-z]*`, `(\.\d{3})?`); a required run is a word.
        return !single || min === 0 ? min : cap(12);
    }
  }

  /** An ARN's partition, service, region or account where the pattern is writing that field. */
  private hint(ranges: Range[], min: number, max: number): string | undefined {
    const fields = this.request.arnFields;
    if (!fields || !this.out.startsWith('arn:') || !this.out.endsWith(':')) return undefined;
    const index = this.out.split(':').length - 1;
    const value = fields[index];
    if (value === undefined || value.length < min || value.length > max) return undefined;
    const inClass = [...value].every((c) => within(ranges, c.codePointAt(0)!));
    return inClass ? value : undefined;
  }

  /** A member of a class: one of its plain characters when it has some (an id is not `aaaa`). */
  private member(ranges: Range[]): string {
    for (const tier of NICE) {
      const nice = [...tier].filter((c) => within(ranges, c.codePointAt(0)!));
      if (nice.length > 0) return this.seed.pick(nice);
    }
    for (const [lo, hi] of ranges) if (lo <= hi) return String.fromCodePoint(lo);
    throw new OutOfBudget();
  }
}

class OutOfBudget extends Error {}

function empty(node: Node): boolean {
  if (node.kind === 'seq') return node.items.every(empty);
  return node.kind === 'assert';
}

function within(ranges: readonly Range[], code: number): boolean {
  return ranges.some(([lo, hi]) => code >= lo && code <= hi);
}

/** The printable ASCII characters outside `ranges` (a negated class, written from its plain part). */
function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let start = PRINTABLE[0];
  for (let c = PRINTABLE[0]; c <= PRINTABLE[1] + 1; c++) {
    const inside = c > PRINTABLE[1] || within(ranges, c);
    if (inside) {
      if (c > start) out.push([start, c - 1]);
      start = c + 1;
    }
  }
  return out;
}

const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Range[] = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
];
const ranges = (s: string): Range[] => [...s].map((c) => [c.codePointAt(0)!, c.codePointAt(0)!] as const);

/** POSIX classes (`[:alpha:]`). */
const POSIX: Record<string, Range[]> = {
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  digit: DIGIT,
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  upper: [[0x41, 0x5a]],
  lower: [[0x61, 0x7a]],
  space: SPACE,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
  word: WORD,
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  blank: ranges(' \t'),
  cntrl: [[0x00, 0x1f]],
  print: [PRINTABLE],
  graph: [[0x21, 0x7e]],
  ascii: [[0x00, 0x7f]],
};

/**
 * Unicode classes, by their ASCII members (enough to write from, and exact within ASCII, so their
 * negations' ASCII members are right too). A script with no ASCII member writes nothing.
 */
const UNICODE: Record<string, Range[]> = {
  L: POSIX.alpha!,
  Letter: POSIX.alpha!,
  Lu: POSIX.upper!,
  Ll: POSIX.lower!,
  N: DIGIT,
  Nd: DIGIT,
  Number: DIGIT,
  P: ranges('!"#%&\'()*,-./:;?@[\\]_{}'),
  Punctuation: ranges('!"#%&\'()*,-./:;?@[\\]_{}'),
  S: ranges('$+<=>^`|~'),
  Symbol: ranges('$+<=>^`|~'),
  Z: ranges(' '),
  Zs: ranges(' '),
  C: [[0x00, 0x1f]],
  Cc: [[0x00, 0x1f]],
  Latin: POSIX.alpha!,
  Common: [
    [0x20, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  Any: [[0x00, 0x7f]],
  ASCII: [[0x00, 0x7f]],
};

/** Reads an RE2 pattern into a tree; undefined for syntax outside what is read here. */
function parse(pattern: string): Node | undefined {
  try {
    const parser = new Parser(pattern);
    const node = parser.alternation();
    if (!parser.done()) return undefined;
    return node;
  } catch {
    return undefined;
  }
}

class Unsupported extends Error {}

class Parser {
  private at = 0;

  constructor(private readonly src: string) {}

  done(): boolean {
    return this.at >= this.src.length;
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.at + offset];
  }

  alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      if (atom) items.push(this.repeats(atom));
    }
    return { kind: 'seq', items };
  }

  private repeats(atom: Node): Node {
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
        if (!m) return atom;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        this.at += m[0].length - 1;
      } else return atom;
      this.at++;
      if (this.peek() === '?') this.at++; // lazy: the same strings
      atom = { kind: 'repeat', node: atom, min, max };
    }
  }

  private atom(): Node | undefined {
    const c = this.src[this.at++]!;
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return { kind: 'chars', ranges: this.charClass() };
      case '.':
        return { kind: 'chars', ranges: [PRINTABLE] };
      case '^':
      case '$':
        return { kind: 'assert' };
      case '\\':
        return this.escape();
      default: {
        const code = c.codePointAt(0)!;
        // A character outside the BMP takes two UTF-16 units.
        if (code > 0xffff) this.at++;
        return { kind: 'chars', ranges: [[code, code]] };
      }
    }
  }

  private group(): Node | undefined {
    if (this.peek() === '?') {
      this.at++;
      const named = /^(P?<[A-Za-z_][A-Za-z0-9_]*>)/.exec(this.src.slice(this.at));
      if (named) this.at += named[1]!.length;
      else {
        const flags = /^([imsU-]*)([:)])/.exec(this.src.slice(this.at));
        if (!flags) throw new Unsupported('lookaround or an unknown group');
        this.at += flags[0].length;
        // `(?i)`: flags for what follows; their strings are written as they are.
        if (flags[2] === ')') return undefined;
      }
    }
    const inner = this.alternation();
    if (this.src[this.at++] !== ')') throw new Unsupported('an unclosed group');
    return inner;
  }

  private escape(): Node {
    const c = this.src[this.at++];
    if (c === undefined) throw new Unsupported('a trailing backslash');
    if ('bBAz'.includes(c)) return { kind: 'assert' };
    if (c === 'Q') {
      const end = this.src.indexOf('\\E', this.at);
      const literal = this.src.slice(this.at, end < 0 ? undefined : end);
      this.at = end < 0 ? this.src.length : end + 2;
      return { kind: 'seq', items: [...literal].map((ch) => ({ kind: 'chars', ranges: ranges(ch) })) };
    }
    return { kind: 'chars', ranges: this.classEscape(c) };
  }

  /** The characters an escape stands for (in or out of a class); `c` follows the backslash. */
  private classEscape(c: string): Range[] {
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'n':
        return ranges('\n');
      case 't':
        return ranges('\t');
      case 'r':
        return ranges('\r');
      case 'f':
        return ranges('\f');
      case 'v':
        return ranges('\v');
      case 'a':
        return [[7, 7]];
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === '{') {
          const end = this.src.indexOf('}', this.at);
          if (end < 0) throw new Unsupported('an unclosed \\p{');
          name = this.src.slice(this.at + 1, end);
          this.at = end + 1;
        } else name = this.src[this.at++] ?? '';
        const negated = (c === 'P') !== name.startsWith('^');
        const known = UNICODE[name.replace(/^\^/, '')] ?? [];
        return negated ? complement(known) : known;
      }
      case 'x': {
        const m = /^(\{([0-9A-Fa-f]{1,6})\}|[0-9A-Fa-f]{2})/.exec(this.src.slice(this.at));
        if (!m) throw new Unsupported('a malformed \\x');
        this.at += m[0].length;
        const code = parseInt(m[2] ?? m[1]!, 16);
        return [[code, code]];
      }
      default:
        if (/[0-7]/.test(c)) {
          const m = /^[0-7]{0,2}/.exec(this.src.slice(this.at))!;
          this.at += m[0].length;
          const code = parseInt(c + m[0], 8);
          return [[code, code]];
        }
        if (/[A-Za-z]/.test(c)) throw new Unsupported(`the escape \\${c}`);
        return ranges(c);
    }
  }

  private charClass(): Range[] {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const out: Range[] = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      if (this.done()) throw new Unsupported('an unclosed class');
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.at));
      if (posix) {
        this.at += posix[0].length;
        const cls = POSIX[posix[2]!];
        if (!cls) throw new Unsupported(`the class [:${posix[2]}:]`);
        out.push(...(posix[1] ? complement(cls) : cls));
        continue;
      }
      const lo = this.classAtom();
      if (lo.length === 1 && lo[0]![0] === lo[0]![1] && this.peek() === '-' && this.peek(1) !== ']') {
        this.at++;
        const hi = this.classAtom();
        if (hi.length !== 1 || hi[0]![0] !== hi[0]![1]) throw new Unsupported('a range to a class');
        out.push([lo[0]![0], hi[0]![0]]);
      } else out.push(...lo);
    }
    this.at++;
    return negated ? complement(out) : out;
  }

  private classAtom(): Range[] {
    const c = this.src[this.at++]!;
    if (c === '\\') {
      const e = this.src[this.at++];
      if (e === undefined) throw new Unsupported('a trailing backslash');
      return this.classEscape(e);
    }
    const code = c.codePointAt(0)!;
    if (code > 0xffff) this.at++;
    return [[code, code]];
  }
}
