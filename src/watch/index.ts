/**
 * @module Watch: resources and operations as they change, streamed (Server-Sent Events or NDJSON)
 * from the store's change log, resumable by resource version, as Kubernetes' watch is. See
 * docs/watch.md.
 *
 * @example
 * const watches = new Watches({ store, engine, registry, tokens, logger });
 * // in a list route: if (isWatch(request.query)) return serveWatch(watches, request, reply, principal, target);
 */
export { Watches, WatchExpired, type WatchesOptions, type WatchTarget } from './watches.js';
export { isWatch, serveStackEventsWatch, serveWatch, WATCH_PARAMETERS } from './http.js';
export type { StackEventSource } from './stack-events.js';
export { DEFAULT_WATCH_LIMITS, watchLimits, type WatchLimits } from './limits.js';
export type { WatchCounts, WatchEndReason } from './stream.js';
