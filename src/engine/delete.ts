/**
 * @module Delete: refused while other resources refer to it, then an operation begun.
 */
import { begin, failImmediately } from './begin.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { deleteInRecord } from './record-backed.js';
import { stillReferenced } from './references.js';
import { resourceWithSecrets } from './sealing.js';
import type { ProgressEvent } from './types.js';

export async function deleteResource(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  clientToken?: string,
  caller?: Caller,
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const current = await resourceWithSecrets(ctx.store, ctx.sealer, type.typeName, identifier);
  if (!current)
    return failImmediately(
      ctx,
      compiled,
      'DELETE',
      identifier,
      'NotFound',
      `${type.typeName} ${identifier} does not exist`,
      clientToken,
      {},
    );
  const dependants = await ctx.store.listReferrers(type.typeName, identifier, 20);
  if (dependants.length > 0) throw stillReferenced(type.typeName, identifier, dependants, caller);
  const provider = ctx.providerFor(type.typeName);
  return begin(ctx, {
    compiled,
    operation: 'DELETE',
    identifier,
    request: { desiredState: current.properties },
    clientToken,
    hashOf: { identifier },
    ...(provider.recordBacked ? { decide: deleteInRecord(type, identifier, caller) } : {}),
  });
}
