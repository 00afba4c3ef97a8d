/**
 * @module An OpenAPI 3.1 document of the live API: every route, the error shape, and for each
 * registered type its own paths with its request and response schemas (desired state, resource
 * description, progress events), read-only and write-only properties marked.
 *
 * A type's model schema (draft-07) becomes a component: its definitions become components of their
 * own (`AWS.S3.Bucket_Tag`) with `$ref`s rewritten, and draft-07's `dependencies` becomes 2020-12's
 * `dependentRequired` / `dependentSchemas`.
 */
import { ERROR_CODES } from '../errors.js';
import type { ResourceType } from '../schema/index.js';
import { markedModel } from './property-schema.js';
import {
  ERROR_RESPONSES,
  GONE,
  json,
  PAGE,
  pageOrWatch,
  pathParam,
  ref,
  WAIT,
  WATCH,
  WATCH_EVENT,
} from './openapi-parts.js';
import { POLICY_SCHEMAS, policyPaths } from './openapi-policy.js';
import { RECIPE_SCHEMAS, recipePaths } from './openapi-recipes.js';
import { STACK_SCHEMAS, stackPaths } from './openapi-stacks.js';

/** What /readyz answers. */
const READINESS = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { enum: ['ok', 'unavailable'] },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'ok'],
        properties: { name: { type: 'string' }, ok: { type: 'boolean' }, reason: { type: 'string' } },
      },
    },
  },
};

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface OpenApiOptions {
  /** The API's version as the document states it. */
  version: string;
  /** The server's base URL, when known (the document is also valid without it). */
  serverUrl?: string;
}

/** The component name of a type: `AWS::S3::Bucket` → `AWS.S3.Bucket`. */
export function openApiTypeKey(typeName: string): string {
  return typeName.replace(/::|\//g, '.').replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * The document for `types` (those the caller may see).
 *
 * @example
 * app.get('/v1/openapi.json', async () => generateOpenApi(types, { version: '0.1.0' }));
 */
export function generateOpenApi(types: readonly ResourceType[], options: OpenApiOptions): Schema {
  const schemas: Schema = { ...COMMON_SCHEMAS, ...STACK_SCHEMAS, ...RECIPE_SCHEMAS, ...POLICY_SCHEMAS };
  const paths: Schema = { ...generalPaths(), ...stackPaths(), ...recipePaths(), ...policyPaths() };
  for (const type of [...types].sort((a, b) => (a.typeName < b.typeName ? -1 : 1))) {
    const key = openApiTypeKey(type.typeName);
    Object.assign(schemas, typeSchemas(type, key));
    Object.assign(paths, typePaths(type, key));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Typeplane',
      version: options.version,
      description:
        'Resource types defined by a schema, served through one uniform API. Each registered type has its own paths with its schemas; the generic /v1/resources/{typeName} paths serve every type.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: "A token from 'typeplane token create'." },
      },
      responses: { Error: json(ref('Error'), 'The request failed; errorCode says why.') },
      schemas,
    },
  };
}

