/**
 * @module Admission: an operation runs only where its type's schema declares a handler for it (a
 * schema that declares handlers supports those actions only, as CloudFormation refuses an update of a
 * type without an update handler; a schema that declares none supports every action); and with
 * `requirePassingContract`, a type served by a provider of its own is operated on only while its
 * registration has a passing contract report attached (`registry/contract-reports.ts`). The built-in
 * state provider is the engine's own record and needs none.
 */
import { TypeplaneError } from '../errors.js';
import type { CompiledType } from '../registry/compile.js';
import type { HandlerAction, ResourceType } from '../schema/index.js';
import { requiresConfiguration } from '../type-configuration/index.js';
import type { EngineContext } from './context.js';

/** An operation the type's schema declares no handler for: 405, and Cloud Control's UnsupportedActionException. */
export class UnsupportedAction extends TypeplaneError {
  constructor(
    readonly typeName: string,
    readonly action: HandlerAction,
    declared: readonly string[],
  ) {
    super(
      'InvalidRequest',
      `${typeName} does not support ${action.toUpperCase()}: its schema declares handlers for ${declared.join(', ')} only; to allow it, declare a ${action} handler in the schema (and implement it in the provider) and register the type again`,
      [{ pointer: '/handlers', message: `has no ${action} handler` }],
      405,
    );
  }
}

/** @throws UnsupportedAction when the type declares handlers and none for `action`. */
export function assertSupported(type: ResourceType, action: HandlerAction): void {
  if (type.handlers[action] !== undefined) return;
  const declared = Object.keys(type.handlers);
  if (declared.length > 0) throw new UnsupportedAction(type.typeName, action, declared);
}

/**
 * `action`: the operation asked for (a PUT checks the one it turns out to be). Decided without a
 * promise (undefined, or a throw) unless a contract report must be read.
 */
export function assertAdmitted(
  ctx: EngineContext,
  compiled: CompiledType,
  action?: HandlerAction,
): Promise<void> | undefined {
  if (action !== undefined) assertSupported(compiled.type, action);
  if (!ctx.requirePassingContract) return undefined;
  if (ctx.providerFor(compiled.type.typeName).recordBacked) return undefined;
  return assertPassingContract(ctx, compiled);
}

async function assertPassingContract(ctx: EngineContext, compiled: CompiledType): Promise<void> {
  const type = compiled.type;
  const status = await ctx.registry.contractStatus(type.typeName, compiled.version);
  if (status?.passed) return;
  throw new TypeplaneError(
    'InvalidTypeConfiguration',
    status
      ? `${type.typeName}'s provider ${status.provider} failed the contract suite (${status.failedTests.join(', ') || 'interrupted or left resources behind'}); this server runs only types whose provider passed it: fix the provider, run 'typeplane test -o json' again and attach the report (POST /v1/types/{typeName}/contract-report)`
      : `${type.typeName} has no passing contract report for this version's registration; this server runs only types whose provider passed 'typeplane test': attach its '-o json' report (POST /v1/types/{typeName}/contract-report)`,
  );
}

/**
 * @throws InvalidTypeConfiguration when the type requires a configuration and none is set. Decided
 * without a promise (undefined) when the type, fresh in memory, requires none.
 */
export function assertConfigured(ctx: EngineContext, typeName: string): Promise<void> | undefined {
  const fresh = ctx.registry.fresh(typeName);
  if (fresh && !requiresConfiguration(fresh.type.typeConfiguration)) return undefined;
  return configuredNow(ctx, typeName);
}

async function configuredNow(ctx: EngineContext, typeName: string): Promise<void> {
  const { type } = await ctx.registry.get(typeName);
  if (!requiresConfiguration(type.typeConfiguration)) return;
  if (await ctx.configurations?.has(type.typeName)) return;
  throw new TypeplaneError(
    'InvalidTypeConfiguration',
    `${type.typeName} needs its type configuration before it can be used: an admin sets it with 'typeplane type configure ${type.typeName} --file <config.json>' (PUT /v1/types/{typeName}/configuration)`,
  );
}
