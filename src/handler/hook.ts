/**
 * @module The hook contract (CloudFormation Hooks' model): what a hook's handler is handed before a
 * change begins, and what it answers. A hook judges a change; it never makes one. Served in
 * TypeScript (`defineHook`) or by any program over the provider protocol (`PRE_CREATE` …).
 */
import type { Model } from '../model/index.js';
import type { HandlerLogger } from './types.js';

/** A hook's handlers, as its schema's `handlers` names them. */
export type HookAction = 'preCreate' | 'preUpdate' | 'preDelete';
export const HOOK_ACTIONS: readonly HookAction[] = ['preCreate', 'preUpdate', 'preDelete'];

/** Who asks for the change, as the server knows them. */
export interface HookCaller {
  /** The API token's id (never its secret). */
  tokenId?: string;
  role?: string;
  /** The token's description, as its creator wrote it. */
  description?: string;
  /** The stack whose deployment makes the change. */
  stack?: string;
}

export interface HookRequest {
  /** The hook's type name, e.g. `Acme::Policy::RequireTags`: one server may serve several hooks. */
  hookTypeName: string;
  action: HookAction;
  /** The resource the change is to: its type, identifier when known, and properties. */
  target: {
    typeName: string;
    /** The primary identifier, when known before the change (updates and deletes; creates when given). */
    logicalId?: string;
    /**
     * preCreate, preUpdate: the desired state; preDelete: the recorded model. Write-only values only
     * when the hook's configuration grants them (`IncludeWriteOnlyValues`).
     */
    properties: Model;
    /** preUpdate: the model before the change. */
    previousProperties?: Model;
  };
  /** The hook's `Properties` as an admin configured them (its schema's `typeConfiguration`). Never log it. */
  hookConfiguration?: Record<string, unknown>;
  caller?: HookCaller;
  /** The same on every invocation for one change (callbacks included). */
  clientRequestToken: string;
  /** What this handler answered IN_PROGRESS with last time. */
  callbackContext?: Record<string, unknown>;
  logger: HandlerLogger;
  /** Aborted when the hook's time is up. */
  signal: AbortSignal;
}

export type HookStatus = 'SUCCESS' | 'FAILED' | 'IN_PROGRESS';

/**
 * What a hook answers. SUCCESS lets the change proceed; FAILED (`errorCode` `NonCompliant`, by
 * convention) refuses it in FAIL mode and warns in WARN mode; FAILED with `UnsupportedTarget` means
 * the hook has nothing to say about this target. IN_PROGRESS asks to be called again after
 * `callbackDelaySeconds`, within the hook's timeout.
 */
export interface HookEvent {
  status: HookStatus;
  errorCode?: string;
  /** For people: shown in the verdict (cut at 1,024 characters). Never put write-only values in it. */
  message?: string;
  callbackContext?: Record<string, unknown>;
  callbackDelaySeconds?: number;
}

export type HookHandler = (request: HookRequest) => Promise<HookEvent>;

/** What serves hooks: a `defineHook` module or an HTTP endpoint (`createRemoteHook`). */
export interface HookServer {
  /** Shown in logs and verdicts' messages. */
  readonly name: string;
  /** The hook type names it serves. */
  readonly hooks: readonly string[];
  /** A hook schema file to register when the server starts (relative to the module, or absolute). */
  readonly schema?: string;
  readonly preCreate?: HookHandler;
  readonly preUpdate?: HookHandler;
  readonly preDelete?: HookHandler;
  close?(): void | Promise<void>;
}
