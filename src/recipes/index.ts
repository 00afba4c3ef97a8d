/**
 * @module Recipes: a type implemented by a template of other types (Radius recipes, Crossplane
 * compositions, kro graphs), run as stacks. See docs/recipes.md.
 */
export {
  Recipes,
  TEMPLATE_KINDS,
  type RecipesOptions,
  type RecipeView,
  type RegisterInput,
  type UpgradePlan,
} from './recipes.js';
export { RECIPE_RULES, type RecipeRuleId } from './rules.js';
export { RECIPE_PROVIDER_NAME, DEFAULT_ENVIRONMENT, DEFAULT_RECIPE } from './provider.js';
export { isRecipeStack } from './instance-stack.js';
export type { EnvironmentRecord } from './records.js';
