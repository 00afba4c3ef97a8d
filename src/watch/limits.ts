/**
 * @module What a server's watches may cost, and how often they are kept alive and checked.
 */

export interface WatchLimits {
  /** Watches one token may hold open at once (default 64); one more is refused with 429. */
  perToken: number;
  /** Watches open at once on this server (default 10,000); one more is refused with 429. */
  total: number;
  /**
   * Bytes of events a watch may have waiting for its client (default 1 MiB): past it the client is
   * too slow, and its watch is ended with an ERROR event saying so.
   */
  maxBufferedBytes: number;
  /** A BOOKMARK every this many ms (default 20 s): keeps proxies from closing an idle stream. */
  bookmarkMs: number;
  /** The change log is read this often (default 300 ms) besides when this process commits a change. */
  pollMs: number;
  /** Each watching token is checked this often (default 5 s): a revoked one's watches end. */
  revocationCheckMs: number;
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = {
  perToken: 64,
  total: 10_000,
  maxBufferedBytes: 1024 * 1024,
  bookmarkMs: 20_000,
  pollMs: 300,
  revocationCheckMs: 5_000,
};

/** `limits` over the defaults, each a positive integer (a zero or fraction is a mistake worth refusing). */
export function watchLimits(limits: Partial<WatchLimits> = {}): WatchLimits {
  const merged = { ...DEFAULT_WATCH_LIMITS, ...limits };
  for (const [name, value] of Object.entries(merged))
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`watch limit ${name} must be a positive integer, not ${String(value)}`);
  return merged;
}
