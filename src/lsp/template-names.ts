/**
 * @module What a stack template declares, read from its syntax tree (so a half-written template
 * still has them): parameters, resources and their types, conditions, mappings — and the places
 * that name them (`Ref`, `Fn::GetAtt`, `DependsOn`, `Condition`, `Fn::If`, `Fn::Sub`'s `${…}`).
 */
import { PSEUDO_NAMES } from '../stacks/index.js';
import { member, stringOf, walk, type SyntaxNode, type SyntaxTree } from './syntax-tree.js';

export { PSEUDO_NAMES };

export type Section = 'Parameters' | 'Resources' | 'Conditions' | 'Mappings' | 'Outputs';

/** The members of a section, by name. */
export function declared(tree: SyntaxTree | undefined, section: Section): SyntaxNode[] {
  const node = member(tree?.root, section);
  return node?.type === 'object' ? node.children.filter((c) => c.key !== undefined) : [];
}

/** A resource's `Type`, as written. */
export function resourceType(tree: SyntaxTree | undefined, logicalId: string): string | undefined {
  return stringOf(
    member(
      declared(tree, 'Resources').find((r) => r.key === logicalId),
      'Type',
    ),
  );
}

/** The intrinsic function a node is: `{Ref: x}` (JSON, long form) or `!Ref x` (YAML's short form). */
export function intrinsicOf(node: SyntaxNode): { name: string; argument: SyntaxNode } | undefined {
  if (node.tag) {
    const tag = node.tag.slice(1);
    return { name: tag === 'Ref' || tag === 'Condition' ? tag : `Fn::${tag}`, argument: node };
  }
  if (node.type === 'object' && node.children.length === 1) {
    const only = node.children[0]!;
    if (only.key === 'Ref' || only.key === 'Condition' || only.key?.startsWith('Fn::'))
      return { name: only.key, argument: only };
  }
  return undefined;
}

export type NameKind = 'parameter' | 'resource' | 'condition' | 'mapping';

/** A place in the template that names a declared thing, and the text span of the name. */
export interface NameUse {
  kind: NameKind;
  name: string;
  offset: number;
  length: number;
}

/** Where the value of a scalar starts in the text, past a quote. */
function scalarSpan(node: SyntaxNode, text: string): { offset: number; length: number } {
  const quoted = text[node.offset] === '"' || text[node.offset] === "'";
  return quoted ? { offset: node.offset + 1, length: Math.max(node.length - 2, 0) } : node;
}

/** Every use of a declared name in the template, bounded by the tree's size. */
export function nameUses(tree: SyntaxTree | undefined, text: string): NameUse[] {
  const uses: NameUse[] = [];
  const add = (kind: NameKind, node: SyntaxNode | undefined, name = stringOf(node), at = 0) => {
    if (!node || name === undefined) return;
    const span = scalarSpan(node, text);
    uses.push({ kind, name, offset: span.offset + at, length: name.length });
  };
  const parameters = new Set(declared(tree, 'Parameters').map((p) => p.key!));
  for (const node of walk(tree?.root)) {
    const intrinsic = intrinsicOf(node);
    if (intrinsic) {
      const arg = intrinsic.argument;
      const first = arg.type === 'array' ? arg.children[0] : arg;
      if (intrinsic.name === 'Ref') {
        const name = stringOf(arg);
        if (name !== undefined) add(parameters.has(name) ? 'parameter' : 'resource', arg);
      } else if (intrinsic.name === 'Fn::GetAtt') {
        const name = stringOf(first);
        if (name !== undefined) add('resource', first, arg.type === 'array' ? name : name.split('.')[0]);
      } else if (intrinsic.name === 'Condition' || intrinsic.name === 'Fn::If') {
        add('condition', first);
      } else if (intrinsic.name === 'Fn::FindInMap') {
        add('mapping', first);
      } else if (intrinsic.name === 'Fn::Sub') {
        const template = first;
        const source = stringOf(template);
        if (template && source !== undefined) {
          for (const m of source.matchAll(/\$\{([A-Za-z0-9]+)(\.[^}]*)?\}/g)) {
            const name = m[1]!;
            // Only where the text holds the string as written (no escapes before it).
            const at = text.indexOf(`\${${name}`, template.offset);
            if (at < 0 || at > template.offset + template.length) continue;
            uses.push({
              kind: parameters.has(name) ? 'parameter' : 'resource',
              name,
              offset: at + 2,
              length: name.length,
            });
          }
        }
      }
    }
    // DependsOn and a resource's or output's Condition name things by plain strings.
    const path = node.parent?.parent;
    const section = path?.parent === tree?.root ? path?.key : undefined;
    if ((section === 'Resources' || section === 'Outputs') && node.parent) {
      if (node.key === 'DependsOn') {
        if (node.type === 'array') for (const item of node.children) add('resource', item);
        else add('resource', node);
      } else if (node.key === 'Condition' && node.type === 'string') add('condition', node);
    }
  }
  return uses;
}
