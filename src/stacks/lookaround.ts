/**
 * @module AllowedPatterns with lookaround (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`), which CloudFormation
 * takes (its patterns are Java's) and RE2 has not: the common S3 bucket name pattern
 * `(?=^.{3,63}$)(?!.*[.-]{2})(?!^(?:…(\.(?!$)|$)){4}$)(^…$)` among them.
 *
 * Such a pattern is parsed here (a subset of Java's syntax: groups, alternation, classes, counted
 * and lazy repeats, anchors, `\b`, lookaround; not back-references, possessive repeats, inline
 * flags or class intersections, which are refused by name) and matched without backtracking: for
 * each node and start position, the set of positions where the node can end is computed once and
 * kept, so a match costs at most nodes × (characters + 1)² steps, whatever the pattern — and every
 * step is charged to a budget, so a long value against a large pattern is refused, not run.
 */

import { matchesWhole } from '../registry/re2.js';
import { MAX_PATTERN_LENGTH, checkPattern } from '../schema/regex.js';

/** What a lookaround pattern check may spend, in steps; shared by the checks of one request. */
export interface LookaroundBudget {
  left: number;
}

/** The steps a template's parameter checks may take together (measured 0.1-0.7 µs a step: ~70 ms of the event loop at most). */
export const LOOKAROUND_WORK_LIMIT = 100_000;

/** Thrown by {@link matchesLookaround} when the budget is spent. */
export class LookaroundWorkExceeded extends Error {
  constructor(readonly inputLength: number) {
    super(
      `checking a value of ${inputLength} characters against a lookaround pattern is over the work limit`,
    );
  }
}

type Node =
  | { id: number; kind: 'seq'; items: Node[] }
  | { id: number; kind: 'alt'; options: Node[] }
  | { id: number; kind: 'char'; test: (c: number) => boolean }
  | { id: number; kind: 'repeat'; node: Node; min: number; max: number }
  | { id: number; kind: 'assert'; test: (text: readonly number[], at: number) => boolean }
  | { id: number; kind: 'look'; behind: boolean; negated: boolean; node: Node };

/** The longest value checked against a lookaround pattern: CloudFormation's bound on a parameter value (4 KB). */
export const MAX_LOOKAROUND_INPUT = 4096;

/**
 * Why an AllowedPattern cannot be checked (what to change), or undefined: one without lookaround is
 * RE2's, as a schema's patterns are; one with lookaround is read here.
 */
export function allowedPatternProblem(pattern: string): string | undefined {
  if (!hasLookaround(pattern)) {
    const refused = checkPattern(pattern);
    return refused === undefined ? undefined : `${refused}; Typeplane uses RE2 syntax`;
  }
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `the pattern has ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH} are allowed`;
  const problem = lookaroundProblem(pattern);
  return problem === undefined
    ? undefined
    : `${problem} (a pattern with lookaround is read as Java reads it, without back-references, possessive repeats, inline flags or class intersections): rewrite it without that`;
}

/**
 * Whether `value` as a whole matches an AllowedPattern that {@link allowedPatternProblem} accepts. RE2's
 * budget applies to one without lookaround (it throws PatternWorkExceeded), `budget` to one with it (it
 * throws {@link LookaroundWorkExceeded}, at once for a value over {@link MAX_LOOKAROUND_INPUT}).
 */
export function matchesAllowedPattern(pattern: string, value: string, budget: LookaroundBudget): boolean {
  if (!hasLookaround(pattern)) return matchesWhole(pattern, value);
  if (value.length > MAX_LOOKAROUND_INPUT) throw new LookaroundWorkExceeded(value.length);
  return matchesLookaround(pattern, value, budget);
}

/** A node before it is numbered. */
type Body = Node extends infer N ? (N extends Node ? Omit<N, 'id'> : never) : never;

