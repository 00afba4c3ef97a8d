/**
 * @module An instance's stack, as every stage of a recipe-backed type's handlers sees it: its name
 * (one per type and identifier), the caller and grants its recipe deploys with, the template and
 * parameters it is bound to, its deployment ids, the recipe version it runs, and the stack itself as
 * described.
 */
import { hash } from 'node:crypto';
import { callerOf } from '../auth/index.js';
import type { Caller } from '../engine/index.js';
import { TypeplaneError } from '../errors.js';
import type { Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { StackView, Stacks } from '../stacks/index.js';
import { bindRecipe, type Bound } from './bind.js';
import { applicationOf, type RecipeContext } from './context.js';
import type { InstanceRecord, RecipeStore, RecipeVersion } from './records.js';

/** The statuses of a stack whose deployment ended well. */
export const DONE = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE']);

/** The instance's stack: one per (type, identifier), a name no template chooses by chance. */
export function stackNameOf(typeName: string, identifier: string): string {
  return `tp-recipe-${hash('sha256', `${typeName}\n${identifier}`, 'hex').slice(0, 32)}`;
}

/** Whether a stack name is one of an instance's (reserved: no one deploys to it directly). */
export function isRecipeStack(name: string): boolean {
  return name.startsWith('tp-recipe-');
}

/**
 * An instance's stack deploys as its recipe: admission policies see role `recipe` (and the instance's
 * stack); the instance's own create or update was reviewed as the token that asked for it.
 */
export function callerFor(version: RecipeVersion): {
  id: string;
  types: string[];
  role: string;
  description: string;
} {
  return {
    id: `recipe:${version.environment}/${version.typeName}/${version.name}@${version.version}`,
    types: version.grants,
    role: 'recipe',
    description: `recipe ${version.name}@${version.version} of environment ${version.environment}`,
  };
}

/** The stacks' authorizer for a recipe: it may use exactly the types it was registered with. */
export function grantsOf(version: RecipeVersion): (typeNames: string[]) => void {
  return (typeNames) => {
    for (const t of typeNames)
      if (!version.grants.includes(t))
        throw new TypeplaneError(
          'AccessDenied',
          `recipe ${version.name}@${version.version} was registered to make ${version.grants.join(', ') || 'nothing'}, not ${t}; register it again`,
        );
  };
}

/** The engine's caller a recipe's own operations run as, for the instance's stack `stack`. */
export function engineCallerFor(version: RecipeVersion, stack: string): Caller {
  const asked = callerFor(version);
  return callerOf(Object.assign({ tokenId: asked.id }, asked, { stack }));
}

/**
 * The template and parameters an instance's stack gets from `version` of its recipe: what a deploy
 * applies, and what an upgrade's plan shows (the same binding, so the plan is what will happen).
 */
export function bindInstance(
  type: ResourceType,
  record: InstanceRecord,
  version: RecipeVersion,
  desired: Model,
  /** Context text as parameters (bind.ts): one template text for many instances, analysed once. */
  symbolic = false,
): Bound {
  const application = applicationOf(desired);
  const recipe = desired.recipe;
  const overrides =
    typeof recipe === 'object' && recipe !== null && !Array.isArray(recipe)
      ? (recipe as { parameters?: unknown }).parameters
      : undefined;
  const context: RecipeContext = {
    resource: {
      name: record.identifier,
      id: `${type.typeName}/${record.identifier}`,
      type: type.typeName,
      properties: desired,
    },
    environment: { name: record.environment },
    application: application !== undefined ? { name: application } : {},
    recipe: { name: record.recipe, version: version.version },
  };
  return bindRecipe({
    template: version.template,
    type,
    context,
    defaults: version.parameters,
    generated: record.generated,
    overrides:
      typeof overrides === 'object' && overrides !== null && !Array.isArray(overrides)
        ? (overrides as Record<string, unknown>)
        : {},
    symbolic,
  });
}

/** A deployment's id derived from the instance's stack and the create's client token: the same when run again. */
export function deploymentIdOf(stack: string, token: string): string {
  const h = hash('sha256', `${stack}\n${token}`, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The recipe version `record` runs (or `version` of its recipe); one missing from the store is a failure. */
export async function versionOf(
  records: RecipeStore,
  record: InstanceRecord,
  version = record.version,
): Promise<RecipeVersion> {
  const found = await records.getVersion(record.environment, record.typeName, record.recipe, version);
  if (!found)
    throw new TypeplaneError(
      'InternalFailure',
      `recipe ${record.recipe}@${version} of environment ${record.environment} is missing from the store`,
    );
  return found;
}

/** The stack named `name` as described, or undefined when there is none. */
export async function describedOrNone(stacks: Stacks, name: string): Promise<StackView | undefined> {
  try {
    return await stacks.describe(name);
  } catch (e) {
    if (e instanceof TypeplaneError && e.code === 'NotFound') return undefined;
    throw e;
  }
}
