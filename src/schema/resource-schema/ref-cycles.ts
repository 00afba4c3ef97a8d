/**
 * @module `$ref` cycles that never reach a value: `A: {$ref: '#/definitions/A'}`, or A → B → A through
 * `$ref`s and `allOf`/`anyOf`/`oneOf` branches. Such a schema says what a value is only in terms of
 * itself at the same place, so no validator can be built from it (ajv recurses until the stack runs
 * out). A cycle through `properties` or `items` (a tree, a list of lists) moves one level down the
 * value at each turn and is fine.
 */
import { diagnostic, escapePointerToken } from '../diagnostics.js';
import type { Finding } from '../finding.js';
import { leadsFurther, resolveLocalRef } from './semantic.js';

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const COMPOSITIONS = ['allOf', 'anyOf', 'oneOf'] as const;

/** Where a node is, as the steps to it; the pointer is spelled out only when a finding needs it. */
type Place = { ref: string } | { parent: Place; tokens: string[] };

function pointerOf(place: Place): string {
  const parts: string[] = [];
  let p: Place = place;
  while ('parent' in p) {
    parts.push(p.tokens.map((t) => `/${escapePointerToken(t)}`).join(''));
    p = p.parent;
  }
  parts.push(p.ref === '' ? '' : p.ref.slice(1));
  return parts.reverse().join('');
}

/** The steps that stay at the same place in the value: through a local `$ref`, into a composition branch. */
function sameValueSteps(doc: Schema, node: Schema, at: Place): [Schema, Place, Place][] {
  const steps: [Schema, Place, Place][] = [];
  const ref = node.$ref;
  if (typeof ref === 'string' && (ref.startsWith('#/definitions/') || ref.startsWith('#/properties/'))) {
    const target = resolveLocalRef(doc, ref);
    if (isObject(target)) steps.push([target, { ref }, { parent: at, tokens: ['$ref'] }]);
  }
  for (const key of COMPOSITIONS) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    branches.forEach((branch, i) => {
      const place = { parent: at, tokens: [key, String(i)] };
      if (isObject(branch)) steps.push([branch, place, place]);
    });
  }
  return steps;
}

/**
 * Every schema node the model uses: the properties and everything below them, following local
 * `$ref`s into definitions. A definition nothing uses is never compiled (a published AWS schema has
 * one that refers to itself), so it is left alone.
 */
function schemaNodes(doc: Schema): [Schema, Place][] {
  const out: [Schema, Place][] = [];
  const seen = new Set<Schema>();
  const root: Place = { ref: '' };
  const stack: [unknown, Place][] = [];
  if (isObject(doc.properties))
    for (const [name, child] of Object.entries(doc.properties))
      stack.push([child, { parent: root, tokens: ['properties', name] }]);
  for (const key of COMPOSITIONS) {
    const branches = doc[key];
    if (Array.isArray(branches))
      branches.forEach((b, i) => stack.push([b, { parent: root, tokens: [key, String(i)] }]));
  }
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (!isObject(node) || seen.has(node)) continue;
    seen.add(node);
    out.push([node, at]);
    for (const key of ['properties', 'patternProperties', 'dependencies'] as const) {
      const children = node[key];
      if (isObject(children))
        for (const [name, child] of Object.entries(children))
          stack.push([child, { parent: at, tokens: [key, name] }]);
    }
    for (const key of ['items', 'contains'] as const)
      if (node[key] !== undefined) stack.push([node[key], { parent: at, tokens: [key] }]);
    for (const [target, place] of sameValueSteps(doc, node, at)) stack.push([target, place]);
  }
  return out;
}

/**
 * One TP2017 error per cycle, at the `$ref` (or branch) that closes it, naming every schema on it.
 * Depth-first over the same-place steps, without recursion (a chain may be as long as the document).
 */
export function findRefCycles(doc: Schema, walkedRefs?: ReadonlyMap<string, unknown>): Finding[] {
  if (!refsMayCycle(doc, walkedRefs)) return [];
  const findings: Finding[] = [];
  const state = new Map<Schema, 'open' | 'done'>();
  for (const [root, rootPlace] of schemaNodes(doc)) {
    // Only a `$ref` can lead back: a node without one starts no cycle of its own.
    if (state.has(root) || (root.$ref === undefined && !COMPOSITIONS.some((k) => root[k] !== undefined)))
      continue;
    const path: { node: Schema; place: Place; steps: [Schema, Place, Place][]; next: number }[] = [];
    const enter = (node: Schema, place: Place) => {
      state.set(node, 'open');
      path.push({ node, place, steps: sameValueSteps(doc, node, place), next: 0 });
    };
    enter(root, rootPlace);
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const step = top.steps[top.next++];
      if (!step) {
        state.set(top.node, 'done');
        path.pop();
        continue;
      }
      const [target, place, via] = step;
      const seen = state.get(target);
      if (seen === undefined) enter(target, place);
      else if (seen === 'open') {
        const from = path.findIndex((p) => p.node === target);
        const loop = [...path.slice(from).map((p) => pointerOf(p.place)), pointerOf(place)];
        findings.push(
          diagnostic(
            'TP2017',
            pointerOf(via),
            `$ref cycle: ${loop.join(' -> ')} comes back to itself at the same place in the value (no object property or array item in between), so it can never be checked; break the cycle (a recursive shape must recur under 'properties' or 'items')`,
          ),
        );
      }
    }
  }
  return findings;
}

