/**
 * @module The eight operations of the Cloud Control API, each on the engine's public API: input
 * members read and checked, the caller's role and type globs applied, the answer in Cloud Control's
 * shapes. Bounds are the service model's (identifiers up to 1024 characters, DesiredState up to
 * 16384, PatchDocument up to 65536, MaxResults up to 100).
 */
import { isDeepStrictEqual } from 'node:util';
import {
  assertRequestVisible,
  assertTypeVisible,
  callerOf,
  typeVisible,
  type Action,
  type Principal,
} from '../auth/index.js';
import {
  ACTIVE_STATUSES,
  TERMINAL_STATUSES,
  type Caller,
  type Engine,
  type Operation,
  type OperationStatus,
  type ProgressEvent,
} from '../engine/index.js';
import { DeniedByVerdicts } from '../verdict.js';
import { CloudControlError } from './errors.js';
import { enumList, Input } from './input.js';
import { hooksProgressEvents, progressEvent, resourceDescription } from './shapes.js';

export interface OperationContext {
  engine: Engine;
  principal: Principal;
  /** Told of the verdicts each change's review gives (the request's audit record). */
  reviews?: Caller['reviews'];
}

interface OperationSpec {
  action: Action;
  members: readonly string[];
  run(ctx: OperationContext, input: Input): Promise<unknown>;
}

/** The principal as the engine's caller, marked as come by Cloud Control (hooks' TargetOperations). */
const cloudControlCaller = ({ principal, reviews }: OperationContext): Caller => ({
  ...callerOf(principal),
  cloudControl: true,
  ...(reviews ? { reviews } : {}),
});

const TYPE_NAME_MAX = 196;
const IDENTIFIER_MAX = 1024;
const DESIRED_STATE_MAX = 16_384;
const PATCH_DOCUMENT_MAX = 65_536;
const NEXT_TOKEN_MAX = 2048;
const REQUEST_TOKEN_MAX = 128;
const MAX_RESULTS = 100;
/**
 * Members every resource operation takes: `TypeVersionId` names a registered version of the type;
 * `RoleArn` is accepted as AWS takes it and not used (no role is assumed: the key's token decides).
 */
const SHARED = ['TypeVersionId', 'RoleArn'] as const;
/** A version as `GET /v1/types/{typeName}` lists it (`2`), or in CloudFormation's form (`00000002`). */
const TYPE_VERSION = /^0*([1-9][0-9]{0,8})$/;

/** The type an operation names, visible to the caller, and the version it names, if any. */
function target(ctx: OperationContext, input: Input): { name: string; version?: string } {
  const name = input.string('TypeName', TYPE_NAME_MAX, true);
  assertTypeVisible(ctx.principal, name);
  input.string('RoleArn', 2048);
  const version = input.string('TypeVersionId', 1024);
  if (version === undefined) return { name };
  const m = TYPE_VERSION.exec(version);
  if (!m)
    throw new CloudControlError(
      'InvalidRequestException',
      `TypeVersionId must be a version number of ${name}, like 2 or 00000002 (GET /v1/types/{typeName} lists them), not '${version.slice(0, 64)}'`,
    );
  return { name, version: m[1]! };
}

/** The version named, once known to be registered (reads and deletes run with the resource as stored). */
async function checkedVersion(
  ctx: OperationContext,
  name: string,
  version: string | undefined,
): Promise<void> {
  if (version !== undefined) await ctx.engine.assertVersion(name, version);
}

/** The request an operation's request token names, when the caller's globs reach its type. */
async function visibleRequest(ctx: OperationContext, input: Input) {
  const token = input.string('RequestToken', REQUEST_TOKEN_MAX, true);
  const event = await ctx.engine.getRequest(token);
  assertRequestVisible(ctx.principal, event.typeName);
  return event;
}

/** ListResources' ResourceModel: every top-level property it names must equal the resource's. */
function matches(filter: Record<string, unknown>, properties: Record<string, unknown>): boolean {
  for (const [name, value] of Object.entries(filter))
    if (!isDeepStrictEqual(properties[name], value)) return false;
  return true;
}

const OPERATIONS: ReadonlyArray<Operation> = ['CREATE', 'UPDATE', 'DELETE'];
const STATUSES: readonly OperationStatus[] = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES];

