/**
 * @module The type `typeplane test --api` tests, as the server has it registered (GET
 * /v1/types/:typeName), and the inputs it can serve.
 *
 * A type recipes implement takes only some of the values its schema allows: an instance's
 * `environment` must name an environment with a recipe for the type, and its `recipe` must name one of
 * that environment's recipes, with that recipe's parameters. Inputs generated from the bare schema
 * would mostly name neither, and every create would fail for the server's configuration rather than
 * for the contract; so the inputs name only environments whose default recipe serves the type, and set
 * no `recipe` (a resource that names none runs its environment's default). The notes say so.
 */
import type { ResourceType } from '../schema/index.js';
import type { ApiCall } from './api-provider.js';

/** What the server answers for a type (GET /v1/types/:typeName), the fields a ResourceType has. */
type TypeDetail = Omit<ResourceType, 'source'>;

interface RecipeEntry {
  environment: string;
  name: string;
}

const DEFAULT = 'default';
const ENVIRONMENT = '/properties/environment';

/** The registered type (its default version), with its inputs narrowed to what the server serves. */
export async function apiType(
  call: ApiCall,
  typeName: string,
  endpoint: string,
): Promise<{ type: ResourceType; notes: string[] }> {
  const detail = (await call('GET', `/v1/types/${encodeURIComponent(typeName)}`)) as TypeDetail;
  const type: ResourceType = {
    typeName: detail.typeName,
    ...(detail.apiVersion !== undefined ? { apiVersion: detail.apiVersion } : {}),
    dialect: detail.dialect,
    description: detail.description,
    schema: detail.schema,
    primaryIdentifier: detail.primaryIdentifier,
    additionalIdentifiers: detail.additionalIdentifiers,
    readOnlyProperties: detail.readOnlyProperties,
    writeOnlyProperties: detail.writeOnlyProperties,
    createOnlyProperties: detail.createOnlyProperties,
    conditionalCreateOnlyProperties: detail.conditionalCreateOnlyProperties,
    deprecatedProperties: detail.deprecatedProperties,
    handlers: detail.handlers,
    traits: detail.traits,
    ...(detail.typeConfiguration ? { typeConfiguration: detail.typeConfiguration } : {}),
    source: `${endpoint} (${typeName})`,
  };
  let recipes: RecipeEntry[];
  try {
    const answer = (await call('GET', `/v1/recipes?typeName=${encodeURIComponent(typeName)}`)) as {
      recipes: RecipeEntry[];
    };
    recipes = answer.recipes;
  } catch {
    // A server without recipes (or a token that may not see them): the schema as it is.
    return { type, notes: [] };
  }
  if (recipes.length === 0) return { type, notes: [] };
  return narrowForRecipes(type, recipes);
}

function narrowForRecipes(
  type: ResourceType,
  recipes: RecipeEntry[],
): { type: ResourceType; notes: string[] } {
  const schema = structuredClone(type.schema) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const properties = schema.properties ?? {};
  const notes: string[] = [];
  const environments = [
    ...new Set(recipes.filter((r) => r.name === DEFAULT).map((r) => r.environment)),
  ].sort();
  if (properties.environment && environments.length > 0) {
    properties.environment = { ...properties.environment, enum: environments };
    // Without one, a resource goes to the default environment: it must then have a default recipe.
    if (!environments.includes(DEFAULT))
      schema.required = [...new Set([...(schema.required ?? []), 'environment'])];
    notes.push(
      `${type.typeName} is implemented by recipes: inputs name only environments whose default recipe serves it (${environments.join(', ')}), and an update keeps the environment (an instance stays where it was made)`,
    );
  }
  const recipePointer = '/properties/recipe';
  if (properties.recipe && !(schema.required ?? []).includes('recipe')) {
    delete properties.recipe;
    notes.push(
      'inputs set no recipe property: its name and parameters must be those of a registered recipe, so each resource runs its environment’s default recipe',
    );
  }
  const kept = (pointers: string[]) =>
    pointers.filter((p) => properties.recipe || (p !== recipePointer && !p.startsWith(`${recipePointer}/`)));
  return {
    type: {
      ...type,
      schema: schema as ResourceType['schema'],
      readOnlyProperties: kept(type.readOnlyProperties),
      writeOnlyProperties: kept(type.writeOnlyProperties),
      // An instance keeps its environment: update inputs must too.
      createOnlyProperties: [
        ...new Set([...kept(type.createOnlyProperties), ...(properties.environment ? [ENVIRONMENT] : [])]),
      ],
      conditionalCreateOnlyProperties: kept(type.conditionalCreateOnlyProperties),
      deprecatedProperties: kept(type.deprecatedProperties),
    },
    notes,
  };
}
