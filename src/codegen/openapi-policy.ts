/**
 * @module The /v1/policies and /v1/hooks part of the OpenAPI document: admission policies and hooks
 * (shapes as docs/policy.md describes them). The documents themselves are an admin's, checked by the
 * server with every problem at its pointer, so their schemas here name the main keys and stay open.
 */
import { body, ERROR_RESPONSES, json, pathParam, ref } from './openapi-parts.js';

type Schema = Record<string, unknown>;

const STRING = { type: 'string' };
const TIME = { type: 'string', format: 'date-time' };
const OPERATIONS = { type: 'array', items: { enum: ['CREATE', 'UPDATE', 'DELETE'] } };
const FAILURE_MODE = { enum: ['FAIL', 'WARN'] };
const HOOK_CONFIGURATION_EXAMPLE =
  '{ "CloudFormationConfiguration": { "HookConfiguration": { "HookInvocationStatus": "ENABLED", "FailureMode": "FAIL", … } } }';

const POLICY = {
  type: 'object',
  description:
    'An admission policy (docs/policy.md): which changes it reviews, its CEL validations and what a failed one does. Checked whole by the server; 400 InvalidRequest names each problem at its pointer.',
  required: ['name', 'match', 'validations', 'action'],
  properties: {
    name: {
      type: 'string',
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      maxLength: 63,
      description: 'A DNS label: lower-case letters, digits and -.',
    },
    description: STRING,
    match: {
      type: 'object',
      properties: {
        types: { type: 'array', items: STRING, description: "Type-name globs ('*' for all)." },
        operations: OPERATIONS,
      },
    },
    matchConditions: {
      type: 'array',
      description: 'CEL expressions that must all be true for the policy to apply.',
      items: { type: 'object', properties: { name: STRING, expression: STRING } },
    },
    validations: {
      type: 'array',
      items: {
        type: 'object',
        properties: { expression: STRING, message: STRING, messageExpression: STRING, reason: STRING },
      },
    },
    action: { enum: ['Deny', 'Warn', 'Audit'] },
    failurePolicy: { enum: ['Fail', 'Ignore'], description: 'What an expression that errors does.' },
    params: { type: 'object', description: 'The parameter object the expressions see as `params`.' },
  },
};

export const POLICY_SCHEMAS: Schema = {
  Policy: POLICY,
  PolicyRecord: {
    type: 'object',
    description: 'A policy as stored: the document, and when and by whom it was set.',
    required: ['policy', 'createdAt', 'updatedAt'],
    properties: {
      policy: ref('Policy'),
      createdAt: TIME,
      updatedAt: TIME,
      updatedBy: { ...STRING, description: 'The id of the token that last set it.' },
    },
  },
  ShownPolicy: {
    allOf: [ref('PolicyRecord')],
    required: ['status'],
    properties: {
      status: {
        type: 'object',
        description:
          'Whether it is in force as written; one that no longer compiles follows its failurePolicy.',
        required: ['inForce'],
        properties: {
          inForce: { type: 'boolean' },
          reason: STRING,
          problems: { type: 'array', items: {} },
          failurePolicy: { enum: ['Fail', 'Ignore'] },
        },
      },
    },
  },
  HookSchema: {
    type: 'object',
    description:
      "A hook's schema, CloudFormation's hook definition (docs/policy.md). Checked whole by the server; 400 InvalidRequest carries the diagnostics (rule, pointer, line, column).",
    required: ['typeName', 'description', 'typeConfiguration', 'handlers'],
    properties: {
      typeName: STRING,
      description: STRING,
      typeConfiguration: { type: 'object', description: "The schema of the hook's settings." },
      handlers: {
        type: 'object',
        description: 'preCreate, preUpdate and/or preDelete, each with targetNames and permissions.',
        additionalProperties: {
          type: 'object',
          properties: {
            targetNames: { type: 'array', items: STRING },
            permissions: { type: 'array', items: STRING },
          },
        },
      },
      additionalProperties: { type: 'boolean' },
    },
  },
  HookSummary: {
    type: 'object',
    description:
      'A hook as listed: what it targets, and whether (and how) it is configured; never its settings.',
    required: ['typeName', 'description', 'registeredAt', 'handlers', 'configured', 'enabled'],
    properties: {
      typeName: STRING,
      description: STRING,
      registeredAt: TIME,
      handlers: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['targetNames'],
          properties: { targetNames: { type: 'array', items: STRING } },
        },
      },
      configured: { type: 'boolean' },
      enabled: { type: 'boolean' },
      failureMode: FAILURE_MODE,
      timeoutSeconds: { type: 'number' },
      targetOperations: {
        type: 'array',
        items: { enum: ['RESOURCE', 'STACK', 'CHANGE_SET', 'CLOUD_CONTROL'] },
      },
    },
  },
  HookConfiguration: {
    type: 'object',
    description: `A hook's configuration, CloudFormation's (docs/policy.md): ${HOOK_CONFIGURATION_EXAMPLE}. Its Properties may hold secrets.`,
    required: ['CloudFormationConfiguration'],
    properties: {
      CloudFormationConfiguration: {
        type: 'object',
        required: ['HookConfiguration'],
        properties: { HookConfiguration: { type: 'object' } },
      },
    },
  },
};

