/**
 * @module Where the cursor is in a JSON or YAML document being typed: the path of member names and
 * item indexes to it, whether a member's name or a value is being written, and the text a completion
 * replaces. Read from the text itself (jsonc-parser's scanner for JSON, the lines' indentation for
 * YAML), so it holds in the half-written documents an editor asks about.
 */
import { getLocation } from 'jsonc-parser';

export interface Cursor {
  path: (string | number)[];
  /** A member's name is being written (the path's last element is that name, maybe partial). */
  atKey: boolean;
  /** The text a completion replaces: the word (or JSON string) under the cursor. */
  start: number;
  end: number;
  /** The line up to the cursor. */
  linePrefix: string;
}

export function cursorAt(text: string, offset: number, format: 'json' | 'yaml'): Cursor {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const linePrefix = text.slice(lineStart, offset);
  return format === 'json'
    ? jsonCursor(text, offset, linePrefix)
    : yamlCursor(text, offset, lineStart, linePrefix);
}

function jsonCursor(text: string, offset: number, linePrefix: string): Cursor {
  const location = getLocation(text, offset);
  const node = location.previousNode;
  const inNode = node && offset >= node.offset && offset <= node.offset + node.length;
  const start = inNode ? node.offset : offset;
  const end = inNode ? node.offset + node.length : offset;
  return { path: [...location.path], atKey: location.isAtPropertyKey, start, end, linePrefix };
}

const WORD = /[^\s:,[\]{}'"!]*$/;

function yamlCursor(text: string, offset: number, lineStart: number, linePrefix: string): Cursor {
  const lineEnd = text.indexOf('\n', offset);
  const rest = text.slice(offset, lineEnd < 0 ? text.length : lineEnd);
  const wordBefore = WORD.exec(linePrefix)![0];
  const wordAfter = /^[^\s:,[\]{}'"]*/.exec(rest)![0];
  const start = offset - wordBefore.length;
  const end = offset + wordAfter.length;
  // The line's own structure: `- ` items, then `key: value` or a name being written.
  const { markers: items, column, content } = lineStructure(linePrefix);
  const path = parentPath(text, lineStart, column, items);
  const member = MEMBER.exec(content);
  if (member) {
    path.push(unquote(member[1]!));
    return { path, atKey: false, start, end, linePrefix };
  }
  if (/^[^\s:[{'"!]*$/.test(content)) {
    path.push(content);
    return { path, atKey: true, start, end, linePrefix };
  }
  return { path, atKey: false, start, end, linePrefix };
}

/** `name:` at the start of a line's content (quoted or plain). */
const MEMBER = /^("[^"]*"|'[^']*'|[^\s#'"][^:#]*?)\s*:(\s|$)/;

/** A line's `- ` item markers (their columns), and where its content starts past them. */
function lineStructure(line: string): { markers: number[]; column: number; content: string } {
  let column = line.length - line.trimStart().length;
  let content = line.slice(column);
  const markers: number[] = [];
  while (/^-(\s|$)/.test(content)) {
    const marker = /^-\s*/.exec(content)![0];
    markers.push(column);
    column += marker.length;
    content = content.slice(marker.length);
  }
  return { markers, column, content };
}

const unquote = (s: string) => (/^(".*"|'.*')$/.test(s) ? s.slice(1, -1) : s);

/** Bound on the lines read upwards for a path. */
const MAX_LINES_UP = 5_000;

/**
 * The path to the mapping (or list) that holds what starts at `column` on the line at `lineStart`:
 * each line above with less indentation that opens a member (`name:`) or an item (`- `) is a step.
 */
function parentPath(
  text: string,
  lineStart: number,
  column: number,
  ownItems: number[],
): (string | number)[] {
  const steps: (string | number)[] = [];
  // The line's own `- ` markers: the items it opens, each the first (or a later) of its list.
  for (const at of ownItems.reverse()) steps.unshift(itemIndex(text, lineStart, at));
  let indent = ownItems.length > 0 ? Math.min(...ownItems) : column;
  let end = lineStart - 1;
  for (let read = 0; end > 0 && indent > 0 && read < MAX_LINES_UP; read++) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    end = start - 1;
    const lineIndent = line.length - line.trimStart().length;
    const content = line.trim();
    if (content === '' || content.startsWith('#') || lineIndent >= indent) continue;
    // `- name: value` opens an item whose members are indented past the marker.
    const { markers, column: at, content: rest } = lineStructure(line);
    const member = MEMBER.exec(rest);
    if (member && at < indent) steps.unshift(unquote(member[1]!));
    for (const marker of markers.reverse())
      if (marker < indent) steps.unshift(itemIndex(text, start, marker));
    indent = lineIndent;
  }
  return steps;
}

/** Which item of its list the `- ` at `column` of the line at `lineStart` opens. */
function itemIndex(text: string, lineStart: number, column: number): number {
  let index = 0;
  let end = lineStart - 1;
  for (let read = 0; end > 0 && read < MAX_LINES_UP; read++) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    end = start - 1;
    const lineIndent = line.length - line.trimStart().length;
    if (line.trim() === '' || line.trim().startsWith('#') || lineIndent > column) continue;
    if (lineIndent < column) break;
    if (/^-(\s|$)/.test(line.slice(lineIndent))) index++;
    else break;
  }
  return index;
}