/**
 * A `$ref` to a node the semantic checks walk: a property or definition, and the schemas below it
 * through `properties`, `patternProperties`, `dependencies`, `items`, `contains` and branches.
 */
const WALKED_TARGET =
  /^#\/(?:definitions|properties)\/[^/]+(?:\/(?:properties|patternProperties|dependencies)\/[^/]+|\/items|\/contains|\/(?:allOf|anyOf|oneOf)\/\d+)*$/;

/**
 * Whether the document may hold a cycle at all, cheaply: composition branches lead down the document,
 * so a cycle takes at least one local `$ref`, and then the `$ref`s alone form a cycle (a `$ref`'s
 * target leads, through its own `$ref` and its branches, to the next one). Every `$ref` anywhere in
 * the document is considered, so `false` is exact; `true` leaves the verdict to the full search, which
 * also knows which schemas the model uses.
 *
 * `walkedRefs`, the `$ref`s of the nodes the semantic checks walked with the node each names, spare a
 * walk of the whole document when each of them names a walked node: the search only meets nodes the
 * model reaches, from its properties through child schemas (all walked) and `$ref`s; so, by
 * induction, a `$ref` it follows sits in a walked node and names one, and every `$ref` on a cycle it
 * can find is there. Their targets are not looked up again.
 */
function refsMayCycle(doc: Schema, walkedRefs?: ReadonlyMap<string, unknown>): boolean {
  let refs: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  let targetOf: (ref: string) => unknown;
  if (walkedRefs && everyRefNamesAWalkedNode(walkedRefs)) {
    refs = walkedRefs;
    targetOf = (ref) => walkedRefs.get(ref);
  } else {
    const all = new Set<string>();
    collectLocalRefs(doc, all);
    refs = all;
    targetOf = (ref) => resolveLocalRef(doc, ref);
  }
  // Depth-first over the `$ref`s: a `$ref` met again while still open closes a cycle. One whose
  // target has no `$ref` and no branches leads nowhere (most of them: 287 of the AWS corpus's
  // 10,194 lead on), so it can be on no cycle: the search starts only at the others.
  const state = new Map<string, 'open' | 'done'>();
  for (const root of refs.keys()) {
    const rootTarget = targetOf(root);
    if (state.has(root) || !isObject(rootTarget) || !leadsFurther(rootTarget)) continue;
    const path: { ref: string; next: string[]; i: number }[] = [
      { ref: root, next: sameValueRefs(refs, rootTarget), i: 0 },
    ];
    state.set(root, 'open');
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const ref = top.next[top.i++];
      if (ref === undefined) {
        state.set(top.ref, 'done');
        path.pop();
      } else if (state.get(ref) === 'open') {
        return true;
      } else if (!state.has(ref)) {
        state.set(ref, 'open');
        path.push({ ref, next: sameValueRefs(refs, targetOf(ref)), i: 0 });
      }
    }
  }
  return false;
}

function everyRefNamesAWalkedNode(refs: ReadonlyMap<string, unknown>): boolean {
  for (const ref of refs.keys()) if (!WALKED_TARGET.test(ref)) return false;
  return true;
}

/** The local `$ref`s reached from a `$ref`'s target without leaving its place in the value. */
function sameValueRefs(refs: ReadonlySet<string> | ReadonlyMap<string, unknown>, target: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [target];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isObject(node)) continue;
    if (typeof node.$ref === 'string' && refs.has(node.$ref)) out.push(node.$ref);
    for (let k = 0; k < COMPOSITIONS.length; k++) {
      const branches = node[COMPOSITIONS[k]!];
      if (Array.isArray(branches)) for (let i = 0; i < branches.length; i++) stack.push(branches[i]);
    }
  }
  return out;
}

/** Every `$ref` that names a place in the document, wherever it is written (the value nests at most 64 deep). */
function collectLocalRefs(node: unknown, refs: Set<string>): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) collectLocalRefs(node[i], refs);
    return;
  }
  for (const key in node) {
    const value = (node as Schema)[key];
    if (key === '$ref') {
      if (
        typeof value === 'string' &&
        (value.startsWith('#/definitions/') || value.startsWith('#/properties/'))
      )
        refs.add(value);
    } else if (typeof value === 'object' && value !== null) {
      collectLocalRefs(value, refs);
    }
  }
}
