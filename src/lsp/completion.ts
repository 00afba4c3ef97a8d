/**
 * @module Completion: in type documents, their keywords and values (from the editor schemas) and the
 * pointers of the properties that exist; in templates, resource types (the workspace's and the
 * server's), their properties with descriptions and required marks, and the names `Ref`, `Fn::GetAtt`,
 * `DependsOn`, conditions and `Fn::FindInMap` may take.
 */
import {
  CompletionItemKind,
  MarkupKind,
  type CompletionItem,
  type Position,
  type Range,
} from 'vscode-languageserver';
import { cursorAt, type Cursor } from './cursor.js';
import type { OpenDocument } from './documents.js';
import { keywordsAt, valuesAt, type SchemaKind } from './keywords.js';
import { describeProperty, listProperties, marksOf, pointerOf, propertyAt, typeLabel } from './properties.js';
import { member, nodeAtPath, stringOf, valueOf, type SyntaxTree } from './syntax-tree.js';
import { PSEUDO_NAMES, declared, resourceType } from './template-names.js';
import type { Workspace } from './workspace.js';

/** Type-level lists whose items are property pointers. */
export const POINTER_LISTS = new Set([
  'primaryIdentifier',
  'additionalIdentifiers',
  'readOnlyProperties',
  'writeOnlyProperties',
  'createOnlyProperties',
  'conditionalCreateOnlyProperties',
  'deprecatedProperties',
  'nonPublicProperties',
]);

/** A template parameter's keys (CloudFormation's), and its types. */
const PARAMETER_KEYS = [
  'Type',
  'Default',
  'Description',
  'AllowedValues',
  'AllowedPattern',
  'ConstraintDescription',
  'NoEcho',
  'MinLength',
  'MaxLength',
  'MinValue',
  'MaxValue',
];
const PARAMETER_TYPES = ['String', 'Number', 'CommaDelimitedList', 'List<Number>'];

/** Bound on the items one completion answers with. */
const MAX_ITEMS = 1_000;

interface Context {
  doc: OpenDocument;
  cursor: Cursor;
  range: Range;
  tree: SyntaxTree | undefined;
  json: boolean;
}

export async function complete(
  doc: OpenDocument,
  position: Position,
  workspace: Workspace,
): Promise<CompletionItem[]> {
  if (!doc.kind || doc.kind === 'other' || doc.kind === 'hook') return [];
  const tree = doc.syntax();
  if (!tree && doc.refused) return [];
  const text = doc.text.getText();
  const format = doc.format;
  const cursor = cursorAt(text, doc.text.offsetAt(position), format);
  const range = { start: doc.text.positionAt(cursor.start), end: doc.text.positionAt(cursor.end) };
  const context: Context = { doc, cursor, range, tree, json: format === 'json' };
  const items =
    doc.kind === 'template'
      ? await completeTemplate(context, workspace)
      : completeTypeDocument(context, doc.kind);
  return items.slice(0, MAX_ITEMS);
}

