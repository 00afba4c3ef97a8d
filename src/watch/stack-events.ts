/**
 * @module A stack's events as a watch: each event sent once, as ADDED, its id as its resourceVersion
 * (and an SSE event's id). A stack's events are its records, not the change log: the watch reads them
 * every `pollMs`. An event is written a moment after its id is made (parallel steps of a deployment
 * write in any order), so each read goes back {@link LOOKBACK_MS} before the newest event sent and
 * skips those already sent.
 */
import { TypeplaneError } from '../errors.js';
import type { Principal } from '../auth/index.js';
import { eventJson } from './events.js';
import type { WatchStream } from './stream.js';

/** What a stack-events watch needs of an event: its id (`<15-digit ms>-<8 hex>`, in time order). */
export interface StackEventLike {
  eventId: string;
}

/** Reads a stack's events as a principal may see them (the stacks route's answer, page by page). */
export type StackEventSource = (
  principal: Principal,
  page: { after?: string; nextToken?: string; limit: number },
) => Promise<{ events: readonly StackEventLike[]; nextToken: string | null }>;

/** How far before the newest event sent each read goes back, for events written late. */
export const LOOKBACK_MS = 2_000;
/** Events read at once. */
const PAGE = 500;

/** The event id's time part, in ms. */
const timeOf = (eventId: string) => Number(eventId.slice(0, 15));

/**
 * Sends the stack's events after `from` (every kept one without it), then each new one as it is
 * written, until the watch ends. `begin` is called before the first event is sent (a refusal thrown
 * before it answers as the API's errors do); `principal` is the token's as last checked.
 */
export async function followStackEvents(
  stream: WatchStream,
  source: StackEventSource,
  principal: () => Principal,
  from: string | undefined,
  pollMs: number,
  begin: () => void,
): Promise<void> {
  /** Event ids sent within the lookback, by their time: older ones are never read again. */
  const sent = new Map<string, number>();
  let newest = from;
  stream.versionSent = () => newest ?? '0';
  let begun = false;
  while (stream.open) {
    const after = newest === undefined ? undefined : String(Math.max(0, timeOf(newest) - LOOKBACK_MS));
    let nextToken: string | null = null;
    do {
      let page;
      try {
        page = await source(principal(), {
          limit: PAGE,
          ...(after ? { after } : {}),
          ...(nextToken ? { nextToken } : {}),
        });
      } catch (error) {
        // Deleted past its retention, or out of the token's reach now: nothing more will be seen.
        if (!begun || !(error instanceof TypeplaneError && error.status === 404)) throw error;
        return stream.end(
          'NotFound',
          404,
          `the stack's events are no longer there to watch: ${error.message}`,
        );
      }
      if (!begun) {
        begun = true;
        begin();
      }
      const fresh = page.events.filter(
        (e) => !sent.has(e.eventId) && (from === undefined || e.eventId > from),
      );
      for (const e of fresh) {
        sent.set(e.eventId, timeOf(e.eventId));
        if (newest === undefined || e.eventId > newest) newest = e.eventId;
      }
      const frames = fresh.map((e) => ({
        version: e.eventId,
        json: eventJson('ADDED', { ...e, resourceVersion: e.eventId }),
      }));
      if (!(await stream.sendVersioned(frames))) return;
      nextToken = page.nextToken;
    } while (nextToken);
    if (newest !== undefined) {
      const horizon = timeOf(newest) - LOOKBACK_MS;
      for (const [id, time] of sent) if (time < horizon) sent.delete(id);
    }
    await stream.pause(pollMs);
  }
}
