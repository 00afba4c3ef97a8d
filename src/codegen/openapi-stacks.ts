/**
 * @module The /v1/stacks part of the OpenAPI document: validate, deploy, describe, list, events,
 * outputs, drift, plans and their application, delete (shapes as docs/api.md describes them).
 */
import { body, ERROR_RESPONSES, json, PAGE, pathParam, ref, verdict, WAIT, WATCH } from './openapi-parts.js';

type Schema = Record<string, unknown>;

const STRING = { type: 'string' };
const STACK_STATUS = {
  enum: [
    'CREATE_IN_PROGRESS',
    'CREATE_COMPLETE',
    'CREATE_FAILED',
    'ROLLBACK_IN_PROGRESS',
    'ROLLBACK_COMPLETE',
    'ROLLBACK_FAILED',
    'UPDATE_IN_PROGRESS',
    'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS',
    'UPDATE_COMPLETE',
    'UPDATE_FAILED',
    'UPDATE_ROLLBACK_IN_PROGRESS',
    'UPDATE_ROLLBACK_COMPLETE',
    'UPDATE_ROLLBACK_FAILED',
    'DELETE_IN_PROGRESS',
    'DELETE_FAILED',
    'DELETE_COMPLETE',
  ],
};
const TEMPLATE_PROPERTIES = {
  template: { type: 'string', minLength: 1, description: "The template's text (JSON or YAML)." },
  parameters: { type: 'object', description: 'Parameter names to values.' },
  templates: {
    type: 'object',
    maxProperties: 50,
    additionalProperties: { type: 'string', minLength: 1 },
    description:
      "Nested stacks' templates (AWS::CloudFormation::Stack), by the TemplateURL that names them: packaged with the template (at most 5 levels, 1 MiB in all).",
  },
};
const NO_ROLLBACK = {
  type: 'boolean',
  description: 'Leave what a failed deployment made in place instead of rolling back.',
};

/** One change of a plan: a stack's, or a recipe instance's upgrade. */
export const PLANNED_CHANGE = {
  type: 'object',
  required: ['logicalId', 'type', 'action'],
  properties: {
    logicalId: STRING,
    type: STRING,
    action: STRING,
    identifier: STRING,
    properties: { type: 'object' },
    patch: { type: 'array', items: { type: 'object' } },
    before: {
      type: 'object',
      description: "A Modify's replaced or removed paths (JSON Pointers) and the values they hold now.",
    },
    replacement: {
      type: 'object',
      properties: { properties: { type: 'array', items: STRING }, deleteFirst: { type: 'boolean' } },
    },
    retain: { type: 'boolean' },
    nested: {
      description:
        'A nested stack added or modified: the changes its own deployment would make, or why they are planned only when it is deployed.',
      oneOf: [
        {
          type: 'object',
          required: ['changes'],
          properties: { stackName: STRING, changes: { type: 'array', items: { type: 'object' } } },
        },
        { type: 'object', required: ['notPlanned'], properties: { notPlanned: STRING } },
      ],
    },
  },
};
/** How one resource differs from what was deployed: a stack's, or a recipe instance's. */
export const RESOURCE_DRIFT = {
  type: 'object',
  required: ['logicalId', 'type', 'status', 'differences'],
  properties: {
    logicalId: STRING,
    type: STRING,
    identifier: STRING,
    status: { enum: ['IN_SYNC', 'MODIFIED', 'DELETED'] },
    differences: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'kind'],
        properties: {
          path: STRING,
          expected: {},
          actual: {},
          kind: { enum: ['ADD', 'REMOVE', 'NOT_EQUAL'] },
        },
      },
    },
  },
};

