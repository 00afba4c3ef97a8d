/**
 * @module Binding a recipe to one instance: the template the instance's stack deploys (every context
 * read replaced by the instance's value, secrets by NoEcho parameters) and the parameters it gets.
 * Pure and deterministic: bound again after a crash, it gives the same text and parameters, so the
 * stack's client token replays the deployment instead of making another.
 */
import { HandlerError } from '../handler/types.js';
import type { ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { loadRecipeTemplate } from './parsed.js';
import { CONTEXT, pathInfo, valueAt, type RecipeContext } from './context.js';
import { activePart, rewriteContext } from './rewrite.js';
import type { RecipeSpec } from './spec.js';
import { readSpec } from './spec.js';

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
  const taken = new Set([...template.parameters.keys(), ...template.resources.keys()]);
  const fresh = (prefix: string) => {
    let n = 0;
    return () => {
      let name: string;
      do name = `${prefix}${++n}`;
      while (taken.has(name));
      taken.add(name);
      return name;
    };
  };
  const secretName = fresh(SECRET_PREFIX);
  const secrets = new Map<string, { name: string; value: string }>();
  const valueName = fresh(VALUE_PREFIX);
  const values: { name: string; value: string }[] = [];
  const bound = rewriteContext(
    doc,
    (use) => {
      const shown = `${CONTEXT}.${use.path.join('.')}`;
      const value = valueAt(context, type, use.path);
      if (pathInfo(type, use.path)?.secret) {
        if (value === undefined) return use.inSub ? '' : { Ref: 'AWS::NoValue' };
        const key = use.path.join('.');
        let secret = secrets.get(key);
        if (!secret) {
          secret = { name: secretName(), value: typeof value === 'string' ? value : JSON.stringify(value) };
          secrets.set(key, secret);
        }
        return { Ref: secret.name };
      }
      if (value === undefined || value === null) return use.inSub ? '' : { Ref: 'AWS::NoValue' };
      const active = activePart(value);
      if (active !== undefined)
        throw new HandlerError(
          'InvalidRequest',
          `${shown} holds an object a template would run as a function (at ${active}): a recipe does not take such values; rename that key`,
        );
      const text = use.inSub ? (typeof value === 'object' ? JSON.stringify(value) : String(value)) : value;
      if (options.symbolic && typeof text === 'string') {
        const name = valueName();
        values.push({ name, value: text });
        return { Ref: name };
      }
      return typeof text === 'string' ? text : structuredClone(value);
    },
    fresh(VARIABLE_PREFIX),
  );
  const spec = readSpec(doc).spec;
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
  const declared = { ...((bound.Parameters as Record<string, unknown> | undefined) ?? {}) };
  for (const secret of secrets.values()) {
    declared[secret.name] = { Type: 'String', NoEcho: true };
    parameters[secret.name] = secret.value;
  }
  for (const { name, value } of values) {
    declared[name] = { Type: 'String' };
    parameters[name] = value;
  }
  if (Object.keys(declared).length > 0) bound.Parameters = declared;
  return { text: JSON.stringify(bound), parameters, spec };
}

/** Pointer of a property path, for messages. */
export function shownPath(path: string[]): string {
  return path.map(escapePointerToken).join('.');
}
