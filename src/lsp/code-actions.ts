/**
 * @module Quick fixes for the findings whose fix is mechanical: a message that ends "did you mean
 * 'X'?" replaces the mistyped name it quotes, where the finding is, with X.
 */
import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver';
import type { OpenDocument } from './documents.js';
import { SOURCE } from './diagnostics.js';

const SUGGESTION = /did you mean '?([^'?\s]+)'?\?/;

/** The names a message quotes before its suggestion (one of them is what is written wrong). */
function quoted(message: string): string[] {
  const before = message.slice(0, message.search(SUGGESTION));
  const names = [...before.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
  const type = /type (\S+) is not registered/.exec(before);
  if (type) names.push(type[1]!);
  return names;
}

export function codeActions(doc: OpenDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const text = doc.text.getText();
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== SOURCE) continue;
    const suggestion = SUGGESTION.exec(diagnostic.message)?.[1];
    if (!suggestion) continue;
    // Look in the finding's range, then in the rest of its line.
    const start = doc.text.offsetAt(diagnostic.range.start);
    const lineEnd = text.indexOf('\n', start);
    const end = Math.max(doc.text.offsetAt(diagnostic.range.end), lineEnd < 0 ? text.length : lineEnd);
    const region = text.slice(start, end);
    for (const wrong of quoted(diagnostic.message)) {
      const at = wordIndex(region, wrong);
      if (at < 0 || wrong === suggestion) continue;
      actions.push({
        title: `Change '${wrong}' to '${suggestion}'`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: {
          changes: {
            [doc.text.uri]: [
              {
                range: {
                  start: doc.text.positionAt(start + at),
                  end: doc.text.positionAt(start + at + wrong.length),
                },
                newText: suggestion,
              },
            ],
          },
        },
      });
      break;
    }
  }
  return actions;
}

/** Where `word` stands on its own in `text` (not inside a longer name). */
function wordIndex(text: string, word: string): number {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = text[at - 1];
    const after = text[at + word.length];
    if (!(before && /[\w:@]/.test(before)) && !(after && /[\w:@]/.test(after))) return at;
  }
  return -1;
}