const COMMON_SCHEMAS: Schema = {
  Error: {
    type: 'object',
    required: ['errorCode', 'message', 'details'],
    properties: {
      errorCode: {
        enum: Object.keys(ERROR_CODES),
        description: 'A stable code: match on it, never on the message.',
      },
      message: { type: 'string', description: 'What went wrong and how to fix it.' },
      details: { type: 'array', items: {}, description: 'Diagnostics, each often with a JSON pointer.' },
    },
  },
  Model: { type: 'object', additionalProperties: true, description: "A resource's properties." },
  ProgressEvent: progressEvent(ref('Model')),
  Accepted: accepted('ProgressEvent'),
  ResourceDescription: {
    type: 'object',
    required: ['identifier', 'properties'],
    properties: { typeName: { type: 'string' }, identifier: { type: 'string' }, properties: ref('Model') },
  },
  ResourceList: resourceList(ref('Model')),
  WatchEvent: WATCH_EVENT,
  PatchDocument: {
    type: 'array',
    description: 'An RFC 6902 JSON Patch of the model.',
    items: {
      type: 'object',
      required: ['op', 'path'],
      properties: {
        op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] },
        path: { type: 'string' },
        from: { type: 'string' },
        value: {},
      },
    },
  },
  TypeSummary: {
    type: 'object',
    required: ['typeName', 'version', 'dialect', 'description', 'registeredAt'],
    properties: {
      typeName: { type: 'string' },
      version: { type: 'string' },
      dialect: { enum: ['resource-schema', 'manifest'] },
      description: { type: 'string' },
      registeredAt: { type: 'string', format: 'date-time' },
      apiVersion: { type: 'string' },
      outcome: { enum: ['created', 'new-version', 'unchanged'] },
      changes: { type: 'object' },
      violations: { type: 'object' },
    },
  },
  TypeDetail: {
    allOf: [ref('TypeSummary')],
    type: 'object',
    properties: {
      defaultVersion: { type: 'string' },
      versions: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            version: { type: 'string' },
            registeredAt: { type: 'string', format: 'date-time' },
            isDefault: { type: 'boolean' },
            resourceCount: { type: 'integer' },
          },
        },
      },
      schema: { type: 'object' },
      primaryIdentifier: { type: 'array', items: { type: 'string' } },
      readOnlyProperties: { type: 'array', items: { type: 'string' } },
      writeOnlyProperties: { type: 'array', items: { type: 'string' } },
      createOnlyProperties: { type: 'array', items: { type: 'string' } },
      conditionalCreateOnlyProperties: { type: 'array', items: { type: 'string' } },
      deprecatedProperties: { type: 'array', items: { type: 'string' } },
    },
  },
  Token: {
    type: 'object',
    required: ['id', 'role', 'createdAt'],
    properties: {
      id: { type: 'string' },
      role: { enum: ['admin', 'writer', 'reader', 'monitor'] },
      types: { type: 'array', items: { type: 'string' } },
      description: { type: 'string' },
      createdAt: { type: 'string', format: 'date-time' },
      rate: {
        type: 'number',
        description: "The token's own rate, in requests per second (docs/fairness.md).",
      },
      burst: { type: 'integer', description: 'Requests the token may send at once after a quiet spell.' },
    },
  },
};

/** A token's own rate (src/fairness): `100/s`, `6000/m`, `50000/h`, or a number per second. */
const TOKEN_RATE: Schema = {
  type: ['string', 'number'],
  description:
    'Requests per second, minute or hour (100/s, 6000/m, 100); over it, 429 Throttling with Retry-After.',
};
const TOKEN_BURST: Schema = {
  type: 'integer',
  minimum: 1,
  description: 'Requests the token may send at once after a quiet spell (default: twice the rate).',
};

function progressEvent(model: unknown): Schema {
  return {
    type: 'object',
    required: ['typeName', 'requestToken', 'operation', 'operationStatus', 'eventTime'],
    properties: {
      typeName: { type: 'string' },
      identifier: { type: 'string' },
      requestToken: { type: 'string' },
      operation: { enum: ['CREATE', 'READ', 'UPDATE', 'DELETE', 'LIST'] },
      operationStatus: {
        enum: ['PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILED', 'CANCEL_IN_PROGRESS', 'CANCEL_COMPLETE'],
      },
      eventTime: { type: 'string', format: 'date-time' },
      resourceModel: model,
      statusMessage: { type: 'string' },
      errorCode: { enum: Object.keys(ERROR_CODES) },
      retryAfter: { type: 'string', format: 'date-time' },
      warnings: verdicts('What admission policies and hooks warned of, the change let through (`Warn`).'),
      deniedBy: verdicts(
        'What denied the change, on an operation kept as failed before it began (Cloud Control).',
      ),
      hooksPassed: verdicts('The hooks that passed the change (their SUCCESS).'),
    },
  };
}

/** Verdicts (docs/policy.md): which rule, policy or hook said what of a change. */
function verdicts(description: string): Schema {
  return {
    type: 'array',
    description,
    items: {
      type: 'object',
      required: ['source', 'name', 'action', 'message'],
      properties: {
        source: { enum: ['rule', 'policy', 'hook'] },
        name: { type: 'string' },
        action: { enum: ['Deny', 'Warn', 'Audit'] },
        message: { type: 'string' },
        pointer: { type: 'string' },
        reason: { type: 'string' },
      },
    },
  };
}

