/**
 * @module The validators' findings as an editor's diagnostics: each at the range of what it is about
 * (the member's name, the scalar, or the rest of the line where a mapping starts), with its rule id
 * as the code and its JSON pointer kept for the quick fixes.
 */
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Change } from '../diff/index.js';
import type { Diagnostic } from '../schema/index.js';
import { walk, type SyntaxTree } from './syntax-tree.js';

export const SOURCE = 'typeplane';

/** What a diagnostic carries for code actions. */
export interface DiagnosticData {
  pointer: string;
}

/** How the lens shows each verdict: a breaking change as a warning, the others quieter. */
const VERDICT_SEVERITY = {
  breaking: DiagnosticSeverity.Warning,
  dangerous: DiagnosticSeverity.Information,
  safe: DiagnosticSeverity.Hint,
} as const;

export function toLspDiagnostics(
  diagnostics: readonly Diagnostic[],
  changes: readonly Change[],
  baseline: string,
  document: TextDocument,
  tree: () => SyntaxTree | undefined,
): LspDiagnostic[] {
  if (diagnostics.length === 0 && changes.length === 0) return [];
  const spans = spansOf(tree());
  const made: LspDiagnostic[] = diagnostics.map((d) => ({
    range: rangeAt(document, d.line ?? 1, d.column ?? 1, spans),
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.rule,
    source: SOURCE,
    message: d.message,
    data: { pointer: d.pointer } satisfies DiagnosticData,
  }));
  for (const c of changes)
    made.push({
      range: rangeAt(document, c.line ?? 1, c.column ?? 1, spans),
      severity: VERDICT_SEVERITY[c.verdict],
      code: c.rule,
      source: SOURCE,
      message: `${c.verdict} change since ${baseline}: ${c.apiVersion ? `${c.typeName}@${c.apiVersion}` : c.typeName} ${c.message}`,
      data: { pointer: c.pointer },
    });
  return made;
}

type Span = { offset: number; length: number };

/** Where each name and scalar starts, and its length. */
export function spansOf(tree: SyntaxTree | undefined): Map<number, Span> {
  const spans = new Map<number, Span>();
  for (const node of walk(tree?.root)) {
    if (node.keyOffset !== undefined)
      spans.set(node.keyOffset, { offset: node.keyOffset, length: node.keyLength ?? 0 });
    if (node.type !== 'object' && node.type !== 'array' && node.length > 0 && !spans.has(node.offset))
      spans.set(node.offset, { offset: node.offset, length: node.length });
  }
  return spans;
}

/** The range of what starts at a 1-based line and column. */
export function rangeAt(
  document: TextDocument,
  line: number,
  column: number,
  spans: Map<number, Span>,
): Range {
  const start = document.offsetAt({ line: line - 1, character: column - 1 });
  const span = spans.get(start) ?? restOfLine(document.getText(), start);
  return { start: document.positionAt(span.offset), end: document.positionAt(span.offset + span.length) };
}

/** From `offset` to the end of its line, trailing blanks left out; at least one character. */
function restOfLine(text: string, offset: number): Span {
  let end = text.indexOf('\n', offset);
  if (end < 0) end = text.length;
  while (end > offset && /\s/.test(text[end - 1]!)) end--;
  return { offset, length: Math.max(end - offset, Math.min(1, text.length - offset)) };
}
