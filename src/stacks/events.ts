/**
 * @module A stack's events, a page at a time: a live stack's, or a deleted one's as it was kept
 * (its final DELETE_COMPLETE included); events of types out of the caller's reach left out, and the
 * stack's own reasons shown only to who sees every type it has used.
 */
import { TypeplaneError } from '../errors.js';
import type { StacksCore } from './core.js';
import { stackNotFound, touchedTypes } from './reach.js';
import type { DeletedStack, StackEvent } from './records.js';

/** An event id (`timeKey`), or its time part alone: events after that instant. */
const EVENT_KEY = /^\d{1,15}(-[0-9a-f]{8})?$/;

export async function events(
  core: StacksCore,
  name: string,
  options: { limit?: number; nextToken?: string; after?: string; stackId?: string },
  visible: (typeName: string) => boolean,
): Promise<{ events: StackEvent[]; nextToken: string | null }> {
  const live = await core.records.getStack(name);
  const deleted =
    live && (options.stackId === undefined || live.record.stackId === options.stackId)
      ? undefined
      : ((await deletedStack(core, name, options.stackId, visible)) ?? throwing(stackNotFound(name)));
  if (options.after !== undefined && !EVENT_KEY.test(options.after))
    throw new TypeplaneError(
      'InvalidRequest',
      `after must be an event id (digits, optionally '-' and 8 hex digits), not '${options.after.slice(0, 40)}'`,
    );
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
  // A bare time is padded as event ids are, so it sorts before every event of that millisecond.
  const after = options.after?.includes('-') === false ? options.after.padStart(15, '0') : options.after;
  const page = deleted
    ? await core.records.listDeletedEvents(deleted.stackId, limit, options.nextToken, after)
    : await core.records.listEvents(name, limit, options.nextToken, after);
  const types = deleted ? deleted.types : await touchedTypes(core.records, name);
  // Judged on the stack as read: one made after a caller's reach was checked (a missing stack passes
  // that check, to answer NotFound here) is out of reach as a missing one when it reaches none of it.
  if (!deleted && types.length > 0 && !types.some(visible)) throw stackNotFound(name);
  // A stack event's reason may quote a resource out of the caller's reach: shown only to who sees all.
  const whole = types.every(visible);
  return {
    events: page.items
      .filter((e) => e.type === 'Typeplane::Stack' || visible(e.type))
      .map((e) => {
        if (whole || e.type !== 'Typeplane::Stack' || e.reason === undefined) return e;
        const { reason: _hidden, ...rest } = e;
        return rest;
      }),
    nextToken: page.nextToken ?? null,
  };
}

/**
 * The deleted stack `stackId` of `name`, or the last deleted of that name; undefined when none is
 * kept, or the caller reaches none of its types (out of reach answers as missing).
 */
async function deletedStack(
  core: StacksCore,
  name: string,
  stackId: string | undefined,
  visible: (typeName: string) => boolean,
): Promise<DeletedStack | undefined> {
  const kept = new Date(Date.now() - core.deletedRetentionMs).toISOString();
  const found = (await core.records.deletedNamed(name))
    .filter((d) => d.deletedAt >= kept && (stackId === undefined || d.stackId === stackId))
    .at(-1);
  if (!found || (found.types.length > 0 && !found.types.some(visible))) return undefined;
  return found;
}

function throwing(e: Error): never {
  throw e;
}