/** Whether `pattern` uses lookaround (and so is checked here, not by RE2). */
export function hasLookaround(pattern: string): boolean {
  return /\(\?<?[=!]/.test(pattern);
}

const MAX_NODES = 2_000;
const MAX_DEPTH = 50;
const MAX_COUNT = 1_000;

const parsed = new Map<string, { root: Node; nodes: number } | string>();

/** Why `pattern` cannot be checked here (a construct named), or undefined when it can. */
export function lookaroundProblem(pattern: string): string | undefined {
  const result = parse(pattern);
  return typeof result === 'string' ? result : undefined;
}

function parse(pattern: string): { root: Node; nodes: number } | string {
  let result = parsed.get(pattern);
  if (result === undefined) {
    try {
      result = new Parser(pattern).parse();
    } catch (e) {
      if (!(e instanceof PatternSyntax)) throw e;
      result = e.message;
    }
    if (parsed.size > 500) parsed.clear();
    parsed.set(pattern, result);
  }
  return result;
}

/**
 * Whether `pattern` (accepted by {@link lookaroundProblem}) matches the whole of `value`, as
 * CloudFormation checks an AllowedPattern; throws {@link LookaroundWorkExceeded} past the budget.
 */
export function matchesLookaround(pattern: string, value: string, budget: LookaroundBudget): boolean {
  const result = parse(pattern);
  if (typeof result === 'string') throw new Error(`lookaround pattern not checkable: ${result}`);
  const text = Array.from(value, (c) => c.codePointAt(0)!);
  return new Matcher(text, result.nodes, budget).ends(result.root, 0).includes(text.length);
}

class PatternSyntax extends Error {}

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x85, 0x2028, 0x2029]);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isWord = (c: number) =>
  isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
/** At the end, or before a final line break (`\n`, `\r\n`, `\r`, U+0085, U+2028, U+2029): Java's `$` and `\Z`. */
const atEnd = (t: readonly number[], at: number) =>
  at === t.length ||
  (at === t.length - 1 && LINE_TERMINATORS.has(t[at]!)) ||
  (at === t.length - 2 && t[at] === 0x0d && t[at + 1] === 0x0a);
const wordAt = (text: readonly number[], at: number) => at >= 0 && at < text.length && isWord(text[at]!);

class Parser {
  private at = 0;
  private nodes = 0;
  private depth = 0;
  private readonly chars: number[];

  constructor(pattern: string) {
    this.chars = Array.from(pattern, (c) => c.codePointAt(0)!);
  }

  parse(): { root: Node; nodes: number } {
    const root = this.alternation();
    if (this.at < this.chars.length) this.fail(`an unmatched ')' at character ${this.at + 1}`);
    return { root, nodes: this.nodes };
  }

  private fail(what: string): never {
    throw new PatternSyntax(what);
  }

  private node(body: Body): Node {
    if (++this.nodes > MAX_NODES) this.fail(`it has over ${MAX_NODES} parts`);
    return { ...body, id: this.nodes - 1 } as Node;
  }

  private peek(offset = 0): number | undefined {
    return this.chars[this.at + offset];
  }

  private eat(c: string): boolean {
    if (this.peek() !== c.codePointAt(0)) return false;
    this.at++;
    return true;
  }

