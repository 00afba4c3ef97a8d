/**
 * @module What the provider was last seen to answer of a recorded resource, when its record does
 * not say it (a NotFound): noted beside the record, so that a list can say it.
 *
 * Noting it is a write, but of metadata only: never the record, never an operation, and only when
 * it changes (the first NotFound, the first answer after one), so a reader's read stays a read. It
 * changes nothing anyone may do with the resource: a NotFound may be transient (a provider restarted,
 * an eventually consistent API), so only a writer's delete or forget drops a record.
 */
import type { Observation, StoredResource } from '../store/types.js';
import type { EngineContext } from './context.js';

/** Notes `observed` (undefined: the provider answered as the record says) of the row `stored`, as it was read. */
export async function observe(
  ctx: EngineContext,
  stored: StoredResource,
  observed: Observation | undefined,
): Promise<void> {
  if ((stored.observed === undefined) === (observed === undefined)) return;
  // Guarded by the row's updatedAt: a write since the read is newer news than this answer.
  await ctx.store.observeResource(stored.typeName, stored.identifier, stored.updatedAt, observed);
}

/** Notes that the provider answered NotFound for the recorded resource, unless already noted. */
export async function noteNotFound(ctx: EngineContext, typeName: string, identifier: string): Promise<void> {
  const stored = await ctx.store.getResource(typeName, identifier);
  if (stored) await observe(ctx, stored, notFoundNow());
}

export const notFoundNow = (): Observation => ({ status: 'NotFound', since: new Date().toISOString() });