function accepted(event: string): Schema {
  return { type: 'object', required: ['progressEvent'], properties: { progressEvent: ref(event) } };
}

/** What a read last saw of a listed resource, when its record does not say it. */
function observedSchema(): Schema {
  return {
    type: 'object',
    description:
      'The provider answered NotFound to a read, first at `since`; the record stays until a writer deletes or forgets it.',
    required: ['status', 'since'],
    properties: { status: { const: 'NotFound' }, since: { type: 'string', format: 'date-time' } },
  };
}

function resourceList(model: unknown): Schema {
  return {
    type: 'object',
    required: ['resourceDescriptions', 'nextToken'],
    properties: {
      typeName: { type: 'string' },
      resourceDescriptions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['identifier', 'properties'],
          properties: { identifier: { type: 'string' }, properties: model, observed: observedSchema() },
        },
      },
      nextToken: { type: ['string', 'null'] },
      resourceVersion: {
        type: 'string',
        description:
          'The version to watch from (watch=true&resourceVersion=…): no change after the page is missed.',
      },
    },
  };
}

const desiredState = (model: unknown) => ({
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['desiredState'],
        properties: {
          desiredState: model,
          clientToken: { type: 'string', description: 'Makes the request idempotent.' },
        },
      },
    },
  },
});
const patchBody = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['patchDocument'],
        properties: { patchDocument: ref('PatchDocument'), clientToken: { type: 'string' } },
      },
    },
  },
};

