/**
 * @module A type's validation rules (CEL, `x-typeplane-validations` / `x-kubernetes-validations` on
 * schema nodes) as consumers get them: in JSON Schemas and OpenAPI as extensions, in Bicep as words
 * in descriptions (Bicep has no place for them).
 *
 * JSON Schemas and OpenAPI carry every node's rules under `x-kubernetes-validations`, the key
 * Kubernetes tooling reads (a CRD's `openAPIV3Schema`, generators that turn an OpenAPI schema into
 * one), both keys' entries in one list; `x-typeplane-validations` stays as the type wrote it, so the
 * rule names verdicts give (`/properties/Size/x-typeplane-validations/0`) still point at their rule.
 */
import { VALIDATION_KEYWORDS } from '../schema/validations.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const OURS = 'x-typeplane-validations';
const KUBERNETES = 'x-kubernetes-validations';
/** Keywords whose values are data, not schemas: a member there named like a keyword is no rule. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', ...VALIDATION_KEYWORDS]);

/** The rule entries written on one schema node, from both keys. */
function entriesOf(node: Schema): Schema[] {
  return VALIDATION_KEYWORDS.flatMap((k) => (Array.isArray(node[k]) ? node[k] : [])).filter(isObject);
}

/** `schema` (changed in place) with every node's rules also under `x-kubernetes-validations`. */
export function carryRules(schema: Schema): Schema {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    if (Array.isArray(node[OURS])) node[KUBERNETES] = structuredClone(entriesOf(node));
    for (const [key, value] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) visit(value);
  };
  visit(schema);
  return schema;
}

/** One rule in words: its message, or its text when it has none (a messageExpression is evaluated only when it fails). */
function ruleText(entry: Schema): string | undefined {
  if (typeof entry.message === 'string' && entry.message.trim() !== '')
    return entry.message.trim().replace(/\.$/, '');
  return typeof entry.rule === 'string' ? `\`${entry.rule.trim()}\`` : undefined;
}

/**
 * The rules a property's value must keep, in a sentence for its description — its own, those of
 * the definition it refers to (`resolve`), and its items' or members' — or undefined when none.
 */
export function rulesNote(node: unknown, resolve: (ref: string) => unknown): string | undefined {
  if (!isObject(node)) return undefined;
  const target = typeof node.$ref === 'string' ? resolve(node.$ref) : undefined;
  const own = [node, ...(isObject(target) ? [target] : [])].flatMap(entriesOf);
  const notes: string[] = [];
  const sentence = (lead: string, entries: Schema[]) => {
    const texts = entries.map(ruleText).filter((t): t is string => t !== undefined);
    if (texts.length > 0) notes.push(`${lead}: ${texts.join('; ')}.`);
  };
  sentence('Rules', own);
  const shape = isObject(target) ? target : node;
  if (isObject(shape.items)) sentence('Rules on each item', entriesOf(shape.items));
  if (isObject(shape.additionalProperties))
    sentence('Rules on each value', entriesOf(shape.additionalProperties));
  return notes.length > 0 ? notes.join(' ') : undefined;
}