  private alternation(): Node {
    if (++this.depth > MAX_DEPTH) this.fail(`its groups nest over ${MAX_DEPTH} deep`);
    const options = [this.sequence()];
    while (this.eat('|')) options.push(this.sequence());
    this.depth--;
    return options.length === 1 ? options[0]! : this.node({ kind: 'alt', options });
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.chars.length && this.peek() !== 0x7c && this.peek() !== 0x29)
      items.push(this.quantified(this.atom()));
    return items.length === 1 ? items[0]! : this.node({ kind: 'seq', items });
  }

  private quantified(atom: Node): Node {
    let min: number;
    let max: number;
    if (this.eat('*')) [min, max] = [0, Infinity];
    else if (this.eat('+')) [min, max] = [1, Infinity];
    else if (this.eat('?')) [min, max] = [0, 1];
    else if (this.peek() === 0x7b) [min, max] = this.counts();
    else return atom;
    if (this.eat('+')) this.fail('possessive repeats (*+, ++, ?+) are not supported');
    this.eat('?'); // lazy: the same strings match as a whole
    if (this.peek() === 0x2a || this.peek() === 0x2b || this.peek() === 0x3f || this.peek() === 0x7b)
      this.fail(`a repeat of a repeat at character ${this.at + 1}`);
    return this.node({ kind: 'repeat', node: atom, min, max });
  }

  private counts(): [number, number] {
    const rest = String.fromCodePoint(...this.chars.slice(this.at, this.at + 24));
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) this.fail(`a '{' that starts no repeat count at character ${this.at + 1}; escape it (\\{)`);
    this.at += m[0].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT))
      this.fail(`a repeat count over ${MAX_COUNT}`);
    if (max < min) this.fail(`a repeat {${min},${max}} whose maximum is below its minimum`);
    return [min, max];
  }

  private atom(): Node {
    const c = this.chars[this.at++]!;
    switch (c) {
      case 0x28: // (
        return this.group();
      case 0x5b: // [
        return this.node({ kind: 'char', test: this.charClass() });
      case 0x2e: // .
        return this.node({ kind: 'char', test: (x) => !LINE_TERMINATORS.has(x) });
      case 0x5e: // ^
        return this.node({ kind: 'assert', test: (_t, at) => at === 0 });
      case 0x24: // $: the end, or before a final line break (Java's, without MULTILINE)
        return this.node({ kind: 'assert', test: atEnd });
      case 0x5c: // \
        return this.escape();
      case 0x2a:
      case 0x2b:
      case 0x3f:
      case 0x7b:
        return this.fail(`a repeat with nothing to repeat at character ${this.at}`);
      default:
        return this.node({ kind: 'char', test: (x) => x === c });
    }
  }

  private group(): Node {
    let look: { behind: boolean; negated: boolean } | undefined;
    if (this.eat('?')) {
      if (this.eat(':')) look = undefined;
      else if (this.eat('=')) look = { behind: false, negated: false };
      else if (this.eat('!')) look = { behind: false, negated: true };
      else if (this.eat('<')) {
        if (this.eat('=')) look = { behind: true, negated: false };
        else if (this.eat('!')) look = { behind: true, negated: true };
        else {
          // A named group: its name, then a group like any other.
          while (this.peek() !== undefined && this.peek() !== 0x3e) this.at++;
          if (!this.eat('>')) this.fail("a group name without its closing '>'");
        }
      } else
        this.fail(
          `'(?${String.fromCodePoint(this.peek() ?? 0x3f)}' (inline flags, atomic groups) is not supported`,
        );
    }
    const inner = this.alternation();
    if (!this.eat(')')) this.fail("a '(' without its ')'");
    return look ? this.node({ kind: 'look', ...look, node: inner }) : inner;
  }

  private escape(): Node {
    const c = this.chars[this.at];
    if (c === undefined) this.fail('a pattern that ends in a lone backslash');
    const letter = String.fromCodePoint(c);
    const boundary = (negated: boolean) =>
      this.node({
        kind: 'assert',
        test: (t, at) => (wordAt(t, at - 1) !== wordAt(t, at)) !== negated,
      });
    if (letter === 'b' || letter === 'B') {
      this.at++;
      return boundary(letter === 'B');
    }
    if (letter === 'A') {
      this.at++;
      return this.node({ kind: 'assert', test: (_t, at) => at === 0 });
    }
    if (letter === 'z') {
      this.at++;
      return this.node({ kind: 'assert', test: (t, at) => at === t.length });
    }
    if (letter === 'Z') {
      this.at++;
      return this.node({ kind: 'assert', test: atEnd });
    }
    const escaped = this.escapedChar();
    return this.node({ kind: 'char', test: typeof escaped === 'number' ? (x) => x === escaped : escaped });
  }

  /** An escape that stands for one character (its code) or a class of them (its test), in a class or out. */
  private escapedChar(): number | ((c: number) => boolean) {
    const c = this.chars[this.at++]!;
    const letter = String.fromCodePoint(c);
    const classes: Record<string, (x: number) => boolean> = {
      d: isDigit,
      D: (x) => !isDigit(x),
      w: isWord,
      W: (x) => !isWord(x),
      s: isSpace,
      S: (x) => !isSpace(x),
    };
    if (classes[letter]) return classes[letter];
    const controls: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, a: 0x07, e: 0x1b };
    if (controls[letter] !== undefined) return controls[letter];
    if (letter === 'x' || letter === 'u') {
      const rest = String.fromCodePoint(...this.chars.slice(this.at, this.at + 10));
      const m =
        letter === 'x'
          ? /^(?:([0-9a-fA-F]{2})|\{([0-9a-fA-F]{1,6})\})/.exec(rest)
          : /^([0-9a-fA-F]{4})/.exec(rest);
      if (!m) this.fail(`a \\${letter} escape without its hexadecimal digits`);
      this.at += m[0].length;
      return parseInt(m[1] ?? m[2]!, 16);
    }
    if (/[0-9]/.test(letter)) this.fail(`back-references and octal escapes (\\${letter}) are not supported`);
    if (/[A-Za-z]/.test(letter)) this.fail(`the escape \\${letter} is not supported`);
    return c;
  }

  private charClass(): (c: number) => boolean {
    const negated = this.eat('^');
    const tests: ((c: number) => boolean)[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail("a '[' without its ']'");
      if (c === 0x5d && !first) {
        this.at++;
        break;
      }
      first = false;
      if (c === 0x5b) this.fail('nested classes ([a[b]]) are not supported');
      if (c === 0x26 && this.peek(1) === 0x26) this.fail('class intersections (&&) are not supported');
      const low = this.classMember();
      if (
        typeof low === 'number' &&
        this.peek() === 0x2d &&
        this.peek(1) !== 0x5d &&
        this.peek(1) !== undefined
      ) {
        this.at++;
        const high = this.classMember();
        if (typeof high !== 'number') this.fail('a range that ends in a class (\\d, \\w, \\s)');
        if (high < low) this.fail('a range whose end is below its start');
        tests.push((x) => x >= low && x <= high);
      } else tests.push(typeof low === 'number' ? (x) => x === low : low);
    }
    return (x) => tests.some((t) => t(x)) !== negated;
  }

  /** One member of a class: a character (its code), or a class escape's test. */
  private classMember(): number | ((c: number) => boolean) {
    const c = this.chars[this.at++]!;
    return c === 0x5c ? this.escapedChar() : c;
  }
}

