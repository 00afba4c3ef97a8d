/**
 * @module The TypeScript provider SDK.
 *
 * @example
 * import { defineProvider, progress } from 'typeplane/provider';
 *
 * export default defineProvider({
 *   name: 'queues',
 *   types: ['Acme::Messaging::Queue'],
 *   schemas: ['./queue.json'],
 *   async create({ desiredState }) {
 *     await makeQueue(desiredState.Name);
 *     return progress.success(desiredState);
 *   },
 *   // read, update, delete, list …
 * });
 *
 * A provider in another language, serving the provider protocol over HTTP, is one too:
 * `createRemoteProvider({ name, url, types })`.
 */
import type { ErrorCode } from '../errors.js';
import type { Model } from '../model/index.js';
import {
  HOOK_ACTIONS,
  HandlerError,
  type HandlerEvent,
  type HandlerRequest,
  type HookEvent,
  type HookHandler,
  type HookServer,
  type Provider,
} from '../handler/index.js';

export interface ProviderDefinition extends Provider {
  /** The type names this provider serves. */
  readonly types: readonly string[];
  /** Schema or manifest files (relative to the module, or absolute) registered when the provider loads. */
  readonly schemas?: readonly string[];
  /** Receives the provider's section of the configuration before any handler runs. */
  configure?(config: Record<string, unknown>): void | Promise<void>;
  /** Release connections and the like when the server stops. */
  close?(): void | Promise<void>;
}

/**
 * A handler's request with its models typed as `M`, such as an interface `typeplane generate` wrote
 * for the provider's type. create/update get the whole desired model; read/delete a model holding at
 * least the primary identifier, and list `{}`: those are `Partial<M>`.
 */
export type TypedRequest<M extends object, D extends object = M> = Omit<
  HandlerRequest,
  'desiredState' | 'previousState'
> & { desiredState: D; previousState?: M };

export type TypedHandler<M extends object, D extends object = M> = (
  request: TypedRequest<M, D>,
) => Promise<HandlerEvent>;

/**
 * What `defineProvider` takes. With a model type (`defineProvider<Queue>({...})`) the handlers'
 * `desiredState` is typed as it; without one it is the untyped `Model`.
 */
export interface ProviderSpec<M extends object = Model> {
  name: string;
  types: readonly string[];
  schemas?: readonly string[];
  configure?(config: Record<string, unknown>): void | Promise<void>;
  close?(): void | Promise<void>;
  create: TypedHandler<M>;
  read: TypedHandler<M, Partial<M>>;
  update: TypedHandler<M>;
  delete: TypedHandler<M, Partial<M>>;
  list: TypedHandler<M, Partial<M>>;
}

/** Declare a provider; checks the definition so mistakes show at load, not at the first request. */
export function defineProvider<M extends object = Model>(spec: ProviderSpec<M>): ProviderDefinition {
  if (typeof spec !== 'object' || spec === null) throw new TypeError('defineProvider takes an object');
  if (typeof spec.name !== 'string' || spec.name === '') throw new TypeError('a provider needs a name');
  if (
    !Array.isArray(spec.types) ||
    spec.types.length === 0 ||
    !spec.types.every((t) => typeof t === 'string')
  ) {
    throw new TypeError(`provider ${spec.name}: 'types' must list the type names it serves`);
  }
  for (const action of ['create', 'read', 'update', 'delete', 'list'] as const) {
    if (typeof spec[action] !== 'function')
      throw new TypeError(`provider ${spec.name}: the ${action} handler is missing`);
  }
  // The engine validates every request against the type's schema before a handler sees it: that
  // is what makes the models the handlers are typed with hold.
  return Object.freeze({ ...(spec as unknown as ProviderSpec) });
}

/**
 * Builders for the events handlers return. Models may be of any object type, such as the interfaces
 * `typeplane generate` writes (which, having no index signature, are not `Model`s to TypeScript).
 */
