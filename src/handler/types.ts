/**
 * @module The provider interface: the handler contract every provider implements, built in or not.
 *
 * A handler receives a request and answers with a `HandlerEvent`: SUCCESS (with the model), FAILED
 * (with a contract error code), or IN_PROGRESS (with a callback context the engine persists and
 * hands back on the next invocation, after `callbackDelaySeconds`). The engine enforces the contract
 * around every call; a provider only does the work.
 */
import type { ErrorCode } from '../errors.js';
import type { Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { KvWrite } from '../store/types.js';

export type HandlerAction = 'create' | 'read' | 'update' | 'delete' | 'list';

export interface HandlerLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface HandlerRequest {
  typeName: string;
  /**
   * create/update: the desired model (defaults applied, write-only values included);
   * read/delete: a model holding at least the primary identifier; list: `{}`.
   */
  desiredState: Model;
  /** update: the model before the update. */
  previousState?: Model;
  /** What this handler returned with IN_PROGRESS last time, if anything. */
  callbackContext?: Record<string, unknown>;
  /**
   * The type's configuration as an operator set it (`typeConfiguration` in its schema), when it has
   * one: settings such as API keys. Never log it.
   */
  typeConfiguration?: Record<string, unknown>;
  /** Unique per operation; stable across re-invocations, so handlers can be idempotent. */
  clientRequestToken: string;
  /** list: the page to continue from. */
  nextToken?: string;
  /** list: most models to return. */
  maxResults?: number;
  logger: HandlerLogger;
  /** Aborted when the operation's time is up or it is cancelled. */
  signal: AbortSignal;
}

export type HandlerStatus = 'SUCCESS' | 'FAILED' | 'IN_PROGRESS';

export interface HandlerEvent {
  status: HandlerStatus;
  resourceModel?: Model;
  /** list only. */
  resourceModels?: Model[];
  /** list only: `null`/absent at the end. */
  nextToken?: string | null;
  callbackContext?: Record<string, unknown>;
  callbackDelaySeconds?: number;
  errorCode?: ErrorCode;
  message?: string;
}

export type Handler = (request: HandlerRequest) => Promise<HandlerEvent>;

export interface Provider {
  /** Shown in logs and errors, e.g. `state` or `postgresql`. */
  readonly name: string;
  /**
   * Set by a provider whose truth is the desired state the engine records (the built-in state
   * provider): the engine answers reads from its own record instead of asking the provider for the
   * same model again.
   */
  readonly readsFromRecord?: true;
  /**
   * Set by a provider whose resources are nothing but the engine's record (the built-in state
   * provider). The engine then completes its creates, updates and deletes in the same transaction as
   * the operation, with the model `create` computes (identifiers filled in) instead of a handler call:
   * one write instead of three, and nothing that could leak between them. The handlers still serve
   * standalone use (the contract suite drives them directly).
   */
  readonly recordBacked?: {
    /** The model of a new resource: the desired state with generated identifiers; pure. */
    create(type: ResourceType, desired: Model, requestToken: string): Model;
    /** The read-only properties (pointers) `create` generates: the only read-only values it ever sets. */
    generates(type: ResourceType): readonly string[];
  };
  /**
   * Set by a provider whose resources are made of other types' resources (recipes): a create whose
   * parts are all record-backed is then decided whole before anything is written, and the engine
   * writes the resource, its parts, their operations and the provider's own records in one store
   * transaction, with no handler call and nothing to resume. Anything else (`undefined`: a part
   * with effects, a failure of any kind) runs as an operation, through the handlers, which decide it
   * their own way.
   */
  readonly composes?: {
    create(request: ComposeRequest, parts: ComposeParts): Promise<Composed | undefined>;
  };
  create: Handler;
  read: Handler;
  update: Handler;
  delete: Handler;
  list: Handler;
}

export interface ComposeRequest {
  typeName: string;
  /** The desired model, checked as a create's is. */
  desiredState: Model;
  /** The create's operation's own token (as a handler is handed it): unique to the create. */
  clientRequestToken: string;
}

/** Who a composed resource's parts are made as: the engine's caller, in the words a provider knows. */
export interface ComposeCaller {
  id: string;
  canSee(typeName: string): boolean;
  /** The stack the parts belong to, when they do. */
  stack?: string;
}

export interface ComposeParts {
  /** Whether parts of `typeName` can be composed (its provider is record-backed): asked before any work. */
  recordBacked(typeName: string): boolean;
  /**
   * One part, checked as its own create would be (as `as`): its identifier and its model as it will
   * be written (write-only values dropped), written only with the whole. Undefined when the part
   * cannot be decided before it is written (its provider is not record-backed): the create then runs
   * as an operation. Throws a TypeplaneError when its create would be refused. A part has no client
   * token: it is written with the whole or not at all, so no retry ever asks for it again (the
   * whole's own token replays it).
   */
  make(
    typeName: string,
    properties: Model,
    as: ComposeCaller,
  ): Promise<{ identifier: string; model: Model } | undefined>;
}

/** A composed create decided: the resource's model, and the provider's records written with it. */
export interface Composed {
  resourceModel: Model;
  records: KvWrite[];
}

/** Typed failure a handler may throw instead of returning FAILED. */
export class HandlerError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}
