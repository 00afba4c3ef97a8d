/**
 * @module The documents open in the editor: their text (kept in step with the editor's incremental
 * changes by vscode-languageserver's TextDocuments), what each was last recognised as, and its syntax
 * tree, built once per version and only for a text within the validators' bounds.
 */
import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { detectFormat, LIMITS, type Diagnostic } from '../schema/index.js';
import type { DocumentKind } from './recognition.js';
import { syntaxTree, type SyntaxTree } from './syntax-tree.js';

/**
 * Whether a finding says the validators refused to read the text whole (too large, too deep, too
 * many values or tokens): such a text gets no syntax tree either, so completion and the rest cost
 * nothing.
 */
const refusal = (d: Pick<Diagnostic, 'rule' | 'message'>) =>
  d.rule === 'TP1004' || d.rule === 'TP1007' || (d.rule === 'TP4001' && /over the .* limit/.test(d.message));

export class OpenDocument {
  /** What the last check found it is (undefined before the first). */
  kind: DocumentKind | undefined;
  /** The text was refused by a bound (or not checked yet): nothing more is read from it. */
  refused = true;
  private tree: { version: number; tree: SyntaxTree | undefined } | undefined;

  constructor(public text: TextDocument) {}

  /** The file's path, when the document is a file. */
  get path(): string | undefined {
    return this.text.uri.startsWith('file:') ? fileURLToPath(this.text.uri) : undefined;
  }

  get format(): 'json' | 'yaml' {
    return detectFormat(this.path ?? this.text.uri, this.text.getText());
  }

  /** Note what the last check found, for the features that read the tree. */
  checked(kind: DocumentKind, diagnostics: readonly Diagnostic[]): void {
    this.kind = kind;
    this.refused = diagnostics.some(refusal);
  }

  syntax(): SyntaxTree | undefined {
    if (this.tree?.version === this.text.version) return this.tree.tree;
    const text = this.text.getText();
    const tree =
      this.refused || Buffer.byteLength(text) > LIMITS.maxBytes ? undefined : syntaxTree(text, this.format);
    this.tree = { version: this.text.version, tree };
    return tree;
  }
}
