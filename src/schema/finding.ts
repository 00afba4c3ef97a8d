/**
 * @module Findings: diagnostics before they are placed in the source text.
 */
import type { Diagnostic } from './diagnostics.js';
import type { SourceDocument } from './source.js';

/** A diagnostic plus whether it points at a member's name (`'key'`) rather than its value. */
export type Finding = Diagnostic & { target?: 'key' };

/** Attach file, line and column to each finding; the result is in reading order. */
export function placeFindings(findings: readonly Finding[], document: SourceDocument): Diagnostic[] {
  const placed = findings.map(({ target, ...d }) => {
    const position = document.locate(d.pointer, target);
    const placed: Diagnostic = { ...d };
    if (document.file !== undefined) placed.file = document.file;
    if (position) {
      placed.line = position.line;
      placed.column = position.column;
    }
    return placed;
  });
  return placed.sort(inReadingOrder);
}

/** Orders diagnostics by line, then column (a stable sort keeps the checks' order within a spot). */
export function inReadingOrder(a: Diagnostic, b: Diagnostic): number {
  return (a.line ?? 1) - (b.line ?? 1) || (a.column ?? 1) - (b.column ?? 1);
}
