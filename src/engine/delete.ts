/**
 * @module Delete: refused while other resources refer to it, then an operation begun.
 */
import { assertAdmitted } from './admission.js';
import { askedBy, begin, failImmediately } from './begin.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { deleteInRecord } from './record-backed.js';
import { stillReferenced } from './references.js';
import { replayOf, reviewChange, warned } from './review.js';
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
  await assertAdmitted(ctx, compiled, 'delete');
  const current = await resourceWithSecrets(ctx.store, ctx.sealer, type, identifier);
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
      undefined,
      caller?.id,
    );
  const replay = await replayOf(ctx, { operation: 'DELETE', compiled, caller }, clientToken, {
    as: 'DELETE',
    of: { identifier },
  });
  if (replay) return replay;
  // The primary identifier, whichever identifier the caller named it by.
  const primary = current.identifier;
  const dependants = await ctx.store.listReferrers(type.typeName, primary, 20);
  if (dependants.length > 0) throw stillReferenced(type.typeName, primary, dependants, caller);
  const verdicts = await reviewChange(ctx, {
    operation: 'DELETE',
    compiled,
    identifier: primary,
    oldObject: current.properties,
    ...(caller ? { caller } : {}),
  });
  const provider = ctx.providerFor(type.typeName);
  return begin(ctx, {
    compiled,
    operation: 'DELETE',
    identifier: primary,
    request: { desiredState: current.properties },
    clientToken,
    hashOf: { identifier },
    ...(provider.recordBacked ? { decide: deleteInRecord(type, primary, caller) } : {}),
    ...askedBy(caller),
    ...warned(verdicts),
  });
}