/** CloudFormation's ResourcesToImport: existing resources brought into the stack instead of created. */
const RESOURCES_TO_IMPORT = {
  type: 'array',
  minItems: 1,
  maxItems: 200,
  description:
    'Import these resources (recorded in Typeplane, in no stack; declared with DeletionPolicy Retain) instead of creating them; nothing else may change.',
  items: {
    type: 'object',
    required: ['LogicalResourceId', 'ResourceType', 'ResourceIdentifier'],
    additionalProperties: false,
    properties: {
      LogicalResourceId: STRING,
      ResourceType: STRING,
      ResourceIdentifier: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
};

export const STACK_SCHEMAS: Schema = {
  StackTemplate: { type: 'object', required: ['template'], properties: TEMPLATE_PROPERTIES },
  StackPlanRequest: {
    type: 'object',
    required: ['template'],
    properties: { ...TEMPLATE_PROPERTIES, resourcesToImport: RESOURCES_TO_IMPORT },
  },
  StackDeployRequest: {
    type: 'object',
    required: ['template'],
    properties: {
      ...TEMPLATE_PROPERTIES,
      noRollback: NO_ROLLBACK,
      resourcesToImport: RESOURCES_TO_IMPORT,
      clientToken: {
        type: 'string',
        description: 'The same token with the same body answers the same deployment.',
      },
    },
  },
  StackOutput: {
    type: 'object',
    required: ['name', 'value'],
    properties: { name: STRING, value: {}, description: STRING, exportName: STRING },
  },
  Stack: {
    type: 'object',
    // A deletion that has ended answers only the name and DELETE_COMPLETE.
    required: ['stackName', 'status'],
    properties: {
      stackName: STRING,
      stackId: STRING,
      status: STACK_STATUS,
      statusReason: STRING,
      description: STRING,
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      version: { type: 'integer' },
      deploymentId: { type: 'string', description: 'The deployment running now, if any.' },
      parentId: { type: 'string', description: "A nested stack's parent stack (its stackId)." },
      rootId: { type: 'string', description: "A nested stack's root stack (its stackId)." },
      parameters: { type: 'object', description: 'Parameter values; NoEcho ones as ****.' },
      outputs: { type: 'array', items: ref('StackOutput') },
      resources: {
        type: 'array',
        items: {
          type: 'object',
          required: ['logicalId', 'type', 'status'],
          properties: {
            logicalId: STRING,
            type: STRING,
            identifier: STRING,
            status: STRING,
            updatedAt: { type: 'string', format: 'date-time' },
            dependsOn: {
              type: 'array',
              items: STRING,
              description: 'The logical ids of the resources it depends on (among those shown).',
            },
          },
        },
      },
    },
  },
  StackDeployment: {
    type: 'object',
    required: ['deploymentId', 'startedAt', 'stack'],
    properties: {
      deploymentId: STRING,
      startedAt: { type: 'string', format: 'date-time' },
      stack: ref('Stack'),
    },
  },
  StackPlan: {
    type: 'object',
    required: ['planId', 'stackName', 'createdAt', 'current', 'changes'],
    properties: {
      planId: STRING,
      stackName: STRING,
      createdAt: { type: 'string', format: 'date-time' },
      current: { type: 'boolean', description: 'False once the stack changed since the plan.' },
      diagnostics: {
        type: 'array',
        items: { type: 'object' },
        description: "The template's warnings when it was planned, as validate gives them.",
      },
      resolvedParameters: {
        type: 'array',
        description:
          'Each parameter of an SSM parameter type: the AWS::SSM::Parameter it names and the value read when planned (**** for NoEcho; none for AWS::SSM::Parameter::Name).',
        items: {
          type: 'object',
          required: ['parameter', 'name'],
          properties: { parameter: STRING, name: STRING, value: STRING },
        },
      },
      changes: {
        type: 'array',
        items: PLANNED_CHANGE,
      },
    },
  },
};

export function stackPaths(): Schema {
  const stackName = pathParam('stackName', 'The stack name.');
  const planId = pathParam('planId', 'A plan id, from POST /v1/stacks/{stackName}/plans.');
  const started = (description: string) => ({
    '202': json(ref('StackDeployment'), description),
    ...ERROR_RESPONSES,
  });
  return {
    '/v1/custom-resource-responses/{token}': {
      put: {
        operationId: 'respondToCustomResource',
        security: [],
        summary:
          "A custom resource handler's response, PUT to the ResponseURL of the request it answers (the URL is the credential: one-time, unguessable; any Content-Type, or an empty one as AWS's cfn-response sends)",
        parameters: [pathParam('token', "The ResponseURL's last part.")],
        requestBody: {
          required: true,
          content: {
            '*/*': {
              schema: {
                type: 'object',
                required: ['Status', 'RequestId', 'StackId', 'LogicalResourceId'],
                properties: {
                  Status: { enum: ['SUCCESS', 'FAILED'] },
                  Reason: STRING,
                  PhysicalResourceId: { type: 'string', minLength: 1, maxLength: 1024 },
                  StackId: STRING,
                  RequestId: STRING,
                  LogicalResourceId: STRING,
                  NoEcho: { type: 'boolean' },
                  Data: { type: 'object' },
                },
                description: 'At most 4096 bytes of JSON, as CloudFormation takes.',
              },
            },
          },
        },
        responses: {
          '200': { description: 'Taken: the request it answers goes on.' },
          '400': { $ref: '#/components/responses/Error' },
          '404': { $ref: '#/components/responses/Error' },
          '413': { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/v1/generated-template': {
      get: {
        operationId: 'generateTemplate',
        summary:
          'A template of the resources outside stacks of the types named (among those the caller may read), with the ResourcesToImport that imports them',
        parameters: [
          {
            name: 'types',
            in: 'query',
            required: true,
            description: "Type globs, comma-separated: 'Typeplane::*,AWS::S3::Bucket'.",
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['template', 'resourcesToImport', 'leftOut'],
              properties: {
                template: { type: 'object' },
                resourcesToImport: RESOURCES_TO_IMPORT,
                leftOut: { type: 'array', items: { type: 'object' } },
              },
            },
            'The template.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/stacks/validate': {
      post: {
        operationId: 'validateStack',
        summary: 'Validate a template (its own problems are diagnostics, never a 400)',
        requestBody: body(ref('StackTemplate')),
        responses: {
          '200': json(verdict({ type: 'object' }), 'The verdict.'),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/stacks': {
      get: {
        operationId: 'listStacks',
        summary: 'List stacks (or, with deleted=true, the deleted stacks kept with their events)',
        parameters: [
          ...PAGE,
          {
            name: 'deleted',
            in: 'query',
            description:
              "true: the deleted stacks instead, kept for the server's --deleted-stack-retention (default 90 days), oldest deletion first.",
            schema: { type: 'boolean' },
          },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['stacks', 'nextToken'],
              properties: {
                stacks: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['stackName', 'status', 'updatedAt'],
                    properties: {
                      stackName: STRING,
                      stackId: { ...STRING, description: 'A deleted stack: its id.' },
                      status: STACK_STATUS,
                      updatedAt: { type: 'string', format: 'date-time' },
                      deletedAt: { type: 'string', format: 'date-time' },
                      description: STRING,
                      parentId: { ...STRING, description: "A nested stack's parent stack (its stackId)." },
                      rootId: { ...STRING, description: "A nested stack's root stack (its stackId)." },
                    },
                  },
                },
                nextToken: { type: ['string', 'null'] },
              },
            },
            'A page of stacks.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/stacks/{stackName}': {
      parameters: [stackName],
      put: {
        operationId: 'deployStack',
        summary: 'Create or update a stack',
        parameters: [WAIT],
        requestBody: body(ref('StackDeployRequest')),
        responses: started('The deployment began.'),
      },
      get: {
        operationId: 'describeStack',
        summary: 'Describe a stack',
        responses: { '200': json(ref('Stack'), 'The stack.'), ...ERROR_RESPONSES },
      },
      delete: {
        operationId: 'deleteStack',
        summary: 'Delete a stack and its resources',
        parameters: [WAIT],
        responses: started('The deletion began.'),
      },
    },
    '/v1/stacks/{stackName}/events': {
      parameters: [stackName],
      get: {
        operationId: 'stackEvents',
        summary: "A stack's events, oldest first, or watch them as they are written",
        parameters: [
          ...PAGE,
          ...WATCH.map((p) =>
            p.name === 'resourceVersion'
              ? {
                  ...p,
                  description:
                    'With watch: the events after this one (an eventId, the resourceVersion an event gave); without it or with 0, every event kept, then the new ones. Last-Event-ID does the same for Server-Sent Events.',
                  schema: { type: 'string', pattern: '^[0-9]{1,15}(-[0-9a-f]{8})?$' },
                }
              : p,
          ),
          {
            name: 'after',
            in: 'query',
            description: 'An eventId, or a time in milliseconds: start after it.',
            schema: STRING,
          },
          {
            name: 'stackId',
            in: 'query',
            description:
              'A stack of this name by its id (a deleted one); without it, the live stack, or once deleted the last deleted one.',
            schema: STRING,
          },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['events', 'nextToken'],
              properties: {
                events: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['eventId', 'time', 'logicalId', 'type', 'status'],
                    properties: {
                      eventId: STRING,
                      time: { type: 'string', format: 'date-time' },
                      logicalId: STRING,
                      type: STRING,
                      identifier: STRING,
                      status: STRING,
                      reason: STRING,
                    },
                  },
                },
                nextToken: { type: ['string', 'null'] },
              },
            },
            // The stream is described, not typed: a typed client's answer stays the page's JSON.
            'A page of events. With watch=true, a stream of WatchEvent instead (application/x-ndjson, or text/event-stream whose event ids are the eventIds): each event as ADDED, its eventId its resourceVersion.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/stacks/{stackName}/outputs': {
      parameters: [stackName],
      get: {
        operationId: 'stackOutputs',
        summary: "A stack's outputs",
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['stackName', 'outputs'],
              properties: { stackName: STRING, outputs: { type: 'array', items: ref('StackOutput') } },
            },
            'The outputs.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/stacks/{stackName}/drift': {
      parameters: [stackName],
      get: {
        operationId: 'stackDrift',
        summary: "How a stack's resources differ from what it deployed",
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['stackName', 'status', 'resources'],
              properties: {
                stackName: STRING,
                status: { enum: ['IN_SYNC', 'DRIFTED'] },
                resources: {
                  type: 'array',
                  items: RESOURCE_DRIFT,
                },
              },
            },
            'The drift.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/stacks/{stackName}/plans': {
      parameters: [stackName],
      post: {
        operationId: 'planStack',
        summary: 'Plan a deployment without making it',
        requestBody: body(ref('StackPlanRequest')),
        responses: { '201': json(ref('StackPlan'), 'The plan.'), ...ERROR_RESPONSES },
      },
    },
    '/v1/stacks/{stackName}/plans/{planId}': {
      parameters: [stackName, planId],
      get: {
        operationId: 'getStackPlan',
        summary: 'A plan',
        responses: { '200': json(ref('StackPlan'), 'The plan.'), ...ERROR_RESPONSES },
      },
    },
    '/v1/stacks/{stackName}/plans/{planId}/apply': {
      parameters: [stackName, planId],
      post: {
        operationId: 'applyStackPlan',
        summary: 'Deploy a plan (409 when the stack changed since)',
        parameters: [WAIT],
        requestBody: body({ type: 'object', properties: { noRollback: NO_ROLLBACK } }, false),
        responses: started('The deployment began.'),
      },
    },
  };
}
