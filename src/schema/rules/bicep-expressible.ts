/**
 * @module Rule TP5001–TP5003: what a type says that Bicep cannot express.
 *
 * `typeplane generate bicep` never fails on a valid type: it emits the nearest type Bicep has. These
 * warnings say, at the property, what is lost and what is emitted instead, so an author can decide
 * whether it matters to the type's Bicep users:
 * - TP5001 `type: number`: Bicep has no floating-point type; emitted as `int` (fractions reach it
 *   only through `json('1.5')`);
 * - TP5002 an `enum` or `const` of numbers or booleans: Bicep has literal types for strings only;
 *   emitted as the values' base type (`int`, `bool`), the listed values unchecked;
 * - TP5003 `patternProperties`: Bicep cannot constrain member names; emitted as an object whose
 *   additional properties may be any of the patterns' value types.
 *
 * The walk covers the model schema once (definitions once each, `$ref`s not followed), so it is linear
 * in the schema's size.
 */
import { diagnostic, escapePointerToken } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import type { ResourceType } from '../model.js';

type Node = Record<string, unknown>;
const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Warnings for every type a document defines (their pointers are into that document). */
export function bicepExpressibleFindings(types: readonly ResourceType[]): Finding[] {
  const findings: Finding[] = [];
  for (const type of types) {
    // A manifest type's model is its version's schema (plus `name` and built-in definitions).
    const prefix =
      type.dialect === 'manifest'
        ? `/types/${escapePointerToken(type.typeName.split('/')[1]!)}/apiVersions/${escapePointerToken(type.apiVersion!)}/schema`
        : '';
    const report = (rule: 'TP5001' | 'TP5002' | 'TP5003', at: string, message: string) =>
      findings.push(diagnostic(rule, prefix + at, message));
    visit(type.schema, '', report);
    if (type.dialect === 'resource-schema') visitMembers(type.schema.definitions, '', 'definitions', report);
  }
  return findings;
}

export type BicepReport = (rule: 'TP5001' | 'TP5002' | 'TP5003', at: string, message: string) => void;

function visit(node: unknown, at: string, report: BicepReport): void {
  if (!isObject(node)) return;
  bicepNodeFindings(node, at, report);
  // A child's pointer is built only for a child that is a schema: most nodes have few.
  visitMembers(node.properties, at, 'properties', report);
  visitMembers(node.patternProperties, at, 'patternProperties', report);
  if (isObject(node.additionalProperties))
    visit(node.additionalProperties, `${at}/additionalProperties`, report);
  const items = node.items;
  if (Array.isArray(items)) visitList(items, `${at}/items/`, report);
  else if (isObject(items)) visit(items, `${at}/items`, report);
  for (let k = 0; k < BRANCHES.length; k++) {
    const branches = node[BRANCHES[k]!];
    if (Array.isArray(branches)) visitList(branches, `${at}/${BRANCHES[k]}/`, report);
  }
}

/** What one schema node says that Bicep cannot express (its own keywords, not its children's). */
export function bicepNodeFindings(node: Node, at: string, report: BicepReport): void {
  bicepKeywordFindings(
    node.type,
    Object.hasOwn(node, 'const') ? node.const : NO_CONST,
    node.enum,
    node.patternProperties,
    at,
    report,
  );
}

/** Stands for a node without `const` (whose `const` may be any value, `undefined` and `null` too). */
export const NO_CONST: unique symbol = Symbol('no const');

/**
 * {@link bicepNodeFindings} of a node's keywords as read already. A resource schema's semantic walk
 * reads them and calls it on the nodes this rule's walk would reach, so that the document is walked
 * once, not twice (each walk of its own cost V8 several compilations a run); the walk above serves
 * manifests, and the documents that walk cannot stand for (see semantic.ts).
 */
export function bicepKeywordFindings(
  type: unknown,
  constValue: unknown,
  enumValues: unknown,
  patternProperties: unknown,
  at: string,
  report: BicepReport,
): void {
  // The label is spelled out only for a warning: most nodes have none.
  if (Array.isArray(type) ? type.includes('number') : type === 'number')
    report(
      'TP5001',
      at,
      `${label(at)} is a number, and Bicep has no floating-point type: its Bicep type is int (a fraction can still be passed as json('1.5')); use type: integer if only whole numbers are meant`,
    );
  const hasConst = constValue !== NO_CONST;
  // Which of number and boolean the listed values hold, in the order met (most nodes list none).
  let odd: OddKind[] | undefined;
  if (hasConst) odd = noteOdd(odd, constValue);
  else if (Array.isArray(enumValues))
    for (let i = 0; i < enumValues.length; i++) odd = noteOdd(odd, enumValues[i]);
  if (odd !== undefined)
    report(
      'TP5002',
      hasConst ? `${at}/const` : `${at}/enum`,
      `${label(at)} lists ${odd.join(' and ')} values, and Bicep has literal types for strings only: its Bicep type is ${bicepTypesOf(odd)}, without the listed values checked`,
    );
  if (isObject(patternProperties))
    report(
      'TP5003',
      `${at}/patternProperties`,
      `${label(at)} constrains member names with patternProperties, which Bicep cannot express: its Bicep type is an object whose members may have any name and any of the patterns' value types`,
    );
}

type OddKind = 'number' | 'boolean';

/** `int`, `bool` or both, in the order met: spelled out without a map and join (one of few kinds of list). */
function bicepTypesOf(odd: readonly OddKind[]): string {
  const first = odd[0] === 'number' ? 'int' : 'bool';
  return odd.length === 1 ? first : `${first} | ${first === 'int' ? 'bool' : 'int'}`;
}

/** `kinds` with the kind of `value` added when it is one Bicep has no literal type for. */
function noteOdd(kinds: OddKind[] | undefined, value: unknown): OddKind[] | undefined {
  const kind = typeof value;
  if ((kind !== 'number' && kind !== 'boolean') || kinds?.includes(kind)) return kinds;
  return kinds ? [...kinds, kind] : [kind];
}

const BRANCHES = ['oneOf', 'anyOf', 'allOf'] as const;

function visitMembers(members: unknown, at: string, keyword: string, report: BicepReport): void {
  if (!isObject(members)) return;
  const prefix = `${at}/${keyword}/`;
  for (const name in members)
    if (Object.hasOwn(members, name) && isObject(members[name]))
      visit(members[name], prefix + escapePointerToken(name), report);
}

function visitList(list: unknown[], prefix: string, report: BicepReport): void {
  for (let i = 0; i < list.length; i++) if (isObject(list[i])) visit(list[i], prefix + i, report);
}

/** `/properties/config/properties/size` → `property 'config.size'`; the root → `the resource`. */
function label(at: string): string {
  if (at === '') return 'the resource';
  const parts: string[] = [];
  const tokens = at.slice(1).split('/');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!.replace(/~1/g, '/').replace(/~0/g, '~');
    if (token === 'properties' || token === 'patternProperties' || token === 'definitions') {
      const name = (tokens[++i] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
      parts.push(
        token === 'definitions' ? `definitions.${name}` : token === 'patternProperties' ? `[${name}]` : name,
      );
    } else if (token === 'items') parts.push('[]');
    else if (token === 'additionalProperties') parts.push('*');
    else if (/^(oneOf|anyOf|allOf)$/.test(token)) i++;
  }
  return `property '${parts.join('.').replace(/\.\[/g, '[')}'`;
}
