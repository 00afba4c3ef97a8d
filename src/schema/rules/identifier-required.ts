/**
 * @module Rule TP2047: a primary identifier a create may omit.
 *
 * A create that leaves out part of the primary identifier relies on the provider to make it up; the
 * built-in state provider, which keeps the model as given, refuses such a create at once (400). So
 * each part must be `required` (at every level of a nested pointer) or read-only (the provider
 * generates it). The read-only test is the engine's: the pointer itself is in `readOnlyProperties`.
 *
 * Only the primary identifier: additional identifiers are alternative keys a resource may be read
 * by, never what it is stored or addressed under, and the engine asks for none of them at creation.
 * Only resource schemas: a manifest's identifier is its `name`, which the dialect always requires.
 *
 * Runs on the normalised type (local `$ref`s and built-in schemas resolvable), so on valid documents.
 */
import { diagnostic, escapePointerToken, pointerTokens } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import type { ResourceType } from '../model.js';
import { resolveLocalRef } from '../resource-schema/semantic.js';

type Node = Record<string, unknown>;
const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Warnings for every resource-schema type a document defines (pointers into that document). */
export function identifierRequiredFindings(types: readonly ResourceType[]): Finding[] {
  const findings: Finding[] = [];
  for (const type of types) {
    if (type.dialect !== 'resource-schema') continue;
    const readOnly = new Set(type.readOnlyProperties);
    type.primaryIdentifier.forEach((pointer, i) => {
      if (readOnly.has(pointer)) return;
      const missing = firstOptionalLevel(type.schema, pointer);
      if (missing === undefined) return;
      const fix =
        missing.at === ''
          ? `add '${missing.name}' to required`
          : `add '${missing.name}' to the required list at ${missing.at}`;
      findings.push(
        diagnostic(
          'TP2047',
          `/primaryIdentifier/${i}`,
          `identifier '${pointer}' is neither required nor read-only, so a create may omit it and leave the provider to make one up (the built-in state provider refuses such a create); ${fix}, or add '${pointer}' to readOnlyProperties if the provider generates it`,
        ),
      );
    });
  }
  return findings;
}

/**
 * The first level of `pointer` (`/properties/A/B`) that its parent does not require: the member's
 * name and where its `required` belongs (a pointer into the schema, `''` for the top level); or
 * undefined when every level is required, or one is declared only where it may not apply. Array items
 * (`*`) are never required: an array may be empty.
 */
function firstOptionalLevel(schema: Node, pointer: string): { name: string; at: string } | undefined {
  let nodes: { node: Node; at: string }[] = [{ node: schema, at: '' }];
  for (const name of pointerTokens(pointer).slice(1)) {
    const holders = alwaysApplying(schema, nodes);
    // Declared only inside an anyOf/oneOf branch (or a pattern): whether it is there depends on the branch.
    if (holders.length === 0) return undefined;
    const declaring = holders.find(
      ({ node }) => isObject(node.properties) && Object.hasOwn(node.properties, name),
    );
    if (
      name === '*' ||
      !holders.some(({ node }) => Array.isArray(node.required) && node.required.includes(name))
    )
      return { name, at: (declaring ?? holders[0]!).at };
    nodes = holders.flatMap(({ node, at }) => {
      const child =
        isObject(node.properties) && Object.hasOwn(node.properties, name) ? node.properties[name] : undefined;
      return isObject(child) ? [{ node: child, at: `${at}/properties/${escapePointerToken(name)}` }] : [];
    });
  }
  return undefined;
}

/** The nodes, the targets of their local `$ref`s and their `allOf` branches: what always applies. */
function alwaysApplying(schema: Node, nodes: { node: Node; at: string }[]): { node: Node; at: string }[] {
  const out: { node: Node; at: string }[] = [];
  const seen = new Set<Node>();
  const stack = [...nodes];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if (seen.has(entry.node)) continue;
    seen.add(entry.node);
    out.push(entry);
    const ref = entry.node.$ref;
    const target = typeof ref === 'string' && ref.startsWith('#/') ? resolveLocalRef(schema, ref) : undefined;
    if (isObject(target)) stack.push({ node: target, at: (ref as string).slice(1) });
    if (Array.isArray(entry.node.allOf))
      entry.node.allOf.forEach((branch, i) => {
        if (isObject(branch)) stack.push({ node: branch, at: `${entry.at}/allOf/${i}` });
      });
  }
  return out;
}
