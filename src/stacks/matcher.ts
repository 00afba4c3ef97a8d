/**
 * @module Finding many strings in a text in one pass (Aho–Corasick over UTF-16 code units): the
 * work of one search is linear in the text, whatever the number of strings, and building the
 * automaton is linear in their total length. Masking scans each text once for all of a stack's
 * secrets, where scanning it once per secret cost texts × secrets.
 */

/**
 * Up to this many strings, a text is first searched natively for each (far faster per character
 * than the automaton); the automaton is built only when one occurs, or when there are more.
 */
export const FEW = 16;

/** Many strings to find or replace in texts; build once, use for many texts. */
export class Matcher {
  private readonly strings: string[];
  private built?: Automaton;

  constructor(strings: Iterable<string>) {
    this.strings = [...new Set(strings)].filter((s) => s.length > 0);
  }

  private get automaton(): Automaton {
    return (this.built ??= new Automaton(this.strings));
  }

  /** Whether any of the strings occurs in `text`. */
  occursIn(text: string): boolean {
    if (this.strings.length === 0) return false;
    if (this.strings.length <= FEW) return this.strings.some((s) => text.includes(s));
    return this.automaton.occursIn(text);
  }

  /**
   * `text` with every occurrence of the strings replaced by `replacement`; occurrences that overlap
   * are replaced as one, so that no part of any is left showing.
   */
  replaceIn(text: string, replacement: string): string {
    if (!this.occursIn(text)) return text;
    return this.automaton.replaceIn(text, replacement);
  }
}

const ROOT = 0;
const NONE = -1;

class Automaton {
  /** Failure link of each node: the longest proper suffix of its path that is also a path. */
  private readonly fail: Int32Array;
  /** Length of the longest string that ends at each node (itself or through its failure links); 0 if none. */
  private readonly longest: Int32Array;
  /** The root's children by code unit, dense: the step taken on most characters of a text. */
  private readonly rootChild = new Int32Array(0x10000).fill(NONE);
  /** Most other nodes have one child (strings share few prefixes): its code unit and node, kept flat. */
  private readonly onlyCode: Int32Array;
  private readonly onlyChild: Int32Array;
  /** Nodes with more children: a map each (at most one per string, so few), flagged in `branching`. */
  private readonly branches = new Map<number, Map<number, number>>();
  private readonly branching: Uint8Array;
  constructor(list: readonly string[]) {
    const capacity = 1 + list.reduce((n, s) => n + s.length, 0);
    this.fail = new Int32Array(capacity);
    this.longest = new Int32Array(capacity);
    this.onlyCode = new Int32Array(capacity).fill(NONE);
    this.onlyChild = new Int32Array(capacity).fill(NONE);
    this.branching = new Uint8Array(capacity);
    let nodes = 1;
    for (const s of list) {
      let node = ROOT;
      for (let i = 0; i < s.length; i++) {
        const code = s.charCodeAt(i);
        let child = this.child(node, code);
        if (child === NONE) {
          child = nodes++;
          this.addChild(node, code, child);
        }
        node = child;
      }
      this.longest[node] = s.length;
    }
    // Breadth first, so that a node's failure link (shallower) is complete before the node.
    const queue = new Int32Array(nodes);
    let tail = 0;
    for (const child of this.rootChild) if (child !== NONE) queue[tail++] = child;
    const link = (node: number, code: number, child: number) => {
      const fail = this.step(this.fail[node]!, code);
      this.fail[child] = fail;
      if (this.longest[child] === 0) this.longest[child] = this.longest[fail]!;
      queue[tail++] = child;
    };
    for (let head = 0; head < tail; head++) {
      const node = queue[head]!;
      if (this.onlyCode[node] !== NONE) link(node, this.onlyCode[node]!, this.onlyChild[node]!);
      const more = this.branching[node] === 1 ? this.branches.get(node) : undefined;
      if (more) for (const [code, child] of more) link(node, code, child);
    }
  }

  occursIn(text: string): boolean {
    let node = ROOT;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      if (this.longest[node]! > 0) return true;
    }
    return false;
  }

  replaceIn(text: string, replacement: string): string {
    // Spans [start, end) to replace, in order; each new one absorbs those it overlaps.
    const starts: number[] = [];
    const ends: number[] = [];
    let node = ROOT;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      const length = this.longest[node]!;
      if (length === 0) continue;
      let start = i + 1 - length;
      while (ends.length > 0 && ends[ends.length - 1]! > start) {
        start = Math.min(start, starts.pop()!);
        ends.pop();
      }
      starts.push(start);
      ends.push(i + 1);
    }
    if (starts.length === 0) return text;
    const parts: string[] = [];
    let at = 0;
    for (let k = 0; k < starts.length; k++) {
      parts.push(text.slice(at, starts[k]), replacement);
      at = ends[k]!;
    }
    parts.push(text.slice(at));
    return parts.join('');
  }

  /** The node after reading `code` at `node`, following failure links (amortised constant). */
  private step(node: number, code: number): number {
    while (node !== ROOT) {
      if (this.onlyCode[node] === code) return this.onlyChild[node]!;
      if (this.branching[node] === 1) {
        const child = this.branches.get(node)!.get(code);
        if (child !== undefined) return child;
      }
      node = this.fail[node]!;
    }
    const child = this.rootChild[code]!;
    return child === NONE ? ROOT : child;
  }

  private child(node: number, code: number): number {
    if (node === ROOT) return this.rootChild[code]!;
    if (this.onlyCode[node] === code) return this.onlyChild[node]!;
    return this.branching[node] === 1 ? (this.branches.get(node)!.get(code) ?? NONE) : NONE;
  }

  private addChild(node: number, code: number, child: number): void {
    if (node === ROOT) this.rootChild[code] = child;
    else if (this.onlyCode[node] === NONE) {
      this.onlyCode[node] = code;
      this.onlyChild[node] = child;
    } else {
      let more = this.branches.get(node);
      if (!more) {
        this.branches.set(node, (more = new Map()));
        this.branching[node] = 1;
      }
      more.set(code, child);
    }
  }
}