/** The operations on resources of one type (or, with `{typeName}`, of any). */
function resourcePaths(
  base: string,
  id: string,
  model: unknown,
  accepted: unknown,
  list: unknown,
  description: unknown,
  params: unknown[],
): Schema {
  const identifier = pathParam('identifier', 'The primary identifier (URL-encoded).');
  return {
    [base]: {
      parameters: params,
      post: {
        operationId: `create${id}`,
        summary: 'Create a resource',
        parameters: [WAIT],
        requestBody: desiredState(model),
        responses: { '202': json(accepted, 'The operation began.'), ...ERROR_RESPONSES },
      },
      get: {
        operationId: `list${id}`,
        summary: 'List resources, or watch them change',
        parameters: [...PAGE, ...WATCH],
        responses: { '200': pageOrWatch(list, 'A page of resources.'), ...GONE, ...ERROR_RESPONSES },
      },
    },
    [`${base}/{identifier}`]: {
      parameters: [...params, identifier],
      get: {
        operationId: `read${id}`,
        summary: 'Read a resource',
        responses: { '200': json(description, 'The resource.'), ...ERROR_RESPONSES },
      },
      put: {
        operationId: `put${id}`,
        summary: 'Create or replace a resource',
        parameters: [WAIT],
        requestBody: desiredState(model),
        responses: { '202': json(accepted, 'The operation began.'), ...ERROR_RESPONSES },
      },
      patch: {
        operationId: `update${id}`,
        summary: 'Update a resource with a JSON Patch',
        parameters: [WAIT],
        requestBody: patchBody,
        responses: { '202': json(accepted, 'The operation began.'), ...ERROR_RESPONSES },
      },
      delete: {
        operationId: `delete${id}`,
        summary: 'Delete a resource',
        parameters: [WAIT],
        responses: { '202': json(accepted, 'The operation began.'), ...ERROR_RESPONSES },
      },
    },
    [`${base}/{identifier}/forget`]: {
      parameters: [...params, identifier],
      post: {
        operationId: `forget${id}`,
        summary: "Drop Typeplane's record of a resource without calling its provider",
        responses: {
          '200': json(accepted, 'The record was dropped: a DELETE, already SUCCESS.'),
          ...ERROR_RESPONSES,
        },
      },
    },
    [`${base}/{identifier}/import`]: {
      parameters: [...params, identifier],
      post: {
        operationId: `import${id}`,
        summary:
          'Record a resource its provider has and Typeplane has no record of, read through the provider (nothing is created)',
        responses: {
          '200': json(accepted, 'The resource was recorded: a CREATE, already SUCCESS.'),
          ...ERROR_RESPONSES,
        },
      },
    },
    [`${base}/{identifier}/references`]: {
      parameters: [...params, identifier],
      get: {
        operationId: `references${id}`,
        summary: 'What the resource refers to and what refers to it',
        responses: {
          '200': json(
            {
              type: 'object',
              properties: {
                typeName: { type: 'string' },
                identifier: { type: 'string' },
                references: { type: 'array', items: {} },
                referencedBy: { type: 'array', items: {} },
              },
            },
            'The links.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
  };
}

function generalPaths(): Schema {
  const typeName = pathParam('typeName', "A type name, URL-encoded ('Radius.Data%2FredisCaches').");
  const VERSION = {
    name: 'version',
    in: 'query',
    description: 'A registered version of the type (GET /v1/types/{typeName} lists them).',
    schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' },
  };
  const artifact = (operationId: string, summary: string, params: unknown[] = []) => ({
    get: {
      operationId,
      summary,
      parameters: [...params, { name: 'If-None-Match', in: 'header', schema: { type: 'string' } }],
      responses: {
        '200': json(
          { type: 'object' },
          'The artifact; its ETag changes when a type is registered or removed.',
        ),
        '304': { description: 'Not modified since the ETag given in If-None-Match.' },
        ...ERROR_RESPONSES,
      },
    },
  });
  const publicArtifact = (operationId: string, summary: string) => {
    const { get } = artifact(operationId, summary);
    return { get: { ...get, security: [{}, { bearer: [] }] } };
  };
  const listing = (operationId: string, summary: string, key: string, properties: Schema) => ({
    get: {
      operationId,
      summary,
      responses: {
        '200': json(
          {
            type: 'object',
            required: [key],
            properties: {
              [key]: {
                type: 'array',
                items: { type: 'object', required: Object.keys(properties), properties },
              },
            },
          },
          'The list.',
        ),
        ...ERROR_RESPONSES,
      },
    },
  });
  return {
    '/healthz': {
      get: {
        operationId: 'health',
        security: [],
        summary: 'Whether the server is up (the older name of /livez)',
        responses: { '200': json({ type: 'object', properties: { status: { const: 'ok' } } }, 'Up.') },
      },
    },
    '/livez': {
      get: {
        operationId: 'live',
        security: [],
        summary: 'Whether the process serves requests (liveness)',
        responses: { '200': json({ type: 'object', properties: { status: { const: 'ok' } } }, 'Up.') },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        security: [],
        summary:
          'Whether this server should be sent traffic: its store answers at the schema it knows, and it is not shutting down',
        responses: {
          '200': json(READINESS, 'Ready.'),
          '503': json(READINESS, 'Not ready: each failed check says why.'),
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary:
          "The server's metrics in the Prometheus text format (admin or monitor tokens; docs/operations.md lists them)",
        responses: {
          '200': {
            description: 'Every metric, as Prometheus scrapes them.',
            content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/openapi.json': artifact('openApi', 'This document, for the types the caller may see'),
    '/v1/types': {
      get: {
        operationId: 'listTypes',
        summary: 'List registered types',
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['types'],
              properties: { types: { type: 'array', items: ref('TypeSummary') } },
            },
            'The types.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'registerType',
        summary: 'Register a resource schema (JSON) or manifest (YAML)',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object' } },
            'application/yaml': { schema: { type: 'string' } },
          },
        },
        parameters: [{ name: 'allowBreaking', in: 'query', schema: { enum: ['true', 'false'] } }],
        responses: {
          '201': json(
            { type: 'object', properties: { types: { type: 'array', items: ref('TypeSummary') } } },
            'Registered (a new type or a new version).',
          ),
          '200': json(
            { type: 'object', properties: { types: { type: 'array', items: ref('TypeSummary') } } },
            'Unchanged: every type as registered already.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/types/{typeName}': {
      parameters: [typeName],
      get: {
        operationId: 'describeType',
        summary: 'Describe a type (its default version, or ?version=)',
        parameters: [VERSION],
        responses: { '200': json(ref('TypeDetail'), 'The type.'), ...ERROR_RESPONSES },
      },
      delete: {
        operationId: 'deregisterType',
        summary: 'Deregister a type, or one version of it (?version=)',
        parameters: [VERSION],
        responses: { '204': { description: 'Removed.' }, ...ERROR_RESPONSES },
      },
    },
    '/v1/types/{typeName}/default-version': {
      parameters: [typeName],
      put: {
        operationId: 'setDefaultTypeVersion',
        summary:
          'Serve requests with another registered version (admin; 409 when it is breaking relative to the current default while resources exist, unless ?allowBreaking=true)',
        parameters: [{ name: 'allowBreaking', in: 'query', schema: { enum: ['true', 'false'] } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['version'], properties: { version: { type: 'string' } } },
            },
          },
        },
        responses: { '200': json(ref('TypeDetail'), 'The type.'), ...ERROR_RESPONSES },
      },
    },
    '/v1/types/{typeName}/diff': {
      parameters: [typeName],
      get: {
        operationId: 'diffTypeVersions',
        summary: 'What changed between two registered versions, each change with its verdict',
        parameters: [
          {
            name: 'from',
            in: 'query',
            required: true,
            schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' },
          },
          {
            name: 'to',
            in: 'query',
            required: true,
            schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' },
          },
        ],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['typeName', 'from', 'to', 'counts', 'changes'],
              properties: {
                typeName: { type: 'string' },
                from: { type: 'string' },
                to: { type: 'string' },
                counts: {
                  type: 'object',
                  properties: {
                    breaking: { type: 'integer' },
                    dangerous: { type: 'integer' },
                    safe: { type: 'integer' },
                  },
                },
                changes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['rule', 'verdict', 'message'],
                    properties: {
                      rule: { type: 'string' },
                      verdict: { enum: ['breaking', 'dangerous', 'safe'] },
                      message: { type: 'string' },
                      property: { type: 'string' },
                      pointer: { type: 'string' },
                    },
                  },
                },
              },
            },
            'The changes, breaking first.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/types/{typeName}/contract-report': {
      parameters: [typeName],
      post: {
        operationId: 'attachContractReport',
        summary:
          "Attach a 'typeplane test -o json' report to a type version (admin; the default, or ?version=)",
        parameters: [VERSION],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          '201': json(
            {
              type: 'object',
              properties: {
                typeName: { type: 'string' },
                version: { type: 'string' },
                contract: { type: 'object' },
              },
            },
            'Attached: whether the provider passed.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/types/{typeName}/configuration': {
      parameters: [typeName],
      put: {
        operationId: 'configureType',
        summary: "Set a type's configuration (admin)",
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '200': json({ type: 'object' }, 'Set.'), ...ERROR_RESPONSES },
      },
      get: {
        operationId: 'getTypeConfiguration',
        summary: "A type's configuration (admin)",
        responses: { '200': json({ type: 'object' }, 'The configuration.'), ...ERROR_RESPONSES },
      },
    },
    ...resourcePaths(
      '/v1/resources/{typeName}',
      'Resource',
      ref('Model'),
      ref('Accepted'),
      ref('ResourceList'),
      ref('ResourceDescription'),
      [typeName],
    ),
    '/v1/unmanaged-resources/{typeName}': {
      parameters: [typeName],
      get: {
        operationId: 'listUnmanagedResources',
        summary:
          "A page of what the type's provider lists that Typeplane has no record of (writers with the type in scope)",
        parameters: PAGE,
        responses: { '200': json(ref('ResourceList'), "A page of the provider's list."), ...ERROR_RESPONSES },
      },
    },
    '/v1/requests': {
      get: {
        operationId: 'listRequests',
        summary: 'List operations, or watch them change',
        parameters: [
          ...PAGE,
          { name: 'operation', in: 'query', schema: { type: 'string' } },
          { name: 'status', in: 'query', schema: { type: 'string' } },
          {
            name: 'typeName',
            in: 'query',
            description: "One type's operations only.",
            schema: { type: 'string' },
          },
          {
            name: 'identifier',
            in: 'query',
            description: "With typeName: one resource's operations (its primary identifier), its history.",
            schema: { type: 'string' },
          },
          ...WATCH,
        ],
        responses: {
          '200': pageOrWatch(
            {
              type: 'object',
              properties: {
                progressEvents: { type: 'array', items: ref('ProgressEvent') },
                nextToken: { type: ['string', 'null'] },
                resourceVersion: { type: 'string', description: 'The version to watch from.' },
              },
            },
            'A page of operations.',
          ),
          ...GONE,
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/requests/{requestToken}': {
      parameters: [pathParam('requestToken', 'The request token of an operation.')],
      get: {
        operationId: 'getRequest',
        summary: 'The status of an operation',
        responses: {
          '200': json(
            { type: 'object', properties: { progressEvent: ref('ProgressEvent') } },
            'Its latest event.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/requests/{requestToken}/cancel': {
      parameters: [pathParam('requestToken', 'The request token of an operation.')],
      post: {
        operationId: 'cancelRequest',
        summary: 'Cancel an operation',
        responses: {
          '200': json({ type: 'object', properties: { progressEvent: ref('ProgressEvent') } }, 'Cancelling.'),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/tokens': {
      get: {
        operationId: 'listTokens',
        summary: 'List tokens (admin)',
        responses: {
          '200': json(
            { type: 'object', properties: { tokens: { type: 'array', items: ref('Token') } } },
            'The tokens.',
          ),
          ...ERROR_RESPONSES,
        },
      },
      post: {
        operationId: 'createToken',
        summary: 'Create a token (admin)',
        requestBody: json(
          {
            type: 'object',
            required: ['role'],
            properties: {
              role: { enum: ['admin', 'writer', 'reader', 'monitor'] },
              types: { type: 'array', items: { type: 'string' } },
              description: { type: 'string' },
              rate: TOKEN_RATE,
              burst: TOKEN_BURST,
            },
          },
          'The token to make.',
        ),
        responses: {
          '201': json(
            { allOf: [ref('Token')], type: 'object', properties: { token: { type: 'string' } } },
            'The token; its secret is shown once.',
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/tokens/{id}': {
      parameters: [pathParam('id', 'A token id.')],
      delete: {
        operationId: 'revokeToken',
        summary: 'Revoke a token (admin)',
        responses: { '204': { description: 'Revoked.' }, ...ERROR_RESPONSES },
      },
      patch: {
        operationId: 'limitToken',
        summary: "Set, change or drop a token's own rate and burst (admin)",
        requestBody: json(
          {
            type: 'object',
            properties: { rate: { ...TOKEN_RATE, type: ['string', 'number', 'null'] }, burst: TOKEN_BURST },
          },
          'The limits; rate null drops the rate of its own.',
        ),
        responses: { '200': json(ref('Token'), 'The token, as changed.'), ...ERROR_RESPONSES },
      },
    },
    '/v1/backup': {
      get: {
        operationId: 'takeBackup',
        summary: 'A consistent backup of the whole store, streamed (admin)',
        description:
          "A header line (format and Typeplane versions, store kind, schema version, the secret key's id, the time), the store's data, and a trailer with its length and SHA-256. 'typeplane backup' saves it, 'typeplane restore' writes it into an empty store; see docs/operations.md. One backup at a time per server (429 otherwise).",
        responses: {
          '200': {
            description: 'The backup file.',
            content: { 'application/vnd.typeplane.backup': { schema: { type: 'string', format: 'binary' } } },
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    '/v1/artifacts/bicep': listing(
      'bicepArtifacts',
      'The Bicep extensions: one per namespace of the types the caller may see',
      'extensions',
      {
        namespace: { type: 'string' },
        index: { type: 'string', description: 'The path of its index.json.' },
      },
    ),
    '/v1/artifacts/bicep/{namespace}/{file}': artifact(
      'bicepArtifact',
      'Bicep extension types of a namespace: index.json, types.json, index.md, types.md',
      [
        pathParam('namespace', "A namespace, like 'Radius.Data' or 'AWS.S3'."),
        {
          ...pathParam('file', 'Which file.'),
          schema: { enum: ['index.json', 'types.json', 'index.md', 'types.md'] },
        },
      ],
    ),
    '/v1/artifacts/json-schema': listing(
      'jsonSchemaArtifacts',
      'The JSON Schemas served: the meta-schemas, the stack template and each type the caller may see',
      'schemas',
      { name: { type: 'string' }, url: { type: 'string', description: 'The path to fetch it from.' } },
    ),
    '/v1/artifacts/json-schema/{name}': artifact(
      'jsonSchemaArtifact',
      "A type's JSON Schema, '<name>.json'",
      [pathParam('name', 'The schema file.')],
    ),
    // The format schemas answer without a token too: editors following `$schema` send none.
    '/v1/artifacts/json-schema/resource-schema.json': publicArtifact(
      'resourceSchemaMetaSchema',
      'The JSON Schema of resource schema documents (no token needed)',
    ),
    '/v1/artifacts/json-schema/manifest.json': publicArtifact(
      'manifestMetaSchema',
      'The JSON Schema of manifests (no token needed)',
    ),
    '/v1/artifacts/json-schema/stack-template.json': publicArtifact(
      'stackTemplateSchema',
      "The JSON Schema of stack templates: with a token, each reachable type's Properties too",
    ),
  };
}

/** A type's components: its model, its definitions, its progress event, list and description. */
function typeSchemas(type: ResourceType, key: string): Schema {
  const model = markedModel(type);
  const definitions = isObject(model.definitions) ? model.definitions : {};
  delete model.definitions;
  const defName = (def: string) => `${key}_${def.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  const out: Schema = {
    [key]: { ...(to2020(model, defName) as Schema), title: type.typeName, description: type.description },
  };
  for (const [def, schema] of Object.entries(definitions)) out[defName(def)] = to2020(schema, defName);
  out[`${key}.ProgressEvent`] = progressEvent(ref(key));
  out[`${key}.Accepted`] = accepted(`${key}.ProgressEvent`);
  out[`${key}.ResourceList`] = resourceList(ref(key));
  out[`${key}.ResourceDescription`] = {
    type: 'object',
    required: ['identifier', 'properties'],
    properties: { typeName: { const: type.typeName }, identifier: { type: 'string' }, properties: ref(key) },
  };
  return out;
}

function typePaths(type: ResourceType, key: string): Schema {
  const id = key.replace(/[^A-Za-z0-9]/g, '');
  return resourcePaths(
    `/v1/resources/${encodeURIComponent(type.typeName).replace(/%3A/g, ':')}`,
    id,
    ref(key),
    ref(`${key}.Accepted`),
    ref(`${key}.ResourceList`),
    ref(`${key}.ResourceDescription`),
    [],
  );
}

/** Draft-07 → JSON Schema 2020-12 as OpenAPI 3.1 reads it. */
function to2020(node: unknown, defName: (def: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => to2020(n, defName));
  if (!isObject(node)) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      const m = /^#\/definitions\/([^/]+)$/.exec(v);
      out.$ref = m
        ? `#/components/schemas/${defName(decodeURIComponent(m[1]!).replace(/~1/g, '/').replace(/~0/g, '~'))}`
        : v;
    } else if (k === 'dependencies' && isObject(v)) {
      const required = Object.entries(v).filter(([, d]) => Array.isArray(d));
      const schemas = Object.entries(v).filter(([, d]) => isObject(d));
      if (required.length > 0) out.dependentRequired = Object.fromEntries(required);
      if (schemas.length > 0)
        out.dependentSchemas = Object.fromEntries(schemas.map(([p, s]) => [p, to2020(s, defName)]));
    } else if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
      out[k] = isObject(v)
        ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, to2020(s, defName)]))
        : v;
    } else if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples' || k === 'required') {
      out[k] = v;
    } else {
      out[k] = to2020(v, defName);
    }
  }
  return out;
}