export const OPERATION_SPECS: Record<string, OperationSpec> = {
  CreateResource: {
    action: 'write',
    members: ['TypeName', 'DesiredState', 'ClientToken', ...SHARED],
    async run(ctx, input) {
      const { name, version } = target(ctx, input);
      const desired = input.json('DesiredState', DESIRED_STATE_MAX, true);
      return reviewed(ctx, name, 'CREATE', undefined, () =>
        ctx.engine.create(name, desired, input.clientToken(), cloudControlCaller(ctx), version),
      );
    },
  },

  GetResource: {
    action: 'read',
    members: ['TypeName', 'Identifier', ...SHARED],
    async run(ctx, input) {
      const { name, version } = target(ctx, input);
      const identifier = input.string('Identifier', IDENTIFIER_MAX, true);
      if (version !== undefined) await checkedVersion(ctx, name, version);
      const description = await ctx.engine.read(name, identifier);
      return { TypeName: name, ResourceDescription: resourceDescription(description) };
    },
  },

  UpdateResource: {
    action: 'write',
    members: ['TypeName', 'Identifier', 'PatchDocument', 'ClientToken', ...SHARED],
    async run(ctx, input) {
      const { name, version } = target(ctx, input);
      const identifier = input.string('Identifier', IDENTIFIER_MAX, true);
      const patch = input.json('PatchDocument', PATCH_DOCUMENT_MAX, true);
      return reviewed(ctx, name, 'UPDATE', identifier, () =>
        ctx.engine.update(name, identifier, patch, input.clientToken(), cloudControlCaller(ctx), version),
      );
    },
  },

  DeleteResource: {
    action: 'write',
    members: ['TypeName', 'Identifier', 'ClientToken', ...SHARED],
    async run(ctx, input) {
      const { name, version } = target(ctx, input);
      const identifier = input.string('Identifier', IDENTIFIER_MAX, true);
      await checkedVersion(ctx, name, version);
      return reviewed(ctx, name, 'DELETE', identifier, () =>
        ctx.engine.delete(name, identifier, input.clientToken(), cloudControlCaller(ctx)),
      );
    },
  },

  ListResources: {
    action: 'read',
    members: ['TypeName', 'NextToken', 'MaxResults', 'ResourceModel', ...SHARED],
    async run(ctx, input) {
      const { name, version } = target(ctx, input);
      const filter = input.json('ResourceModel', DESIRED_STATE_MAX);
      if (filter !== undefined && (typeof filter !== 'object' || filter === null || Array.isArray(filter)))
        throw new CloudControlError(
          'InvalidRequestException',
          'ResourceModel must be a JSON object of properties to match, like \'{"Color":"red"}\'',
        );
      const maxResults = input.maxResults(MAX_RESULTS);
      const page = await ctx.engine.list(name, {
        ...(maxResults !== undefined ? { maxResults } : {}),
        nextToken: input.string('NextToken', NEXT_TOKEN_MAX),
        ...(version !== undefined ? { version } : {}),
      });
      // Filtered page by page: a page may hold fewer than MaxResults (even none) and still go on.
      const kept = filter
        ? page.resourceDescriptions.filter((d) => matches(filter as Record<string, unknown>, d.properties))
        : page.resourceDescriptions;
      return {
        TypeName: name,
        ResourceDescriptions: kept.map(resourceDescription),
        ...(page.nextToken ? { NextToken: page.nextToken } : {}),
      };
    },
  },

  GetResourceRequestStatus: {
    action: 'read',
    members: ['RequestToken'],
    async run(ctx, input) {
      const event = await visibleRequest(ctx, input);
      const hooks = hooksProgressEvents(event);
      return {
        ProgressEvent: progressEvent(event),
        ...(hooks.length > 0 ? { HooksProgressEvent: hooks } : {}),
      };
    },
  },

  ListResourceRequests: {
    action: 'read',
    members: ['MaxResults', 'NextToken', 'ResourceRequestStatusFilter'],
    async run(ctx, input) {
      const filter = input.object('ResourceRequestStatusFilter') ?? {};
      const unknown = Object.keys(filter).filter((k) => k !== 'Operations' && k !== 'OperationStatuses');
      if (unknown.length > 0)
        throw new CloudControlError(
          'InvalidRequestException',
          `ResourceRequestStatusFilter has only Operations and OperationStatuses, not ${unknown.map((k) => `'${k.slice(0, 64)}'`).join(', ')}`,
        );
      const operation = enumList('Operations', filter.Operations, OPERATIONS);
      const status = enumList('OperationStatuses', filter.OperationStatuses, STATUSES);
      const maxResults = input.maxResults(MAX_RESULTS);
      const page = await ctx.engine.listRequests(
        { ...(operation?.length ? { operation } : {}), ...(status?.length ? { status } : {}) },
        {
          ...(maxResults !== undefined ? { maxResults } : {}),
          nextToken: input.string('NextToken', NEXT_TOKEN_MAX),
        },
      );
      // A type-scoped key sees its types only; a page may then hold fewer events than MaxResults.
      return {
        ResourceRequestStatusSummaries: page.progressEvents
          .filter((e) => typeVisible(ctx.principal, e.typeName))
          .map(progressEvent),
        ...(page.nextToken ? { NextToken: page.nextToken } : {}),
      };
    },
  },

  CancelResourceRequest: {
    action: 'write',
    members: ['RequestToken'],
    async run(ctx, input) {
      const { requestToken } = await visibleRequest(ctx, input);
      return { ProgressEvent: progressEvent(await ctx.engine.cancel(requestToken)) };
    },
  },
};

/**
 * A change: its event, or — when an admission policy or a hook denied it — what AWS answers for a
 * hook's failure: the operation, FAILED before it began, with the denial as its status message and a
 * HooksRequestToken (the same request token). It is kept, so GetResourceRequestStatus and the SDK's
 * waiter see it fail. A schema rule's refusal stays InvalidRequestException, as invalid input is.
 */
async function reviewed(
  ctx: OperationContext,
  typeName: string,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  identifier: string | undefined,
  change: () => Promise<ProgressEvent>,
): Promise<{ ProgressEvent: ReturnType<typeof progressEvent> & { HooksRequestToken?: string } }> {
  try {
    return { ProgressEvent: progressEvent(await change()) };
  } catch (e) {
    if (!(e instanceof DeniedByVerdicts) || e.code !== 'AccessDenied') throw e;
    const failed = await ctx.engine.recordRefusal(typeName, operation, identifier, e);
    return { ProgressEvent: { ...progressEvent(failed), HooksRequestToken: failed.requestToken } };
  }
}
