/**
 * @module The validators' findings as an editor's diagnostics: each at the range of what it is about
 * (the member's name, the scalar, or the rest of the line where a mapping starts), with its rule id
 * as the code and its JSON pointer kept for the quick fixes.
 */
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Change } from '../diff/index.js';
import type { Diagnostic } from '../schema/index.js';
import { createScanner, SyntaxKind } from 'jsonc-parser';

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
  format: 'json' | 'yaml',
): LspDiagnostic[] {
  if (diagnostics.length === 0 && changes.length === 0) return [];
  const made: LspDiagnostic[] = diagnostics.map((d) => ({
    range: rangeAt(document, d.line ?? 1, d.column ?? 1, format),
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.rule,
    source: SOURCE,
    message: d.message,
    data: { pointer: d.pointer } satisfies DiagnosticData,
  }));
  for (const c of changes)
    made.push({
      range: rangeAt(document, c.line ?? 1, c.column ?? 1, format),
      severity: VERDICT_SEVERITY[c.verdict],
      code: c.rule,
      source: SOURCE,
      message: `${c.verdict} change since ${baseline}: ${c.apiVersion ? `${c.typeName}@${c.apiVersion}` : c.typeName} ${c.message}`,
      data: { pointer: c.pointer },
    });
  return made;
}

type Span = { offset: number; length: number };

/**
 * The span of the token starting at `offset`: a JSON string or literal (jsonc-parser's scanner), a
 * quoted YAML scalar, or a plain one up to its end (`: `, ` #`, a flow indicator or the line's end).
 * Read from the text alone: a keystroke's check builds no tree for it.
 */
export function tokenAt(text: string, offset: number, format: 'json' | 'yaml'): Span | undefined {
  const first = text[offset];
  if (first === undefined || first === '\n') return undefined;
  if (format === 'json') {
    const scanner = createScanner(text, true);
    scanner.setPosition(offset);
    const kind = scanner.scan();
    const token = scanner.getTokenLength();
    return kind === SyntaxKind.OpenBraceToken || kind === SyntaxKind.OpenBracketToken || token === 0
      ? undefined
      : { offset, length: token };
  }
  if (first === '"' || first === "'") {
    for (let i = offset + 1; i < text.length && text[i] !== '\n'; i++) {
      if (first === '"' && text[i] === '\\') i++;
      else if (text[i] === first) {
        if (first === "'" && text[i + 1] === "'") i++;
        else return { offset, length: i + 1 - offset };
      }
    }
    return undefined;
  }
  if ('{[|>-'.includes(first)) return undefined;
  const end = /(:\s|:$| #|[,\]}]|\n|$)/m.exec(text.slice(offset, offset + 4096));
  const length = end ? end.index : 0;
  const trimmed = text.slice(offset, offset + length).trimEnd().length;
  return trimmed > 0 ? { offset, length: trimmed } : undefined;
}

/** The range of what starts at a 1-based line and column. */
export function rangeAt(
  document: TextDocument,
  line: number,
  column: number,
  format: 'json' | 'yaml',
): Range {
  const text = document.getText();
  const start = document.offsetAt({ line: line - 1, character: column - 1 });
  const span = tokenAt(text, start, format) ?? restOfLine(text, start);
  return { start: document.positionAt(span.offset), end: document.positionAt(span.offset + span.length) };
}

/** From `offset` to the end of its line, trailing blanks left out; at least one character. */
function restOfLine(text: string, offset: number): Span {
  let end = text.indexOf('\n', offset);
  if (end < 0) end = text.length;
  while (end > offset && /\s/.test(text[end - 1]!)) end--;
  return { offset, length: Math.max(end - offset, Math.min(1, text.length - offset)) };
}
