/**
 * @module Go to definition and find references: a `$ref` to its definition, a property pointer to
 * the property, a `Ref`/`Fn::GetAtt`/`DependsOn`/condition/mapping name to its declaration, a
 * resource's `Type` to the workspace file defining it; and back, from a declaration to its uses.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Location, Position, Range } from 'vscode-languageserver';
import { POINTER_LISTS } from './completion.js';
import type { OpenDocument } from './documents.js';
import { propertyAt, encodeToken } from './properties.js';
import {
  member,
  nameSpan,
  nodeAt,
  nodeAtPath,
  pathOf,
  stringOf,
  valueOf,
  walk,
  type SyntaxNode,
} from './syntax-tree.js';
import { declared, nameUses, type NameKind, type NameUse } from './template-names.js';
import type { Workspace } from './workspace.js';

const SECTION = {
  parameter: 'Parameters',
  resource: 'Resources',
  condition: 'Conditions',
  mapping: 'Mappings',
} as const;

const KIND_OF_SECTION: Record<string, NameKind> = {
  Parameters: 'parameter',
  Resources: 'resource',
  Conditions: 'condition',
  Mappings: 'mapping',
};

function rangeOf(doc: OpenDocument, span: { offset: number; length: number }): Range {
  return { start: doc.text.positionAt(span.offset), end: doc.text.positionAt(span.offset + span.length) };
}

export function definition(doc: OpenDocument, position: Position, workspace: Workspace): Location[] {
  const tree = doc.syntax();
  if (!tree) return [];
  const offset = doc.text.offsetAt(position);
  const here = (span: { offset: number; length: number }): Location[] => [
    { uri: doc.text.uri, range: rangeOf(doc, span) },
  ];
  if (doc.kind === 'template') {
    const use = nameUses(tree, doc.text.getText()).find(
      (u) => offset >= u.offset && offset <= u.offset + u.length,
    );
    if (use) {
      const target = declared(tree, SECTION[use.kind]).find((d) => d.key === use.name);
      return target ? here(nameSpan(target)) : [];
    }
    const at = nodeAt(tree, offset);
    const path = at ? pathOf(at.node) : [];
    if (at && !at.onKey && path[0] === 'Resources' && path[2] === 'Type' && path.length === 3) {
      const typeName = stringOf(at.node)?.split('@')[0];
      return workspace.localVersions(typeName ?? '').map((t) => ({
        uri: pathToFileURL(join(workspace.root, t.file)).href,
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      }));
    }
    return [];
  }
  const at = nodeAt(tree, offset);
  if (!at || at.onKey) return [];
  const value = stringOf(at.node);
  if (value === undefined) return [];
  const path = pathOf(at.node);
  if (path.at(-1) === '$ref') {
    const match = /^#\/(definitions|\$defs)\/(.+)$/.exec(value);
    const target = match
      ? member(member(tree.root, match[1]!), match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'))
      : undefined;
    return target ? here(nameSpan(target)) : [];
  }
  if (doc.kind === 'resource-schema' && POINTER_LISTS.has(path[0]!) && value.startsWith('/properties/')) {
    const property = propertyAt(valueOf(tree.root) as Record<string, unknown>, value);
    const target = property ? nodeAtPath(tree, property.path) : undefined;
    return target ? here(nameSpan(target)) : [];
  }
  return [];
}

export function references(doc: OpenDocument, position: Position, includeDeclaration: boolean): Location[] {
  const tree = doc.syntax();
  if (!tree) return [];
  const offset = doc.text.offsetAt(position);
  const at = nodeAt(tree, offset);
  const located = (spans: { offset: number; length: number }[]) =>
    spans.map((span) => ({ uri: doc.text.uri, range: rangeOf(doc, span) }));
  if (doc.kind === 'template') {
    const uses = nameUses(tree, doc.text.getText());
    let wanted: Pick<NameUse, 'kind' | 'name'> | undefined = uses.find(
      (u) => offset >= u.offset && offset <= u.offset + u.length,
    );
    // On a declaration's own name.
    const section = at?.onKey ? at.node.parent : undefined;
    if (!wanted && section && section.parent === tree.root) {
      const kind = KIND_OF_SECTION[section.key ?? ''];
      if (kind) wanted = { kind, name: at!.node.key! };
    }
    if (!wanted) return [];
    const found = uses.filter((u) => u.kind === wanted.kind && u.name === wanted.name);
    const declaration = declared(tree, SECTION[wanted.kind]).find((d) => d.key === wanted.name);
    return located([...(includeDeclaration && declaration ? [nameSpan(declaration)] : []), ...found]);
  }
  if (!at?.onKey) return [];
  const path = pathOf(at.node);
  const spans: { offset: number; length: number }[] = includeDeclaration ? [nameSpan(at.node)] : [];
  // A definition: the `$ref`s to it.
  if (path.length === 2 && (path[0] === 'definitions' || path[0] === '$defs')) {
    const target = `#/${path[0]}/${encodeToken(path[1]!)}`;
    for (const node of walk(tree.root))
      if (node.key === '$ref' && stringOf(node) === target) spans.push(valueSpan(doc, node));
    return located(spans);
  }
  // A property (nested through `properties`): the pointers naming it.
  if (
    path[0] === 'properties' &&
    path.length % 2 === 0 &&
    path.every((p, i) => i % 2 === 1 || p === 'properties')
  ) {
    const pointer = `/properties/${path
      .filter((_, i) => i % 2 === 1)
      .map(encodeToken)
      .join('/')}`;
    for (const node of walk(tree.root)) {
      const p = node.parent ? pathOf(node) : [];
      if (POINTER_LISTS.has(p[0]!) && stringOf(node) === pointer) spans.push(valueSpan(doc, node));
    }
    return located(spans);
  }
  return [];
}

/** A scalar's span without its quotes. */
function valueSpan(doc: OpenDocument, node: SyntaxNode): { offset: number; length: number } {
  const text = doc.text.getText();
  const quoted = text[node.offset] === '"' || text[node.offset] === "'";
  return quoted ? { offset: node.offset + 1, length: node.length - 2 } : node;
}
