/**
 * @module Binding a recipe to one instance: the template the instance's stack deploys (every context
 * read replaced by the instance's value, secrets by NoEcho parameters) and the parameters it gets.
 * Pure and deterministic: bound again after a crash, it gives the same text and parameters, so the
 * stack's client token replays the deployment instead of making another.
 */
import { HandlerError } from '../handler/types.js';
import { stripWriteOnly, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { loadRecipeTemplate } from './parsed.js';
import { CONTEXT, pathInfo, valueAt, type RecipeContext } from './context.js';
import { activePart, contextUses, rewriteContext, type ContextUse } from './rewrite.js';
import type { RecipeSpec } from './spec.js';
import { specOf } from './spec.js';

export interface Bound {
  text: string;
  parameters: Record<string, unknown>;
  spec: RecipeSpec;
}

const SECRET_PREFIX = 'TpSecret';
const VARIABLE_PREFIX = 'TpContext';
const VALUE_PREFIX = 'TpValue';

export function bindRecipe(options: {
  template: string;
  type: ResourceType;
  context: RecipeContext;
  /** The environment's defaults for the template's parameters. */
  defaults: Record<string, unknown>;
  /** Values the recipe generated for this instance. */
  generated: Record<string, string>;
  /** The instance's own choices (`recipe.parameters`), over the environment's. */
  overrides: Record<string, unknown>;
  /**
   * Each context read whose value is text becomes a parameter given that text, instead of the text
   * written into the template: instances whose context differs only in such values get one template
   * text, whose analysis the stacks keep (`reuse`). What a resource is given is the same either way.
   */
  symbolic?: boolean;
}): Bound {
  const { type, context } = options;
  const loaded = loadRecipeTemplate(options.template);
  if (!loaded.template)
    throw new HandlerError('InternalFailure', 'the recipe template no longer reads as a template');
  const template = loaded.template;
  const doc = template.document.value as Record<string, unknown>;
  // What each context read becomes, in the order the rewrite meets them.
  const uses = usesOf(doc);
  const secret = secretUses(type, doc, uses);
  let stripped: Model | undefined;
  const strippedProperties = () => (stripped ??= stripWriteOnly(type, context.resource.properties));
  // Arrays built by push, not by map (and read by loops, not every/map/join): an array map() makes
  // in optimised code has another elements kind than one it makes unoptimised, and this function,
  // run once per instance, was optimised and deoptimised on that twice (--trace-deopt-verbose), each
  // compile 20-75 ms of V8's time after some 3,000 instances.
  const decisions: Decision[] = [];
  for (let i = 0; i < uses.length; i++) decisions.push(decisionOf(uses[i]!, secret[i]!));
  function decisionOf(use: ContextUse, isSecret: boolean): Decision {
    const value = valueAt(context, type, use.path, strippedProperties);
    if (isSecret) {
      if (value === undefined) return { kind: 'none' };
      return {
        kind: 'secret',
        key: use.path.join('.'),
        value: typeof value === 'string' ? value : JSON.stringify(value),
      };
    }
    if (value === undefined || value === null) return { kind: 'none' };
    const active = activePart(value);
    if (active !== undefined)
      throw new HandlerError(
        'InvalidRequest',
        `${CONTEXT}.${use.path.join('.')} holds an object a template would run as a function (at ${active}): a recipe does not take such values; rename that key`,
      );
    const text = use.inSub ? (typeof value === 'object' ? JSON.stringify(value) : String(value)) : value;
    return typeof text === 'string' ? { kind: 'text', value: text } : { kind: 'value', value };
  }
  // Symbolic, a text depends on the kinds of the values only (unless one is written in whole).
  const shape = options.symbolic ? shapeOf(decisions) : undefined;
  let written = shape === undefined ? undefined : shapesOf(doc).get(shape);
  if (!written) {
    written = write(doc, decisions, options.symbolic === true, [
      ...template.parameters.keys(),
      ...template.resources.keys(),
    ]);
    if (shape !== undefined) keep(shapesOf(doc), shape, written);
  }
  const spec = specOf(doc);
  const parameters: Record<string, unknown> = {};
  for (const [name, declaration] of template.parameters) {
    const property = context.resource.properties[name];
    const value =
      options.overrides[name] ??
      (property !== undefined && property !== null && typeof property !== 'object' ? property : undefined) ??
      options.defaults[name] ??
      options.generated[name];
    if (value === undefined) continue; // its Default, or the deploy says it is missing
    parameters[name] = declaration.type === 'String' && typeof value !== 'string' ? String(value) : value;
  }
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i]!;
    const name = written.names[i];
    if (name !== undefined && (d.kind === 'secret' || d.kind === 'text')) parameters[name] = d.value;
  }
  return { text: written.text, parameters, spec };
}

