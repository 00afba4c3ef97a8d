/**
 * @module Admission: with `requirePassingContract`, a type served by a provider of its own is operated
 * on only while its registration has a passing contract report attached (`registry/contract-reports.ts`).
 * The built-in state provider is the engine's own record and needs none.
 */
import { TypeplaneError } from '../errors.js';
import type { ResourceType } from '../schema/index.js';
import type { EngineContext } from './context.js';

export async function assertAdmitted(ctx: EngineContext, type: ResourceType): Promise<void> {
  if (!ctx.requirePassingContract) return;
  const provider = ctx.providerFor(type.typeName);
  if (provider.recordBacked) return;
  const status = await ctx.registry.contractStatus(type.typeName);
  if (status?.passed) return;
  throw new TypeplaneError(
    'InvalidTypeConfiguration',
    status
      ? `${type.typeName}'s provider ${status.provider} failed the contract suite (${status.failedTests.join(', ') || 'interrupted or left resources behind'}); this server runs only types whose provider passed it: fix the provider, run 'typeplane test --format json' again and attach the report (POST /v1/types/{typeName}/contract-report)`
      : `${type.typeName} has no passing contract report for its registration; this server runs only types whose provider passed 'typeplane test': attach its '--format json' report (POST /v1/types/{typeName}/contract-report)`,
  );
}
