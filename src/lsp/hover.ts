/**
 * @module Hover: a property's description, type, constraints and marks (in a type document, and in a
 * template's resource properties); a resource type's description; what a `Ref`/`GetAtt`/`DependsOn`
 * names; a keyword's meaning.
 */
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import type { ResourceType } from '../schema/index.js';
import { POINTER_LISTS } from './completion.js';
import type { OpenDocument } from './documents.js';
import { keywordDescription } from './keywords.js';
import { describeProperty, marksOf, propertyAt, pointerOf } from './properties.js';
import { member, nameSpan, nodeAt, pathOf, stringOf, valueOf, type SyntaxNode } from './syntax-tree.js';
import { declared, nameUses, resourceType } from './template-names.js';
import type { Workspace } from './workspace.js';

export async function hover(
  doc: OpenDocument,
  position: Position,
  workspace: Workspace,
): Promise<Hover | null> {
  const tree = doc.syntax();
  if (!tree || !doc.kind || doc.kind === 'other') return null;
  const offset = doc.text.offsetAt(position);
  const at = nodeAt(tree, offset);
  if (!at) return null;
  const { node, onKey } = at;
  const span = onKey ? nameSpan(node) : node;
  const range = {
    start: doc.text.positionAt(span.offset),
    end: doc.text.positionAt(span.offset + span.length),
  };
  const answer = (value: string | undefined): Hover | null =>
    value ? { contents: { kind: MarkupKind.Markdown, value }, range } : null;
  const path = pathOf(node);
  if (doc.kind === 'template') return answer(await templateHover(doc, node, onKey, path, offset, workspace));
  if (doc.kind === 'resource-schema') {
    const schema = valueOf(tree.root) as Record<string, unknown>;
    const marksFrom = typeMarks(schema);
    // A property's name under `properties`, or a pointer naming one.
    if (onKey && path.at(-2) === 'properties' && path.length === 2) {
      const property = propertyAt(schema, pointerOf([path[1]!]));
      if (property)
        return answer(describeProperty(path[1]!, property.schema, marksOf(marksFrom, [path[1]!])));
    }
    const pointer = stringOf(node);
    if (!onKey && pointer?.startsWith('/properties/') && POINTER_LISTS.has(path[0]!)) {
      const property = propertyAt(schema, pointer);
      const names = pointer.split('/').slice(2);
      if (property) return answer(describeProperty(pointer, property.schema, marksOf(marksFrom, names)));
    }
  }
  if (!onKey) return null;
  const kind = doc.kind === 'hook' ? undefined : doc.kind;
  return answer(kind ? keywordDescription(kind, path) : undefined);
}

/** The lists a resource schema document marks properties with, as a model has them. */
function typeMarks(schema: Record<string, unknown>) {
  const list = (key: string) =>
    (Array.isArray(schema[key])
      ? (schema[key] as unknown[]).filter((p) => typeof p === 'string')
      : []) as string[];
  return {
    schema,
    readOnlyProperties: list('readOnlyProperties'),
    writeOnlyProperties: list('writeOnlyProperties'),
    createOnlyProperties: list('createOnlyProperties'),
    primaryIdentifier: list('primaryIdentifier'),
  };
}

async function templateHover(
  doc: OpenDocument,
  node: SyntaxNode,
  onKey: boolean,
  path: string[],
  offset: number,
  workspace: Workspace,
): Promise<string | undefined> {
  const tree = doc.syntax();
  // A resource's type.
  if (!onKey && path[0] === 'Resources' && path[2] === 'Type' && path.length === 3) {
    const written = stringOf(node);
    const type = written ? await workspace.type(written.split('@')[0]!) : undefined;
    return type
      ? describeType(type)
      : written
        ? `**${written}**: not a type of the workspace or the server`
        : undefined;
  }
  // A property of a resource.
  if (onKey && path[0] === 'Resources' && path[2] === 'Properties' && path.length >= 4) {
    const typeName = resourceType(tree, path[1]!);
    const type = typeName ? await workspace.type(typeName.split('@')[0]!) : undefined;
    const names = path.slice(3).map((n) => (/^\d+$/.test(n) ? '*' : n));
    const property = type ? propertyAt(type.schema as Record<string, unknown>, pointerOf(names)) : undefined;
    if (type && property) return describeProperty(names.at(-1)!, property.schema, marksOf(type, names));
  }
  // A name a function or DependsOn uses.
  const use = nameUses(tree, doc.text.getText()).find(
    (u) => offset >= u.offset && offset <= u.offset + u.length,
  );
  if (use) {
    const section = {
      parameter: 'Parameters',
      resource: 'Resources',
      condition: 'Conditions',
      mapping: 'Mappings',
    } as const;
    const target = declared(tree, section[use.kind]).find((d) => d.key === use.name);
    if (!target) return undefined;
    const type = stringOf(member(target, 'Type'));
    const description = stringOf(member(target, 'Description'));
    return [
      `**${use.name}** (${use.kind}${type ? `, ${type}` : ''})`,
      ...(description ? ['', description] : []),
    ].join('\n');
  }
  return onKey ? keywordDescription('template', path) : undefined;
}

function describeType(type: ResourceType): string {
  const name = type.apiVersion ? `${type.typeName}@${type.apiVersion}` : type.typeName;
  const identifier =
    type.primaryIdentifier.length > 0 ? `\n\nIdentified by ${type.primaryIdentifier.join(', ')}.` : '';
  return `**${name}**\n\n${type.description}${identifier}`;
}
