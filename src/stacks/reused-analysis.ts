/**
 * @module An analysis kept per template text and bound again to each use's parameter values: for a
 * caller that evaluates one text many times with only the values changing (a recipe's instances,
 * whose context reads it binds as parameters: src/recipes). What the analysis finds of the text
 * itself — its types, references, graph and order, its NoEcho parameters — is found once; each use
 * checks its values again as the template declares them (resolveParameters, the template's Rules)
 * and takes them. The values a resource is given are not checked against its type's schema here:
 * its create checks them. A text with a Transform (expanded with the values), an SSM parameter type
 * or an import (read per deployment) is analysed anew each time, as is one whose types were
 * registered again since.
 */
import { withMembers } from '../members.js';
import { hasErrors } from '../schema/index.js';
import type { Analysis } from './analyze.js';
import type { StacksCore } from './core.js';
import { importsAnything } from './imports.js';
import { resolveParameters } from './parameters.js';
import type { Authorize } from './reach.js';
import { secretTexts } from './secrets.js';
import { assertStackName } from './status.js';
import { checkTemplateRules } from './template-rules.js';
import { analyzeForStack } from './validate.js';

/** Texts kept per server, most recently used last: a few recipe versions serve every instance. */
const KEPT = 32;
/** A larger text is analysed each time (and not held). */
const MAX_TEXT = 256 * 1024;
const kept = new WeakMap<StacksCore, Map<string, Analysis>>();

/** `analyzeForStack`, with what the text alone decides found once per text (see the module's description). */
export async function reusedAnalysis(
  core: StacksCore,
  name: string,
  text: string,
  parameters: Record<string, unknown>,
  authorize: Authorize,
): Promise<Analysis> {
  let texts = kept.get(core);
  if (!texts) kept.set(core, (texts = new Map()));
  const base = texts.get(text);
  if (base) {
    // Most recently used last (at once: other uses of the text may come while this one waits).
    texts.delete(text);
    texts.set(text, base);
    const bound = await rebound(core, base, name, parameters);
    if (bound) return bound;
    if (texts.get(text) === base) texts.delete(text);
  }
  const analysis = await analyzeForStack(core, name, text, parameters, authorize);
  if (text.length <= MAX_TEXT && reusable(analysis)) {
    // Kept without this use's values (a NoEcho one among them): each use binds its own.
    texts.set(text, { ...analysis, parameters: new Map(), secretValues: [], warnings: [] });
    for (const oldest of texts.keys()) {
      if (texts.size <= KEPT) break;
      texts.delete(oldest);
    }
  }
  return analysis;
}

/** What a deployment reads anew each time (values a transform expands, the parameter store, exports) is not kept. */
function reusable(analysis: Analysis): boolean {
  const root = analysis.template.document.value as Record<string, unknown>;
  return (
    root.Transform === undefined &&
    (analysis.resolvedParameters?.length ?? 0) === 0 &&
    analysis.secretImports.size === 0 &&
    !importsAnything(analysis.template)
  );
}

/**
 * `base` bound to `parameters`; undefined when anything it found may no longer hold (a type
 * registered again) or the values are refused (the full analysis then says where and why).
 */
async function rebound(
  core: StacksCore,
  base: Analysis,
  name: string,
  parameters: Record<string, unknown>,
): Promise<Analysis | undefined> {
  assertStackName(name);
  const types = core.ctx.types;
  for (const resource of base.resources.values()) {
    const typeName = resource.compiled.type.typeName;
    if ((types.now?.(typeName) ?? (await types.get(typeName))) !== resource.compiled) return undefined;
  }
  const resolved = resolveParameters(base.template, parameters);
  if (resolved.missing.length > 0 || hasErrors(resolved.diagnostics)) return undefined;
  const root = base.template.document.value as Record<string, unknown>;
  if (checkTemplateRules(root.Rules, base.template.parameters, resolved.values).length > 0) return undefined;
  // Copied with withMembers, not spread and added to: once per instance of a recipe (src/members.ts).
  return withMembers(base, {
    parameters: resolved.values,
    secretValues: secretTexts(resolved.values, base.secretParameters),
    resolvedParameters: [],
    warnings: [],
  });
}