export const progress = {
  success<M extends object = Model>(model?: M): HandlerEvent {
    return model === undefined ? { status: 'SUCCESS' } : { status: 'SUCCESS', resourceModel: asModel(model) };
  },
  /** Ask to be invoked again after `callbackDelaySeconds`, with `callbackContext` handed back. */
  inProgress<M extends object = Model>(
    model: M | undefined,
    options: {
      callbackContext?: Record<string, unknown>;
      callbackDelaySeconds?: number;
      message?: string;
    } = {},
  ): HandlerEvent {
    return {
      status: 'IN_PROGRESS',
      ...(model === undefined ? {} : { resourceModel: asModel(model) }),
      callbackContext: options.callbackContext ?? {},
      callbackDelaySeconds: options.callbackDelaySeconds ?? 0,
      ...(options.message === undefined ? {} : { message: options.message }),
    };
  },
  failed(errorCode: ErrorCode, message: string): HandlerEvent {
    return { status: 'FAILED', errorCode, message };
  },
  /** A list page; `nextToken` null (or absent) on the last page. */
  list<M extends object = Model>(models: M[], nextToken?: string | null): HandlerEvent {
    return { status: 'SUCCESS', resourceModels: models.map(asModel), nextToken: nextToken ?? null };
  },
};

/** A model object as the engine's JSON model type; the engine validates every model it is handed. */
function asModel(model: object): Model {
  return model as Model;
}

/** What `defineHook` takes: a hook's type name and at least one of its handlers. */
export interface HookSpec {
  /** The hook's type name, as its schema's `typeName` (e.g. `Acme::Policy::RequireTags`). */
  typeName: string;
  /** The hook's schema file, registered when the server starts (relative to the module, or absolute). */
  schema?: string;
  preCreate?: HookHandler;
  preUpdate?: HookHandler;
  preDelete?: HookHandler;
  close?(): void | Promise<void>;
}

const HOOK_TYPE_NAME = /^[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}::[A-Za-z0-9]{2,64}$/;

/**
 * Declare a hook served in this process (CloudFormation Hooks' model): handlers that judge a change
 * before it begins, answering `hookProgress.success()` or `hookProgress.failed(message)`.
 *
 * @example
 * export default defineHook({
 *   typeName: 'Acme::Policy::RequireTags',
 *   schema: './require-tags.json',
 *   async preCreate({ target, hookConfiguration }) {
 *     const tag = String(hookConfiguration?.Tag ?? 'costCenter');
 *     return hasTag(target.properties, tag) ? hookProgress.success() : hookProgress.failed(`tag ${tag} is missing`);
 *   },
 * });
 */
export function defineHook(spec: HookSpec): HookServer {
  if (typeof spec !== 'object' || spec === null) throw new TypeError('defineHook takes an object');
  if (typeof spec.typeName !== 'string' || !HOOK_TYPE_NAME.test(spec.typeName))
    throw new TypeError(
      "a hook needs a typeName of three parts, each 2 to 64 letters or digits, like 'Acme::Policy::RequireTags'",
    );
  const handlers = HOOK_ACTIONS.filter((action) => spec[action] !== undefined);
  if (handlers.length === 0)
    throw new TypeError(`hook ${spec.typeName}: give at least one of preCreate, preUpdate, preDelete`);
  for (const action of handlers)
    if (typeof spec[action] !== 'function')
      throw new TypeError(`hook ${spec.typeName}: ${action} must be a function`);
  return Object.freeze({ ...spec, name: spec.typeName, hooks: [spec.typeName] });
}

/** Builders for what hook handlers answer. */
export const hookProgress = {
  /** The change may proceed. */
  success(message?: string): HookEvent {
    return message === undefined ? { status: 'SUCCESS' } : { status: 'SUCCESS', message };
  },
  /** The hook objects: refused in FAIL mode, a warning in WARN mode. Never put secrets in the message. */
  failed(message: string, errorCode = 'NonCompliant'): HookEvent {
    return { status: 'FAILED', errorCode, message };
  },
  /** Nothing to say about this target: the hook is skipped. */
  unsupportedTarget(message?: string): HookEvent {
    return {
      status: 'FAILED',
      errorCode: 'UnsupportedTarget',
      ...(message === undefined ? {} : { message }),
    };
  },
  /** Ask to be invoked again after `callbackDelaySeconds`, within the hook's timeout. */
  inProgress(callbackContext: Record<string, unknown> = {}, callbackDelaySeconds = 0): HookEvent {
    return { status: 'IN_PROGRESS', callbackContext, callbackDelaySeconds };
  },
};

export { HandlerError };
export { createRemoteProvider, type RemoteProviderOptions } from './remote/index.js';
export { createRemoteHook, type RemoteHookOptions } from './remote/hook.js';
export type { Handler, HandlerEvent, HandlerRequest, HandlerLogger, Provider } from '../handler/index.js';
export type {
  HookAction,
  HookCaller,
  HookEvent,
  HookHandler,
  HookRequest,
  HookServer,
} from '../handler/index.js';
export type { Model } from '../model/index.js';
export type { ErrorCode } from '../errors.js';
