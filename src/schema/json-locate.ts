/**
 * @module Where a JSON pointer's value (or member name) starts in JSON text that `JSON.parse` has
 * already accepted.
 *
 * Only the containers on the pointers asked about are read, each once, its members' offsets kept.
 * The text is scanned once, on the first pointer, for where each container ends; a container on the
 * way is then stepped over at once rather than read again (a pointer three levels deep read most of
 * the document three times). A document with no diagnostic costs nothing.
 */

/** The offsets a pointer leads to: its value, and its member name when the last step is one. */
export interface JsonOffsets {
  value: number;
  key?: number;
}

interface Member {
  value: number;
  key?: number;
}

const INDEX = /^(0|[1-9]\d*)$/;

/**
 * A locator over `text`, valid JSON; its answers are those of a full syntax tree (last duplicate wins).
 * `onLineStarts` is given where each line starts (0 first) when the text is scanned, so that whoever
 * turns offsets into lines need not look for the line breaks again.
 */
export function jsonLocator(
  text: string,
  onLineStarts?: (starts: number[]) => void,
): (tokens: readonly string[]) => JsonOffsets {
  const containers = new Map<number, Map<string, Member> | number[]>();
  let ends: Map<number, number> | undefined;
  const scan = (): Map<number, number> => {
    const lineStarts = [0];
    const found = containerEnds(text, lineStarts);
    onLineStarts?.(lineStarts);
    return found;
  };
  const membersAt = (offset: number): Map<string, Member> | number[] => {
    let members = containers.get(offset);
    if (!members) containers.set(offset, (members = readContainer(text, offset, (ends ??= scan()))));
    return members;
  };
  const root = skipSpace(text, 0);
  return (tokens) => {
    let at = root;
    let key: number | undefined;
    for (const token of tokens) {
      const c = text.charCodeAt(at);
      if (c !== 0x7b && c !== 0x5b) return { value: at };
      const members = membersAt(at);
      const next = Array.isArray(members)
        ? INDEX.test(token)
          ? members[Number(token)]
          : undefined
        : members.get(token);
      if (next === undefined) return { value: at };
      if (typeof next === 'number') {
        at = next;
        key = undefined;
      } else {
        at = next.value;
        key = next.key;
      }
    }
    return key === undefined ? { value: at } : { value: at, key };
  };
}

/**
 * Where each object and array of the text ends (the offset after it), by where it starts; and where
 * each line starts. JSON strings hold no raw line break, so the scan, which steps over strings, meets
 * every one.
 */
function containerEnds(text: string, lineStarts: number[]): Map<number, number> {
  const ends = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // White space first: most of what lies outside strings is indentation.
    if (c <= 0x20) {
      if (c === 0x0a) lineStarts.push(i + 1);
      continue;
    }
    if (c === 0x22) {
      i = skipString(text, i) - 1;
      continue;
    }
    // `[` and `{` differ by one bit (0x5b, 0x7b), as `]` and `}` do (0x5d, 0x7d).
    const bracket = c | 0x20;
    if (bracket === 0x7b) open.push(i);
    else if (bracket === 0x7d) ends.set(open.pop()!, i + 1);
  }
  return ends;
}

/** The members of the object (by name) or the items of the array starting at `offset`. */
function readContainer(
  text: string,
  offset: number,
  ends: ReadonlyMap<number, number>,
): Map<string, Member> | number[] {
  const isObject = text.charCodeAt(offset) === 0x7b;
  const close = isObject ? 0x7d : 0x5d;
  const members = new Map<string, Member>();
  const items: number[] = [];
  let i = skipSpace(text, offset + 1);
  while (text.charCodeAt(i) !== close) {
    if (isObject) {
      const keyEnd = skipString(text, i);
      const raw = text.slice(i + 1, keyEnd - 1);
      const name = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
      const value = skipSpace(text, skipSpace(text, keyEnd) + 1);
      // A later duplicate replaces an earlier one, as in the parsed value.
      members.set(name, { value, key: i });
      i = value;
    } else {
      items.push(i);
    }
    i = skipSpace(text, skipValue(text, i, ends));
    if (text.charCodeAt(i) === 0x2c) i = skipSpace(text, i + 1);
  }
  return isObject ? members : items;
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** `i` at an opening quote; the offset after the closing one (the first quote after an even run of backslashes). */
function skipString(text: string, i: number): number {
  for (let quote = text.indexOf('"', i + 1); ; quote = text.indexOf('"', quote + 1)) {
    let backslash = quote - 1;
    while (text.charCodeAt(backslash) === 0x5c) backslash--;
    if ((quote - backslash) % 2 === 1) return quote + 1;
  }
}

/** `i` at a value; the offset after it. */
function skipValue(text: string, i: number, ends: ReadonlyMap<number, number>): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) return ends.get(i)!;
  // A number, true, false or null.
  for (;;) {
    const d = text.charCodeAt(i);
    if (
      d === 0x2c ||
      d === 0x7d ||
      d === 0x5d ||
      d === 0x20 ||
      d === 0x0a ||
      d === 0x0d ||
      d === 0x09 ||
      Number.isNaN(d)
    )
      return i;
    i++;
  }
}