/** An item that replaces the word under the cursor, written as JSON or YAML wants it. */
function item(
  context: Context,
  label: string,
  kind: CompletionItemKind,
  extra: {
    detail?: string;
    documentation?: string;
    sortText?: string;
    asKey?: boolean;
    value?: unknown;
  } = {},
): CompletionItem {
  const value = extra.value ?? label;
  let insert: string;
  if (context.json) insert = JSON.stringify(value);
  else if (typeof value !== 'string') insert = JSON.stringify(value);
  else
    insert =
      /^[\w./:@<>-]+$/.test(value) && !/^[-?:,[\]{}#&*!|>'"%@`]/.test(value)
        ? value
        : `'${value.replace(/'/g, "''")}'`;
  if (extra.asKey && !context.json && !/^\s*:/.test(context.doc.text.getText().slice(context.cursor.end)))
    insert += ': ';
  return {
    label,
    kind,
    ...(extra.detail ? { detail: extra.detail } : {}),
    ...(extra.documentation
      ? { documentation: { kind: MarkupKind.Markdown, value: extra.documentation } }
      : {}),
    ...(extra.sortText ? { sortText: extra.sortText } : {}),
    filterText: context.json ? JSON.stringify(label) : label,
    textEdit: { range: context.range, newText: insert },
  };
}

// Type documents ---------------------------------------------------------------------------------

function completeTypeDocument(context: Context, kind: SchemaKind): CompletionItem[] {
  const { cursor, tree } = context;
  const path = cursor.path;
  const [top] = path;
  if (!cursor.atKey && typeof top === 'string' && POINTER_LISTS.has(top) && kind === 'resource-schema') {
    const schema = valueOf(tree?.root) as Record<string, unknown>;
    return listProperties(schema ?? {}).map((p) =>
      item(context, pointerOf(p.names), CompletionItemKind.Reference, {
        detail: typeLabel(p.schema),
        ...(typeof p.schema.description === 'string' ? { documentation: p.schema.description } : {}),
      }),
    );
  }
  if (!cursor.atKey && path.at(-1) === '$ref' && kind === 'resource-schema') {
    const definitions = member(tree?.root, 'definitions');
    const local = (definitions?.children ?? []).map((d) =>
      item(context, `#/definitions/${d.key!}`, CompletionItemKind.Reference),
    );
    return [...local, ...values(context, kind, path)];
  }
  // `required` lists the names of the object's own properties.
  const parentPath = path.slice(0, -1);
  if (!cursor.atKey && (path.at(-2) === 'required' || path.at(-1) === 'required')) {
    const holder = nodeAtPath(
      tree ?? { format: 'json' },
      (path.at(-1) === 'required' ? parentPath : path.slice(0, -2)).map(String),
    );
    const names = member(holder, 'properties')?.children.map((c) => c.key!) ?? [];
    if (names.length > 0) return names.map((n) => item(context, n, CompletionItemKind.Field));
  }
  if (cursor.atKey) return keys(context, kind, parentPath);
  return values(context, kind, path);
}

function keys(context: Context, kind: SchemaKind, path: readonly (string | number)[]): CompletionItem[] {
  return keywordsAt(kind, path).map((k) =>
    item(context, k.name, CompletionItemKind.Property, {
      asKey: true,
      ...(k.description ? { documentation: k.description } : {}),
    }),
  );
}

function values(context: Context, kind: SchemaKind, path: readonly (string | number)[]): CompletionItem[] {
  return valuesAt(kind, path)
    .filter((v) => typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number')
    .map((v) => item(context, String(v), CompletionItemKind.Value, { value: v }));
}

// Templates --------------------------------------------------------------------------------------

async function completeTemplate(context: Context, workspace: Workspace): Promise<CompletionItem[]> {
  const { cursor, tree } = context;
  const path = cursor.path.map(String);
  const prefix = cursor.linePrefix;
  // YAML's short forms, read from the line as typed.
  if (!context.json) {
    const getAtt = /!GetAtt\s+([A-Za-z0-9]+)\.[\w.]*$/.exec(prefix);
    if (getAtt) return attributes(context, workspace, getAtt[1]!, `${getAtt[1]!}.`);
    if (/!Ref\s+[\w:]*$/.test(prefix)) return refTargets(context);
    if (/!GetAtt\s+\w*$/.test(prefix)) return resources(context);
    if (/!Condition\s+\w*$|!If\s*\[\s*\w*$/.test(prefix)) return conditions(context);
    const map = /!FindInMap\s*\[\s*(?:([\w-]+)\s*,\s*(?:([\w-]+)\s*,\s*)?)?[\w-]*$/.exec(prefix);
    if (map) return mapKeys(context, map[1], map[2]);
    // In !Sub's string: `${Name}` a parameter or resource, `${Resource.Attribute}` its attribute.
    const subAttribute = /!Sub\s+.*\$\{([A-Za-z0-9]+)\.[\w.]*$/.exec(prefix);
    if (subAttribute) return attributes(context, workspace, subAttribute[1]!, `${subAttribute[1]!}.`);
    if (/!Sub\s+.*\$\{\w*$/.test(prefix)) return refTargets(context, false);
  }
  const last = path.at(-1);
  const holder = tree ? nodeAtPath(tree, path.slice(0, -1)) : undefined;
  if (!cursor.atKey) {
    if (last === 'Ref') return refTargets(context);
    if (path.at(-2) === 'Fn::GetAtt') {
      if (last === '0') return resources(context);
      const target = stringOf(holder?.children[0]);
      return target ? attributes(context, workspace, target, '') : [];
    }
    if (last === 'Fn::GetAtt') {
      const word = context.doc.text.getText().slice(cursor.start, cursor.end).replace(/^"|"$/g, '');
      const dot = word.indexOf('.');
      return dot < 0
        ? resources(context)
        : attributes(context, workspace, word.slice(0, dot), `${word.slice(0, dot)}.`);
    }
    if (last === 'Condition' || (path.at(-2) === 'Fn::If' && last === '0')) return conditions(context);
    if (path.at(-2) === 'Fn::FindInMap') {
      const args = holder?.children.map((c) => stringOf(c));
      return mapKeys(context, last === '0' ? undefined : args?.[0], last === '2' ? args?.[1] : undefined);
    }
    if (path[0] === 'Resources' && path[2] === 'DependsOn' && path.length <= 4)
      return resources(context, path[1]);
    if (path[0] === 'Resources' && path[2] === 'Type' && path.length === 3)
      return typeNames(context, workspace);
    if (path[0] === 'Parameters' && path[2] === 'Type' && path.length === 3)
      return PARAMETER_TYPES.map((t) => item(context, t, CompletionItemKind.EnumMember));
  }
  if (path[0] === 'Resources' && path[2] === 'Properties' && path.length >= 4 && path[1] !== undefined)
    return propertyItems(context, workspace, path[1], path.slice(3));
  if (cursor.atKey && path[0] === 'Parameters' && path.length === 3)
    return PARAMETER_KEYS.map((k) => item(context, k, CompletionItemKind.Property, { asKey: true }));
  if (cursor.atKey) return keys(context, 'template', cursor.path.slice(0, -1));
  return values(context, 'template', cursor.path);
}

function refTargets(context: Context, withPseudo = true): CompletionItem[] {
  const parameters = declared(context.tree, 'Parameters').map((p) =>
    item(context, p.key!, CompletionItemKind.Variable, { detail: 'parameter', sortText: `0${p.key!}` }),
  );
  const pseudo = withPseudo
    ? PSEUDO_NAMES.map((n) =>
        item(context, n, CompletionItemKind.Constant, { detail: 'pseudo parameter', sortText: `2${n}` }),
      )
    : [];
  return [...parameters, ...resources(context), ...pseudo];
}

function resources(context: Context, except?: string): CompletionItem[] {
  return declared(context.tree, 'Resources')
    .filter((r) => r.key !== except)
    .map((r) =>
      item(context, r.key!, CompletionItemKind.Class, {
        detail: stringOf(member(r, 'Type')) ?? 'resource',
        sortText: `1${r.key!}`,
      }),
    );
}

function conditions(context: Context): CompletionItem[] {
  return declared(context.tree, 'Conditions').map((c) =>
    item(context, c.key!, CompletionItemKind.Variable, { detail: 'condition' }),
  );
}

function mapKeys(context: Context, map: string | undefined, top: string | undefined): CompletionItem[] {
  const maps = declared(context.tree, 'Mappings');
  if (map === undefined)
    return maps.map((m) => item(context, m.key!, CompletionItemKind.Module, { detail: 'mapping' }));
  const topNode = maps.find((m) => m.key === map);
  const level = top === undefined ? topNode : member(topNode, top);
  return (level?.children ?? [])
    .filter((c) => c.key !== undefined)
    .map((c) => item(context, c.key!, CompletionItemKind.Field));
}

async function typeNames(context: Context, workspace: Workspace): Promise<CompletionItem[]> {
  const items = new Map<string, CompletionItem>();
  for (const { type, file } of workspace.localTypes()) {
    const names = type.apiVersion ? [type.typeName, `${type.typeName}@${type.apiVersion}`] : [type.typeName];
    for (const name of names)
      items.set(
        name,
        item(context, name, CompletionItemKind.Class, { detail: file, documentation: type.description }),
      );
  }
  for (const type of await workspace.registered()) {
    const name = type.typeName;
    if (!items.has(name))
      items.set(
        name,
        item(context, name, CompletionItemKind.Class, {
          detail: 'registered',
          ...(type.description ? { documentation: type.description } : {}),
        }),
      );
  }
  return [...items.values()];
}

async function attributes(
  context: Context,
  workspace: Workspace,
  logicalId: string,
  written: string,
): Promise<CompletionItem[]> {
  const typeName = resourceType(context.tree, logicalId);
  const type = typeName ? await workspace.type(typeName.split('@')[0]!) : undefined;
  if (!type) return [];
  return listProperties(type.schema as Record<string, unknown>)
    .filter((p) => !p.names.includes('*') && !type.writeOnlyProperties.includes(pointerOf(p.names)))
    .map((p) => {
      const name = p.names.join('.');
      const marks = marksOf(type, p.names);
      // Read-only properties are what a resource gives back: first.
      return item(context, `${written}${name}`, CompletionItemKind.Field, {
        detail: `${typeLabel(p.schema)}${marks.length > 0 ? ` (${marks.join(', ')})` : ''}`,
        documentation: describeProperty(name, p.schema, marks),
        sortText: `${marks.includes('read-only') ? 0 : 1}${name}`,
      });
    });
}

/** A resource's properties (at `within`, the path inside Properties), or a property's values. */
async function propertyItems(
  context: Context,
  workspace: Workspace,
  logicalId: string,
  within: string[],
): Promise<CompletionItem[]> {
  const typeName = resourceType(context.tree, logicalId);
  const type = typeName ? await workspace.type(typeName.split('@')[0]!) : undefined;
  if (!type) return [];
  const root = type.schema as Record<string, unknown>;
  const names = within.map((n) => (/^\d+$/.test(n) ? '*' : n));
  if (context.cursor.atKey) {
    const holder = names.slice(0, -1);
    const members =
      holder.length === 0 ? root.properties : propertyAt(root, pointerOf(holder))?.schema.properties;
    const inItems = holder.length > 0 ? propertyAt(root, pointerOf(holder))?.schema : undefined;
    const declaredMembers = (members ??
      (inItems && typeof inItems.items === 'object'
        ? (inItems.items as Record<string, unknown>).properties
        : undefined) ??
      {}) as Record<string, Record<string, unknown>>;
    return Object.entries(declaredMembers)
      .filter(([name]) => !type.readOnlyProperties.includes(pointerOf([...holder, name])))
      .map(([name, schema]) => {
        const marks = marksOf(type, [...holder, name]);
        const resolved = propertyAt(root, pointerOf([...holder, name]))?.schema ?? schema;
        return item(context, name, CompletionItemKind.Property, {
          asKey: true,
          detail: `${typeLabel(resolved)}${marks.includes('required') ? ' (required)' : ''}`,
          documentation: describeProperty(name, resolved, marks),
          sortText: `${marks.includes('required') ? 0 : 1}${name}`,
        });
      });
  }
  const property = propertyAt(root, pointerOf(names));
  if (!property) return [];
  const allowed: unknown[] = Array.isArray(property.schema.enum)
    ? property.schema.enum
    : property.schema.type === 'boolean'
      ? [true, false]
      : [];
  return allowed.map((v) => item(context, String(v), CompletionItemKind.EnumMember, { value: v }));
}