/** Where each node can end, from each start: computed once per (node, start), every step charged. */
class Matcher {
  private readonly memo = new Map<number, number[]>();

  constructor(
    private readonly text: readonly number[],
    private readonly nodes: number,
    private readonly budget: LookaroundBudget,
  ) {}

  private charge(steps: number): void {
    this.budget.left -= steps;
    if (this.budget.left < 0) throw new LookaroundWorkExceeded(this.text.length);
  }

  ends(node: Node, at: number): number[] {
    const key = node.id + this.nodes * at;
    const kept = this.memo.get(key);
    if (kept) return kept;
    this.charge(1);
    const result = this.compute(node, at);
    this.charge(result.length);
    this.memo.set(key, result);
    return result;
  }

  private union(starts: readonly number[], node: Node): number[] {
    const out = new Set<number>();
    for (const start of starts) {
      const ends = this.ends(node, start);
      this.charge(ends.length);
      for (const end of ends) out.add(end);
    }
    return [...out];
  }

  private compute(node: Node, at: number): number[] {
    const text = this.text;
    switch (node.kind) {
      case 'char':
        return at < text.length && node.test(text[at]!) ? [at + 1] : [];
      case 'assert':
        return node.test(text, at) ? [at] : [];
      case 'seq': {
        let positions = [at];
        for (const item of node.items) {
          if (positions.length === 0) break;
          positions = this.union(positions, item);
        }
        return positions;
      }
      case 'alt': {
        const out = new Set<number>();
        for (const option of node.options) {
          const ends = this.ends(option, at);
          this.charge(ends.length);
          for (const end of ends) out.add(end);
        }
        return [...out];
      }
      case 'look': {
        let holds: boolean;
        if (!node.behind) holds = this.ends(node.node, at).length > 0;
        else {
          holds = false;
          for (let start = at; start >= 0 && !holds; start--)
            holds = this.ends(node.node, start).includes(at);
        }
        return holds !== node.negated ? [at] : [];
      }
      case 'repeat': {
        const out = new Set<number>(node.min === 0 ? [at] : []);
        let frontier = [at];
        for (let count = 1; count <= node.max && frontier.length > 0; count++) {
          const next = this.union(frontier, node.node);
          if (count < node.min) frontier = next;
          else {
            // Past the minimum, a position reached again adds nothing new.
            frontier = next.filter((p) => !out.has(p));
            for (const p of frontier) out.add(p);
          }
        }
        return [...out];
      }
    }
  }
}
