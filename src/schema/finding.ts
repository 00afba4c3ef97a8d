/**
 * @module Findings: diagnostics before they are placed in the source text.
 */
import type { Diagnostic } from './diagnostics.js';
import type { SourceDocument } from './source.js';

/**
 * A diagnostic plus whether it points at a member's name (`'key'`) rather than its value, or at a
 * place inside the value's text (`within`: a line and column of an expression string, e.g. a CEL rule).
 */
export type Finding = Diagnostic & {
  target?: 'key';
  within?: { line: number; column: number; text: string };
};

/** Attach file, line and column to each finding; the result is in reading order. */
export function placeFindings(findings: readonly Finding[], document: SourceDocument): Diagnostic[] {
  const placed = findings.map(({ target, within, ...d }) => {
    const position = document.locate(d.pointer, target);
    const placed: Diagnostic = { ...d };
    if (document.file !== undefined) placed.file = document.file;
    if (position) {
      const inside = within ? placeWithin(document.text, position, within) : undefined;
      placed.line = inside?.line ?? position.line;
      placed.column = inside?.column ?? position.column;
    }
    return placed;
  });
  return placed.sort(inReadingOrder);
}

/** Orders diagnostics by line, then column (a stable sort keeps the checks' order within a spot). */
export function inReadingOrder(a: Diagnostic, b: Diagnostic): number {
  return (a.line ?? 1) - (b.line ?? 1) || (a.column ?? 1) - (b.column ?? 1);
}

/**
 * Where a line and column of a string value's text are in the document, when the text stands there
 * as written: a JSON or quoted YAML string without escapes before that column, a plain scalar, or a
 * block scalar (`|`) whose lines follow, indented. Otherwise undefined (the value's start is used).
 */
function placeWithin(
  documentText: string,
  value: { line: number; column: number },
  within: { line: number; column: number; text: string },
): { line: number; column: number } | undefined {
  const lines = documentText.split('\n', value.line + within.line + 1);
  const first = lines[value.line - 1];
  if (first === undefined) return undefined;
  const start = value.column - 1;
  const opener = first[start];
  const wanted = within.text.split('\n')[within.line - 1] ?? '';
  const prefix = wanted.slice(0, within.column - 1);
  if (opener === '|' || opener === '>') {
    const line = lines[value.line - 1 + within.line];
    const at = line?.indexOf(wanted);
    return line !== undefined && at !== undefined && at >= 0
      ? { line: value.line + within.line, column: at + within.column }
      : undefined;
  }
  if (within.line !== 1) return undefined;
  const quoted = opener === '"' || opener === "'" ? 1 : 0;
  return first.startsWith(prefix, start + quoted)
    ? { line: value.line, column: value.column + quoted + within.column - 1 }
    : undefined;
}
