/**
 * @module Forget: Typeplane's record of a resource dropped without calling its provider, for a
 * resource the provider no longer has (reads answer NotFound) or that is managed elsewhere now.
 * An explicit act of a writer, never a side effect of a read.
 */
import { TypeplaneError } from '../errors.js';
import { askedBy, begin } from './begin.js';
import type { Caller } from './caller.js';
import type { EngineContext } from './context.js';
import { deleteInRecord } from './record-backed.js';
import { findResource } from './sealing.js';
import type { ProgressEvent } from './types.js';

/**
 * Recorded as a DELETE completed at once (so it shows in the requests, and waits for no slot), under
 * the same checks as a delete: not while another operation is active on the resource or other
 * resources refer to it.
 */
export async function forget(
  ctx: EngineContext,
  typeName: string,
  identifier: string,
  caller?: Caller,
): Promise<ProgressEvent> {
  const compiled = await ctx.registry.get(typeName);
  const type = compiled.type;
  const stored = await findResource(ctx.store, type, identifier);
  if (!stored)
    throw new TypeplaneError(
      'NotFound',
      `${type.typeName} ${identifier} does not exist: there is no record to forget`,
    );
  // A record-backed provider's resource is its record: forgetting it would delete it, handler or not.
  if (ctx.providerFor(type.typeName).recordBacked)
    throw new TypeplaneError(
      'InvalidRequest',
      `${type.typeName} is kept by Typeplane's own state provider, whose record is the resource: there is nothing to forget it from; delete it instead`,
    );
  const primary = stored.identifier;
  return begin(ctx, {
    compiled,
    operation: 'DELETE',
    identifier: primary,
    request: {},
    clientToken: undefined,
    hashOf: {},
    decide: deleteInRecord(type, primary, caller),
    ...askedBy(caller),
    statusMessage: `forgotten: Typeplane's record was dropped without calling the provider (whatever the provider still has is no longer managed here)`,
  });
}
