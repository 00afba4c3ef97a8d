/**
 * @module The /v1/environments and /v1/recipes part of the OpenAPI document, with what a recipe's
 * instance adds to /v1/resources: its drift and its upgrade (shapes as docs/api.md describes them).
 */
import { body, ERROR_RESPONSES, json, pathParam, ref, verdict, WAIT } from './openapi-parts.js';
import { PLANNED_CHANGE, RESOURCE_DRIFT } from './openapi-stacks.js';

type Schema = Record<string, unknown>;

const STRING = { type: 'string' };
const TIME = { type: 'string', format: 'date-time' };
const NAME = {
  type: 'string',
  pattern: '^[A-Za-z][A-Za-z0-9-]{0,62}$',
  description: 'A letter, then letters, digits and -, at most 63.',
};
const DIAGNOSTICS = { type: 'array', items: ref('RecipeDiagnostic') };
const ENVIRONMENT_PROPERTIES = { name: NAME, description: STRING, createdAt: TIME, updatedAt: TIME };

export const RECIPE_SCHEMAS: Schema = {
  Environment: {
    type: 'object',
    required: ['name', 'createdAt', 'updatedAt'],
    properties: ENVIRONMENT_PROPERTIES,
  },
  RecipeDiagnostic: {
    type: 'object',
    description: "A problem of a recipe's template (TP4xxx) or of how it fits its type (TP7xxx).",
    required: ['severity', 'rule', 'message', 'pointer'],
    properties: {
      severity: { enum: ['error', 'warning'] },
      rule: STRING,
      message: STRING,
      pointer: { ...STRING, description: 'A JSON Pointer into the template.' },
      file: STRING,
      line: { type: 'integer', minimum: 1 },
      column: { type: 'integer', minimum: 1 },
    },
  },
  RecipeView: {
    type: 'object',
    required: [
      'environment',
      'typeName',
      'name',
      'version',
      'latest',
      'templateKind',
      'templatePath',
      'parameters',
      'registeredAt',
    ],
    properties: {
      environment: STRING,
      typeName: STRING,
      name: STRING,
      version: { type: 'integer', minimum: 1 },
      latest: { type: 'integer', minimum: 1, description: 'The version new instances run.' },
      templateKind: STRING,
      templatePath: { ...STRING, description: 'The template file registered (`file`).' },
      parameters: { type: 'object', description: "The environment's defaults; NoEcho ones as ****." },
      types: {
        type: 'array',
        items: STRING,
        description: 'The types the recipe makes; absent for a token that does not reach them all.',
      },
      registeredAt: TIME,
      registeredBy: { ...STRING, description: 'The id of the token that registered it.' },
      template: {
        ...STRING,
        description:
          "GET /v1/recipes/{environment}/{typeName}/{name} only: the template's text, for a token that reaches every type it makes.",
      },
    },
  },
  RecipeRequest: {
    type: 'object',
    required: ['typeName', 'template'],
    properties: {
      typeName: { ...STRING, description: 'The type the recipe implements.' },
      template: {
        type: 'string',
        minLength: 1,
        description: "The template's text (the CloudFormation format, JSON or YAML).",
      },
      file: { ...STRING, minLength: 1, description: "The template's path, kept as templatePath." },
      name: { ...NAME, description: 'The recipe name (default `default`).' },
      environment: { ...NAME, description: 'The environment (default `default`).' },
      parameters: {
        type: 'object',
        description: "The environment's defaults for the template's parameters.",
      },
      templateKind: { enum: ['cloudformation'] },
    },
  },
};

