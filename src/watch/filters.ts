/**
 * @module What narrows a watch, as the list's own filters narrow its page (Kubernetes' label and
 * field selectors on a watch). Operations: `operation`, `status`, `typeName` and `identifier`, each
 * change tested as it stands. Resources: top-level properties (the list's filters), where a resource entering the filter
 * is sent as ADDED and one leaving it as DELETED (its properties as they now are), as Kubernetes
 * does — which needs what each resource matched when last seen, kept for those the watch may have
 * sent.
 */
import { matches, type ListFilter } from '../engine/index.js';
import type { Model } from '../model/index.js';
import { eventJson, type PreparedChange } from './events.js';

/**
 * A watch of operations narrowed to some operations and statuses (any, for a list left out), one
 * type's, or one resource's.
 */
export interface RequestFilter {
  operation?: readonly string[];
  status?: readonly string[];
  typeName?: string;
  identifier?: string;
}

export function requestMatches(change: PreparedChange, filter: RequestFilter): boolean {
  return (
    (filter.operation === undefined || filter.operation.includes(change.request.operation)) &&
    (filter.status === undefined || filter.status.includes(change.request.status)) &&
    (filter.typeName === undefined || filter.typeName === change.typeName) &&
    (filter.identifier === undefined || filter.identifier === change.request.identifier)
  );
}

/** One watch's view of which of a type's resources match its filters. */
export class ResourceFilter {
  /**
   * Whether each resource matched when the watch last saw it. Only what matched is kept, unless the
   * watch resumed from a version: then what it did not see may have matched before, and a resource
   * not known to have left the filter is told of as leaving it.
   */
  private readonly matched = new Map<string, boolean>();

  constructor(
    private readonly filters: readonly ListFilter[],
    private readonly resumed: boolean,
  ) {}

  /** A resource as it stands when the watch starts: whether it is sent (ADDED). */
  current(identifier: string, properties: Model): boolean {
    const now = matches(properties, this.filters);
    if (now) this.matched.set(identifier, true);
    return now;
  }

  /** The event this watch sends for `change` of its type, if any. */
  select(change: PreparedChange): string | undefined {
    const event = change.resourceEvent;
    if (event === undefined) return undefined;
    const { identifier, properties } = event.object;
    // A resource made now was nowhere before; another may have matched before the watch began.
    const before = event.type === 'ADDED' ? false : (this.matched.get(identifier) ?? this.resumed);
    if (event.type === 'DELETED') {
      this.matched.delete(identifier);
      return before ? change.resource : undefined;
    }
    // Without properties (its type deregistered since) nothing can be tested: as it was.
    const now = properties === undefined ? before : matches(properties, this.filters);
    if (now) this.matched.set(identifier, true);
    else if (this.resumed) this.matched.set(identifier, false);
    else this.matched.delete(identifier);
    if (now) return before || event.type === 'ADDED' ? change.resource : eventJson('ADDED', event.object);
    return before ? eventJson('DELETED', event.object) : undefined;
  }
}