/** What a symbolic text depends on: each read's kind (undefined when one is written in whole). */
function shapeOf(decisions: readonly Decision[]): string | undefined {
  let shape = '';
  for (let i = 0; i < decisions.length; i++) {
    const d = decisions[i]!;
    if (d.kind === 'value') return undefined;
    shape += `${i === 0 ? '' : '|'}${d.kind === 'secret' ? `s:${d.key}` : d.kind === 'none' ? 'n' : 't'}`;
  }
  return shape;
}

/**
 * What one context read becomes: a NoEcho parameter (one per path); no value (`AWS::NoValue`, or ''
 * in a Sub); text (a parameter when symbolic, else written in); a value written in whole.
 */
type Decision =
  | { kind: 'secret'; key: string; value: string }
  | { kind: 'none' }
  | { kind: 'text'; value: string }
  | { kind: 'value'; value: unknown };

/** A bound template's text, and the parameter each context read became (undefined: written in). */
interface Written {
  text: string;
  names: (string | undefined)[];
}

/** The template with each read replaced as `decisions` say, and the parameters declared for them. */
function write(
  doc: Record<string, unknown>,
  decisions: readonly Decision[],
  symbolic: boolean,
  taken: Iterable<string>,
): Written {
  const used = new Set(taken);
  const fresh = (prefix: string) => {
    let n = 0;
    return () => {
      let name: string;
      do name = `${prefix}${++n}`;
      while (used.has(name));
      used.add(name);
      return name;
    };
  };
  const secretName = fresh(SECRET_PREFIX);
  const valueName = fresh(VALUE_PREFIX);
  const secrets = new Map<string, string>();
  const declared: Record<string, unknown> = {};
  const names: (string | undefined)[] = [];
  let i = 0;
  const bound = rewriteContext(
    doc,
    (use) => {
      const d = decisions[i++]!;
      switch (d.kind) {
        case 'secret': {
          let name = secrets.get(d.key);
          if (name === undefined) {
            secrets.set(d.key, (name = secretName()));
            declared[name] = { Type: 'String', NoEcho: true };
          }
          names.push(name);
          return { Ref: name };
        }
        case 'none':
          names.push(undefined);
          return use.inSub ? '' : { Ref: 'AWS::NoValue' };
        case 'text': {
          if (!symbolic) {
            names.push(undefined);
            return d.value;
          }
          const name = valueName();
          declared[name] = { Type: 'String' };
          names.push(name);
          return { Ref: name };
        }
        case 'value':
          names.push(undefined);
          return structuredClone(d.value);
      }
    },
    fresh(VARIABLE_PREFIX),
  );
  const all = { ...((bound.Parameters as Record<string, unknown> | undefined) ?? {}), ...declared };
  if (Object.keys(all).length > 0) bound.Parameters = all;
  return { text: JSON.stringify(bound), names };
}

/** The context reads of a recipe's document (its templates are read once per text: parsed.ts). */
const uses = new WeakMap<object, ContextUse[]>();
function usesOf(doc: Record<string, unknown>): ContextUse[] {
  let found = uses.get(doc);
  if (!found) uses.set(doc, (found = contextUses(doc)));
  return found;
}

/** Whether each context read of a recipe's document reads a secret, by document and type (both unchanging). */
const secrecy = new WeakMap<object, WeakMap<ResourceType, boolean[]>>();
function secretUses(type: ResourceType, doc: object, found: readonly ContextUse[]): boolean[] {
  let byType = secrecy.get(doc);
  if (!byType) secrecy.set(doc, (byType = new WeakMap()));
  let secret = byType.get(type);
  if (!secret) byType.set(type, (secret = found.map((use) => pathInfo(type, use.path)?.secret === true)));
  return secret;
}

/** Symbolic texts of a recipe's document by shape, most recently used last. */
const shapes = new WeakMap<object, Map<string, Written>>();
const SHAPES_KEPT = 16;
function shapesOf(doc: object): Map<string, Written> {
  let kept = shapes.get(doc);
  if (!kept) shapes.set(doc, (kept = new Map()));
  return kept;
}
function keep(kept: Map<string, Written>, shape: string, written: Written): void {
  kept.set(shape, written);
  for (const oldest of kept.keys()) {
    if (kept.size <= SHAPES_KEPT) break;
    kept.delete(oldest);
  }
}

/** Pointer of a property path, for messages. */
export function shownPath(path: string[]): string {
  return path.map(escapePointerToken).join('.');
}