export function recipePaths(): Schema {
  const environment = pathParam('environment', 'An environment name.');
  const typeName = pathParam(
    'typeName',
    "A type name, URL-encoded ('MyCompany.Resources%2FpostgresDatabases').",
  );
  const identifier = pathParam('identifier', 'The primary identifier (URL-encoded).');
  const recipe = [environment, typeName, pathParam('name', "The recipe name ('default' unless named).")];
  const instance = [typeName, identifier];
  return {
    '/v1/environments': {
      get: {
        operationId: 'listEnvironments',
        summary: 'List environments (`default` among them)',
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['environments'],
              properties: { environments: { type: 'array', items: ref('Environment') } },
            },
            'The environments.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'createEnvironment',
        summary: 'Create an environment (admin; 409 AlreadyExists)',
        requestBody: body({
          type: 'object',
          required: ['name'],
          properties: { name: NAME, description: STRING },
        }),
        responses: { '201': json(ref('Environment'), 'Created.'), ...ERROR_RESPONSES },
      },
    },
    '/v1/environments/{name}': {
      parameters: [pathParam('name', 'An environment name.')],
      get: {
        operationId: 'describeEnvironment',
        summary: 'An environment with the latest version of each of its recipes the token reaches',
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['name', 'createdAt', 'updatedAt', 'recipes'],
              properties: {
                ...ENVIRONMENT_PROPERTIES,
                recipes: { type: 'array', items: ref('RecipeView') },
              },
            },
            'The environment.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      delete: {
        operationId: 'deleteEnvironment',
        summary: 'Delete an environment (admin; 409 ResourceConflict while it has recipes)',
        responses: { '204': { description: 'Deleted.' }, ...ERROR_RESPONSES },
      },
    },
    '/v1/recipes': {
      get: {
        operationId: 'listRecipes',
        summary: 'The latest version of each recipe of the types the token reaches',
        parameters: [
          { name: 'environment', in: 'query', schema: STRING },
          { name: 'typeName', in: 'query', schema: STRING },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['recipes'],
              properties: { recipes: { type: 'array', items: ref('RecipeView') } },
            },
            'The recipes.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'registerRecipe',
        summary:
          'Register a recipe (admin): a new version, or none when it is the latest again; 400 InvalidRequest whose details are the diagnostics when it does not fit the type',
        requestBody: body(ref('RecipeRequest')),
        responses: {
          ...registered('201', 'Registered: a new version (diagnostics are warnings).'),
          ...registered('200', 'Unchanged: the latest version is the same (created is false).'),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/recipes/check': {
      post: {
        operationId: 'checkRecipe',
        summary:
          "Check a recipe against its type (admin; registers nothing; its template's problems are diagnostics, never a 400)",
        requestBody: body(ref('RecipeRequest')),
        responses: {
          '200': json(verdict(ref('RecipeDiagnostic')), 'The verdict.'),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/recipes/{environment}/{typeName}/{name}': {
      parameters: recipe,
      get: {
        operationId: 'describeRecipe',
        summary: 'A recipe with its template (the latest version, or ?version=)',
        parameters: [
          {
            name: 'version',
            in: 'query',
            description: 'A version of the recipe (1, 2, …).',
            schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' },
          },
        ],
        responses: { '200': json(ref('RecipeView'), 'The recipe.'), ...ERROR_RESPONSES },
      },
      delete: {
        operationId: 'deleteRecipe',
        summary: 'Delete a recipe (admin): new instances cannot use it, those it made keep their version',
        responses: { '204': { description: 'Deleted.' }, ...ERROR_RESPONSES },
      },
    },
    '/v1/resources/{typeName}/{identifier}/drift': {
      parameters: instance,
      get: {
        operationId: 'recipeInstanceDrift',
        summary:
          'How the resources a recipe made for an instance differ from what it applied (404 for a resource no recipe made)',
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['typeName', 'identifier', 'status', 'resources'],
              properties: {
                typeName: STRING,
                identifier: STRING,
                status: { enum: ['IN_SYNC', 'DRIFTED'] },
                resources: {
                  type: 'array',
                  description:
                    'One of a type the token does not reach: logicalId, status and its differences (values ****) only.',
                  items: { ...RESOURCE_DRIFT, required: ['logicalId', 'status', 'differences'] },
                },
              },
            },
            'The drift.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/resources/{typeName}/{identifier}/upgrade': {
      parameters: instance,
      get: {
        operationId: 'planRecipeUpgrade',
        summary: "The plan of moving an instance to its recipe's latest version (changes nothing)",
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['typeName', 'identifier', 'recipe', 'environment', 'from', 'to', 'changes'],
              properties: {
                typeName: STRING,
                identifier: STRING,
                recipe: STRING,
                environment: STRING,
                from: { type: 'integer', minimum: 1 },
                to: { type: 'integer', minimum: 1 },
                changes: {
                  type: 'array',
                  description: 'One of a type the token does not reach: logicalId and action only.',
                  items: { ...PLANNED_CHANGE, required: ['logicalId', 'action'] },
                },
              },
            },
            'The plan.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'upgradeRecipeInstance',
        summary:
          "Move an instance to its recipe's latest version: an UPDATE with an empty patch (400 InvalidRequest when it runs the latest already)",
        parameters: [WAIT],
        responses: { '202': json(ref('Accepted'), 'The update began.'), ...ERROR_RESPONSES },
      },
    },
  };
}

/** POST /v1/recipes's answer, `created` telling a new version from the latest again. */
function registered(status: '200' | '201', description: string): Schema {
  return {
    [status]: json(
      {
        type: 'object',
        required: ['recipe', 'created', 'diagnostics'],
        properties: {
          recipe: ref('RecipeView'),
          created: { const: status === '201' },
          diagnostics: DIAGNOSTICS,
        },
      },
      description,
    ),
  };
}