export function policyPaths(): Schema {
  const name = pathParam('name', 'A policy name.');
  const typeName = pathParam('typeName', "A hook's type name, URL-encoded.");
  const yamlOrJson = {
    required: true,
    content: {
      'application/json': { schema: ref('HookSchema') },
      'application/yaml': { schema: { ...STRING, description: 'The schema as YAML.' } },
    },
  };
  const registered = (description: string, outcome: string[]) =>
    json(
      {
        allOf: [ref('HookSummary')],
        required: ['outcome'],
        properties: { outcome: { enum: outcome } },
      },
      description,
    );
  return {
    '/v1/policies': {
      get: {
        operationId: 'listPolicies',
        summary: 'List admission policies (a token scoped to types is refused 403)',
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['policies'],
              properties: { policies: { type: 'array', items: ref('ShownPolicy') } },
            },
            'The policies, each with whether it is in force.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'createPolicy',
        summary:
          'Register a policy (admin; 400 InvalidRequest with each problem at its pointer; 409 AlreadyExists when the name is taken)',
        requestBody: body(ref('Policy')),
        responses: { '201': json(ref('PolicyRecord'), 'Registered.'), ...ERROR_RESPONSES },
      },
    },
    '/v1/policies/{name}': {
      parameters: [name],
      get: {
        operationId: 'describePolicy',
        summary: 'A policy as stored, with whether it is in force (a token scoped to types is refused 403)',
        responses: { '200': json(ref('ShownPolicy'), 'The policy.'), ...ERROR_RESPONSES },
      },
      put: {
        operationId: 'putPolicy',
        summary:
          "Register or replace a policy (admin; a body's name, when given, must be the path's: 400 otherwise)",
        requestBody: body({
          ...POLICY,
          required: ['match', 'validations', 'action'],
          description: "The policy; `name` may be left out (it is the path's).",
        }),
        responses: { '200': json(ref('PolicyRecord'), 'Set.'), ...ERROR_RESPONSES },
      },
      delete: {
        operationId: 'deletePolicy',
        summary: 'Delete a policy (admin)',
        responses: { '204': { description: 'Deleted.' }, ...ERROR_RESPONSES },
      },
    },
    '/v1/hooks': {
      get: {
        operationId: 'listHooks',
        summary: 'List hooks (admin)',
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['hooks'],
              properties: { hooks: { type: 'array', items: ref('HookSummary') } },
            },
            'The hooks.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'registerHook',
        summary:
          "Register or replace a hook's schema, JSON or YAML (admin; 400 InvalidRequest whose details are the diagnostics)",
        requestBody: yamlOrJson,
        responses: {
          '201': registered('Registered, or replaced by a new schema.', ['registered', 'updated']),
          '200': registered('Unchanged: the same schema is registered.', ['unchanged']),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/hooks/{typeName}': {
      parameters: [typeName],
      get: {
        operationId: 'describeHook',
        summary: 'A hook with its schema (admin)',
        responses: {
          '200': json(
            {
              allOf: [ref('HookSummary')],
              required: ['schema'],
              properties: { schema: ref('HookSchema') },
            },
            'The hook.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      delete: {
        operationId: 'deregisterHook',
        summary: 'Deregister a hook, its configuration with it (admin)',
        responses: { '204': { description: 'Deregistered.' }, ...ERROR_RESPONSES },
      },
    },
    '/v1/hooks/{typeName}/configuration': {
      parameters: [typeName],
      put: {
        operationId: 'configureHook',
        summary:
          "Set a hook's configuration (admin; 400 InvalidRequest naming each problem by pointer, never by value)",
        requestBody: body(ref('HookConfiguration')),
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['typeName', 'configured', 'enabled', 'failureMode', 'updatedAt'],
              properties: {
                typeName: STRING,
                configured: { const: true },
                enabled: { type: 'boolean' },
                failureMode: FAILURE_MODE,
                updatedAt: TIME,
              },
            },
            'Configured.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      get: {
        operationId: 'describeHookConfiguration',
        summary: "A hook's configuration as set, secrets included (admin; 404 when it has none)",
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['typeName', 'configured', 'updatedAt', 'configuration'],
              properties: {
                typeName: STRING,
                configured: { const: true },
                updatedAt: TIME,
                configuration: ref('HookConfiguration'),
              },
            },
            'The configuration.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
  };
}
