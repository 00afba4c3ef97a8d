/**
 * @module Admission: with `requirePassingContract`, a type served by a provider of its own is operated
 * on only while its registration has a passing contract report attached (`registry/contract-reports.ts`).
 * The built-in state provider is the engine's own record and needs none.
 */
import { TypeplaneError } from '../errors.js';
import type { CompiledType } from '../registry/compile.js';
import type { EngineContext } from './context.js';

export async function assertAdmitted(ctx: EngineContext, compiled: CompiledType): Promise<void> {
  if (!ctx.requirePassingContract) return;
  const type = compiled.type;
  const provider = ctx.providerFor(type.typeName);
  if (provider.recordBacked) return;
  const status = await ctx.registry.contractStatus(type.typeName, compiled.version);
  if (status?.passed) return;
  throw new TypeplaneError(
    'InvalidTypeConfiguration',
    status
      ? `${type.typeName}'s provider ${status.provider} failed the contract suite (${status.failedTests.join(', ') || 'interrupted or left resources behind'}); this server runs only types whose provider passed it: fix the provider, run 'typeplane test -o json' again and attach the report (POST /v1/types/{typeName}/contract-report)`
      : `${type.typeName} has no passing contract report for this version's registration; this server runs only types whose provider passed 'typeplane test': attach its '-o json' report (POST /v1/types/{typeName}/contract-report)`,
  );
}
