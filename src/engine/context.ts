/**
 * @module What every part of the engine works with, wired once by the `Engine`; and the time limits
 * of handler calls.
 */
import type { CallLimits, HandlerAction, Provider } from '../handler/index.js';
import type { Registry } from '../registry/registry.js';
import { DEFAULT_TIMEOUT_MINUTES, type ResourceType } from '../schema/index.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';
import type { ConfigurationSource } from '../type-configuration/index.js';
import type { EngineLogger } from './logger.js';
import type { EngineObserver } from './observer.js';
import type { Reviewer } from './review.js';
import type { Operation } from './types.js';
import type { Worker } from './worker.js';

export interface EngineContext {
  readonly store: Store;
  readonly registry: Registry;
  /** The provider serving a type (the state provider when none is configured). */
  readonly providerFor: (typeName: string) => Provider;
  readonly log: EngineLogger;
  /** Seals write-only values, callback contexts and request hashes before they reach the store. */
  readonly sealer: Sealer;
  /** Milliseconds in a "minute" of a handler's timeoutInMinutes. */
  readonly minuteMs: number;
  /** The longest one handler invocation may take, whatever the operation's timeout. */
  readonly callLimits: CallLimits;
  /** Operate only on types whose provider has a passing contract report (`admission.ts`). */
  readonly requirePassingContract: boolean;
  /** Runs operations: claims them, holds their leases, steps them. */
  readonly worker: Worker;
  /** Types' configurations, handed to their handlers. */
  readonly configurations?: ConfigurationSource;
  /** Told of ended operations and handler calls (metrics). */
  readonly observer?: EngineObserver;
  /** Reviews every change before it begins (admission policies and hooks). */
  readonly reviewer?: Reviewer;
}

/**
 * A type's configuration for a handler request (`{}` when it takes none or has none set).
 * Opened per invocation: another replica may have changed it.
 */
export async function configurationOf(
  ctx: EngineContext,
  type: ResourceType,
): Promise<{ typeConfiguration?: Record<string, unknown> }> {
  if (!type.typeConfiguration || !ctx.configurations) return {};
  const typeConfiguration = await ctx.configurations.get(type.typeName);
  return typeConfiguration ? { typeConfiguration } : {};
}

/** The handler each asynchronous operation invokes. */
export const ACTION: Record<Exclude<Operation, 'LIST' | 'READ'>, HandlerAction> = {
  CREATE: 'create',
  UPDATE: 'update',
  DELETE: 'delete',
};

export function timeoutMinutes(type: ResourceType, action: HandlerAction): number {
  return type.handlers[action]?.timeoutInMinutes ?? DEFAULT_TIMEOUT_MINUTES;
}
