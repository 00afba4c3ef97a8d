/**
 * @module The outline: a template's sections and what each declares; a resource schema's type name,
 * properties (nested), definitions and handlers; a manifest's types and their API versions.
 */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import type { OpenDocument } from './documents.js';
import { typeLabel } from './properties.js';
import { member, nameSpan, stringOf, valueOf, type SyntaxNode } from './syntax-tree.js';

/** A property's type as the outline shows it; a half-written one (no schema yet) has none. */
function label(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? typeLabel(value as Record<string, unknown>)
    : undefined;
}

/** Bounds on the outline: this deep, this many symbols. */
const MAX_DEPTH = 6;
const MAX_SYMBOLS = 5_000;

const TEMPLATE_KINDS: Record<string, SymbolKind> = {
  Parameters: SymbolKind.Variable,
  Resources: SymbolKind.Class,
  Conditions: SymbolKind.Boolean,
  Mappings: SymbolKind.Module,
  Outputs: SymbolKind.Property,
  Rules: SymbolKind.Event,
};

export function documentSymbols(doc: OpenDocument): DocumentSymbol[] {
  const tree = doc.syntax();
  if (!tree?.root || tree.root.type !== 'object' || !doc.kind || doc.kind === 'other') return [];
  let count = 0;
  const symbol = (
    node: SyntaxNode,
    kind: SymbolKind,
    detail?: string,
    children: DocumentSymbol[] = [],
  ): DocumentSymbol => {
    count++;
    const name = nameSpan(node);
    const whole =
      node.keyOffset !== undefined
        ? { offset: node.keyOffset, length: node.offset + node.length - node.keyOffset }
        : node;
    const range = (s: { offset: number; length: number }) => ({
      start: doc.text.positionAt(s.offset),
      end: doc.text.positionAt(s.offset + Math.max(s.length, 0)),
    });
    return {
      name: node.key ?? '(item)',
      kind,
      range: range(whole),
      selectionRange: range(name),
      ...(detail ? { detail } : {}),
      children,
    };
  };
  const members = (node: SyntaxNode | undefined) =>
    node?.type === 'object' ? node.children.filter((c) => c.key !== undefined) : [];
  if (doc.kind === 'template') {
    return members(tree.root).map((section) => {
      const kind = TEMPLATE_KINDS[section.key!];
      const children = kind
        ? members(section).map((m) =>
            symbol(m, kind, stringOf(member(m, 'Type')) ?? stringOf(member(m, 'Description'))),
          )
        : [];
      return symbol(section, SymbolKind.Namespace, undefined, children);
    });
  }
  const properties = (node: SyntaxNode | undefined, depth: number): DocumentSymbol[] =>
    depth > MAX_DEPTH || count > MAX_SYMBOLS
      ? []
      : members(node).map((p) => {
          const nested = member(p, 'properties') ?? member(member(p, 'items'), 'properties');
          return symbol(p, SymbolKind.Property, label(valueOf(p)), properties(nested, depth + 1));
        });
  if (doc.kind === 'manifest') {
    return members(tree.root).map((section) => {
      if (section.key !== 'types') return symbol(section, SymbolKind.Field, stringOf(section));
      return symbol(
        section,
        SymbolKind.Namespace,
        undefined,
        members(section).map((type) =>
          symbol(
            type,
            SymbolKind.Class,
            stringOf(member(type, 'description')),
            members(member(type, 'apiVersions')).map((version) =>
              symbol(
                version,
                SymbolKind.Namespace,
                undefined,
                properties(member(member(version, 'schema'), 'properties'), 1),
              ),
            ),
          ),
        ),
      );
    });
  }
  return members(tree.root).map((section) => {
    switch (section.key) {
      case 'properties':
        return symbol(section, SymbolKind.Namespace, undefined, properties(section, 1));
      case 'definitions':
        return symbol(
          section,
          SymbolKind.Namespace,
          undefined,
          members(section).map((d) =>
            symbol(d, SymbolKind.Struct, undefined, properties(member(d, 'properties'), 2)),
          ),
        );
      case 'handlers':
        return symbol(
          section,
          SymbolKind.Namespace,
          undefined,
          members(section).map((h) => symbol(h, SymbolKind.Method)),
        );
      default:
        return symbol(section, SymbolKind.Field, stringOf(section));
    }
  });
}
