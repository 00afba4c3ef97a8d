/**
 * @module The text of a JSON or YAML document as a tree of offsets: what completion, hover,
 * navigation and the outline read. The checks themselves read the validators' own parse
 * (src/schema/source.ts); this one keeps every member's and item's place, even in a broken document.
 */
import { parseTree, type Node as JsonNode } from 'jsonc-parser';
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';

export type NodeType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export interface SyntaxNode {
  type: NodeType;
  /** Where the value's text starts and how long it is (a YAML tag comes before `offset`). */
  offset: number;
  length: number;
  /** A scalar's value. */
  value?: unknown;
  /** A member's name, and where it is written. */
  key?: string;
  keyOffset?: number;
  keyLength?: number;
  /** YAML's short form of an intrinsic function: `!Ref`, `!GetAtt`, …. */
  tag?: string;
  children: SyntaxNode[];
  parent?: SyntaxNode;
}

export interface SyntaxTree {
  format: 'json' | 'yaml';
  root?: SyntaxNode;
}

export function syntaxTree(text: string, format: 'json' | 'yaml'): SyntaxTree {
  if (format === 'json') {
    const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
    return { format, ...(root ? { root: fromJson(root, undefined) } : {}) };
  }
  const document = parseDocument(text, { logLevel: 'silent', keepSourceTokens: false, uniqueKeys: false });
  const contents = document.contents as YamlNode | null;
  return { format, ...(contents ? { root: fromYaml(contents, undefined) } : {}) };
}

function fromJson(node: JsonNode, parent: SyntaxNode | undefined): SyntaxNode {
  const made: SyntaxNode = {
    type: node.type === 'property' ? 'null' : node.type,
    offset: node.offset,
    length: node.length,
    children: [],
    ...(parent ? { parent } : {}),
  };
  if (node.type === 'object') {
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? [];
      if (!key) continue;
      const child: SyntaxNode = value
        ? fromJson(value, made)
        : { type: 'null', offset: key.offset + key.length, length: 0, children: [], parent: made };
      child.key = String(key.value);
      child.keyOffset = key.offset;
      child.keyLength = key.length;
      made.children.push(child);
    }
  } else if (node.type === 'array') {
    for (const item of node.children ?? []) made.children.push(fromJson(item, made));
  } else {
    made.value = node.value;
  }
  return made;
}

function fromYaml(node: YamlNode, parent: SyntaxNode | undefined): SyntaxNode {
  const [start, end] = node.range ?? [0, 0];
  const made: SyntaxNode = {
    type: 'null',
    offset: start,
    length: end - start,
    children: [],
    ...(parent ? { parent } : {}),
    ...(node.tag && node.tag.startsWith('!') && !node.tag.startsWith('!!') ? { tag: node.tag } : {}),
  };
  if (isMap(node)) {
    made.type = 'object';
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key as YamlNode | null;
      const keyRange = key && 'range' in key ? key.range : undefined;
      const value = pair.value as YamlNode | null;
      const child: SyntaxNode =
        value && value.range
          ? fromYaml(value, made)
          : { type: 'null', offset: keyRange ? keyRange[1] : start, length: 0, children: [], parent: made };
      child.key = isScalar(key) ? String(key.value) : String(key ?? '');
      if (keyRange) {
        child.keyOffset = keyRange[0];
        child.keyLength = keyRange[1] - keyRange[0];
      }
      made.children.push(child);
    }
  } else if (isSeq(node)) {
    made.type = 'array';
    for (const item of node.items)
      if (item && (item as YamlNode).range) made.children.push(fromYaml(item as YamlNode, made));
  } else if (isScalar(node)) {
    const value = node.value;
    made.value = value;
    made.type =
      value === null || value === undefined
        ? 'null'
        : typeof value === 'number' || typeof value === 'bigint'
          ? 'number'
          : typeof value === 'boolean'
            ? 'boolean'
            : 'string';
  }
  return made;
}

/** The deepest node whose value or name holds `offset`, and whether it is the name. */
export function nodeAt(tree: SyntaxTree, offset: number): { node: SyntaxNode; onKey: boolean } | undefined {
  const root = tree.root;
  if (!root || offset < root.offset || offset > root.offset + root.length) return undefined;
  let node: SyntaxNode = root;
  for (;;) {
    const child: SyntaxNode | undefined = node.children.find(
      (c) =>
        (c.keyOffset !== undefined && offset >= c.keyOffset && offset <= c.keyOffset + (c.keyLength ?? 0)) ||
        (offset >= c.offset && offset <= c.offset + c.length),
    );
    if (!child) return { node, onKey: false };
    if (
      child.keyOffset !== undefined &&
      offset >= child.keyOffset &&
      offset <= child.keyOffset + (child.keyLength ?? 0)
    )
      return { node: child, onKey: true };
    node = child;
  }
}

/** The member or item names from the root to `node`. */
export function pathOf(node: SyntaxNode): string[] {
  const path: string[] = [];
  for (let n: SyntaxNode | undefined = node; n?.parent; n = n.parent)
    path.unshift(n.key ?? String(n.parent.children.indexOf(n)));
  return path;
}

/** The node at `path` (member names and item indexes), if the text has it. */
export function nodeAtPath(tree: SyntaxTree, path: readonly string[]): SyntaxNode | undefined {
  let node = tree.root;
  for (const token of path) {
    if (!node) return undefined;
    node = node.type === 'array' ? node.children[Number(token)] : node.children.find((c) => c.key === token);
  }
  return node;
}

/** A member of an object node by name. */
export function member(node: SyntaxNode | undefined, name: string): SyntaxNode | undefined {
  return node?.type === 'object' ? node.children.find((c) => c.key === name) : undefined;
}

/** Every node of the tree, depth first. */
export function* walk(node: SyntaxNode | undefined): Generator<SyntaxNode> {
  if (!node) return;
  yield node;
  for (const child of node.children) yield* walk(child);
}

/** Where a node is named (its key) or, for an item, where its value is. */
export function nameSpan(node: SyntaxNode): { offset: number; length: number } {
  return node.keyOffset !== undefined
    ? { offset: node.keyOffset, length: node.keyLength ?? 0 }
    : { offset: node.offset, length: node.length };
}

/** A scalar's text as a string (YAML reads `2020-01-01` or `1.0` as other types). */
export function stringOf(node: SyntaxNode | undefined): string | undefined {
  if (!node || node.type === 'object' || node.type === 'array') return undefined;
  return node.value === undefined || node.value === null ? undefined : String(node.value);
}

/** The plain value a node holds (what a parser would give), bounded by the tree it was read from. */
export function valueOf(node: SyntaxNode | undefined): unknown {
  if (!node) return undefined;
  if (node.type === 'object') {
    const value: Record<string, unknown> = {};
    for (const child of node.children)
      if (child.key !== undefined && child.key !== '__proto__') value[child.key] = valueOf(child);
    return value;
  }
  if (node.type === 'array') return node.children.map(valueOf);
  return node.value;
}
