/**
 * @module The top-level properties Radius gives a meaning of its own: its base properties
 * (`application`, `environment`, `connections`, `codeReference`) and the name it reserves (`recipe`;
 * it reserves `status` too, which the Radius schema design declares as a type's read-only output).
 *
 * Radius merges the base properties into every schema and requires `environment`. Typeplane adds a
 * base property when a schema requires it without declaring it, and gives a type with the
 * `SupportsRecipes` capability those a recipe reads (see docs/radius-differences.md); a schema that
 * declares one must give it the shape Radius gives it.
 */
import type { JsonSchema } from '../model.js';

/** Radius's base properties, as draft-07 schemas of the model. */
export const BASE_PROPERTIES: Readonly<Record<string, Readonly<JsonSchema>>> = {
  application: {
    type: 'string',
    description: 'The identifier of the application this resource belongs to.',
  },
  environment: {
    type: 'string',
    description: 'The identifier of the environment this resource is deployed into.',
  },
  connections: {
    type: 'object',
    description: 'Connections to other resources, by connection name.',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['source'],
      properties: {
        source: { type: 'string', description: 'The identifier of the connected resource.' },
        disableDefaultEnvVars: {
          type: 'boolean',
          description:
            "Whether to leave out the environment variables made from the connected resource's properties.",
        },
      },
    },
  },
  codeReference: {
    type: 'string',
    description: 'A URI of the source code of this resource.',
  },
};

export const isBaseProperty = (name: string): boolean => Object.hasOwn(BASE_PROPERTIES, name);

/** Base properties that must be strings when a schema declares them. */
export const STRING_BASE_PROPERTIES: ReadonlySet<string> = new Set([
  'application',
  'environment',
  'codeReference',
]);

/** Base property that must be a map (an object with `additionalProperties`). */
export const CONNECTIONS_PROPERTY = 'connections';

/** Reserved by Radius for what it reports itself. */
export const RECIPE_PROPERTY = 'recipe';

/**
 * What a type that declares the `SupportsRecipes` capability gets besides its own properties, as
 * Radius gives its portable resources: the environment and application it belongs to (the
 * environment chooses the recipe), and which recipe to run with what parameters (`recipe.name`, a
 * recipe of the environment's; `recipe.parameters`, over the environment's defaults).
 */
export const RECIPE_BASE_PROPERTIES: Readonly<Record<string, Readonly<JsonSchema>>> = {
  environment: BASE_PROPERTIES.environment!,
  application: BASE_PROPERTIES.application!,
  [RECIPE_PROPERTY]: {
    type: 'object',
    description:
      "The recipe that provisions this resource: one of its environment's, and parameters over the environment's defaults.",
    additionalProperties: false,
    properties: {
      name: {
        type: 'string',
        // No `default`: a default would be set on the first update that adds `recipe`, a change of
        // this create-only value; left out, the environment's `default` recipe runs.
        description: "The recipe's name in the environment; left out, its recipe called default.",
      },
      parameters: {
        type: 'object',
        description: "Values for the recipe template's parameters, over the environment's defaults.",
        additionalProperties: true,
      },
    },
  },
};

export const SUPPORTS_RECIPES = 'SupportsRecipes';
