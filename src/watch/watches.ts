/**
 * @module A server's watches: who may open one (429 past the limits, 403 for a type the token does
 * not see, 410 for a version the change log no longer reaches), the one change feed they share, and
 * the periodic check that ends a revoked token's watches.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { TypeplaneError } from '../errors.js';
import { typeVisible, type Principal, type Tokens } from '../auth/index.js';
import type { Engine } from '../engine/index.js';
import type { Registry } from '../registry/registry.js';
import type { Store } from '../store/index.js';
import { EventMaker, currentResources, type PreparedChange } from './events.js';
import { ChangeFeed, PAGE } from './feed.js';
import { watchLimits, type WatchLimits } from './limits.js';
import { newWatchCounts, WatchStream, type Selector, type WatchCounts, type WatchFormat } from './stream.js';
import { followStackEvents, type StackEventSource } from './stack-events.js';
import { requestMatches, ResourceFilter, type RequestFilter } from './filters.js';
import { parseFilters } from '../engine/index.js';

export interface WatchesOptions {
  store: Store;
  engine: Engine;
  registry: Registry;
  tokens: Tokens;
  logger: Logger;
  limits?: Partial<WatchLimits>;
}

/**
 * What a watch is of, narrowed as the list's filters narrow a page: a type's resources by top-level
 * properties (the list's `?Property=value`), operations by operation and status.
 */
export type WatchTarget =
  | { kind: 'resources'; typeName: string; filters?: Record<string, unknown> }
  | ({ kind: 'requests' } & RequestFilter);

/** One watch asked for, as the HTTP layer read it. */
export interface WatchRequest {
  target: WatchTarget;
  principal: Principal;
  /** The bearer token as sent, checked again every `revocationCheckMs`. */
  token: string;
  /** The version to watch from; undefined: from now. */
  from: number | undefined;
  format: WatchFormat;
  /** The answer's media type (`text/event-stream`, `application/x-ndjson`, `application/json;stream=watch`). */
  contentType: string;
}

/** A watch of one stack's events (they are the stack's records, not the change log). */
export interface StackEventsWatchRequest extends Omit<WatchRequest, 'target' | 'from'> {
  /** Reads the stack's events as a principal sees them (the stack pinned by its id). */
  source: StackEventSource;
  /** The event id to watch after; undefined: every event kept, then the new ones. */
  from: string | undefined;
}

/** A change log version older than the log keeps: the client lists again (Kubernetes' 410 Expired). */
export class WatchExpired extends TypeplaneError {
  constructor(from: number, horizon: number) {
    super(
      'NotFound',
      `resourceVersion ${from} is older than the change log keeps (it goes back to ${horizon}): list again and watch from the list's resourceVersion`,
      [{ pointer: '/query/resourceVersion', message: `older than ${horizon}` }],
      410,
    );
  }
}

export class Watches {
  readonly limits: WatchLimits;
  private readonly events: EventMaker;
  private readonly feed: ChangeFeed;
  private readonly store: Store;
  private readonly tokens: Tokens;
  private readonly registry: Registry;
  private readonly logger: Logger;
  /** Open watches by the token they were opened with. */
  private readonly byToken = new Map<string, { principal: Principal; streams: Set<WatchStream> }>();
  private readonly perTokenId = new Map<string, number>();
  private total = 0;
  private revocationTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: WatchesOptions) {
    this.limits = watchLimits(options.limits);
    this.store = options.store;
    this.tokens = options.tokens;
    this.registry = options.registry;
    this.logger = options.logger;
    this.events = new EventMaker(options.engine, options.registry, options.store);
    this.feed = new ChangeFeed(options.store, this.events, this.limits.pollMs, (error) =>
      this.logger.error({ err: error }, 'reading the change log for watches failed; trying again'),
    );
  }

  /** Watches open now. */
  get open(): number {
    return this.total;
  }

  /** What the watches sent, and why they ended, since the server started (its metrics read them). */
  readonly counts: WatchCounts = newWatchCounts();

  /**
   * Serves a watch on `response`. Refusals (TypeplaneError: 404 no such type, 410, 429) are thrown
   * before anything is written; once `started` is called the response is the stream's.
   */
  async serve(request: WatchRequest, response: ServerResponse, started: () => void): Promise<void> {
    this.admit(request);
    const { select, filter } = await this.selector(request);
    const stream = this.stream(request, response, select);
    if (request.target.kind === 'resources') {
      const typeName = request.target.typeName;
      stream.visibleTo = (principal) => typeVisible(principal, typeName);
    }
    this.opened(request, stream);
    try {
      const position = await this.feed.attach(stream);
      const from = request.from ?? position;
      const first = await this.store.readChanges(from, PAGE);
      if (first.horizon > from) throw new WatchExpired(from, first.horizon);
      stream.startAt(from);
      const changes = await this.events.prepare(first.changes);
      begin(request, response, started);
      // From now: the type's resources as they stand first (a change meanwhile may come twice).
      if (request.from === undefined && request.target.kind === 'resources')
        await currentResources(
          this.store,
          (await this.registry.get(request.target.typeName)).type,
          from,
          (events) => stream.sendCurrent(events),
          filter && ((identifier, properties) => filter.current(identifier, properties)),
        );
      await stream.replay(this.store, this.events, {
        changes,
        full: first.changes.length === PAGE,
      });
    } catch (error) {
      this.failed(stream, response, error);
    }
  }

  /**
   * Serves a watch of a stack's events on `response`, under the same limits as every watch;
   * refusals (the stack missing or out of reach, 429) are thrown before anything is written.
   */
  async serveStackEvents(
    request: StackEventsWatchRequest,
    response: ServerResponse,
    started: () => void,
  ): Promise<void> {
    this.admit(request);
    const stream = this.stream(request, response, () => undefined);
    this.opened(request, stream);
    const { token, principal } = request;
    try {
      await followStackEvents(
        stream,
        request.source,
        () => this.byToken.get(token)?.principal ?? principal,
        request.from,
        this.limits.pollMs,
        () => begin(request, response, started),
      );
    } catch (error) {
      this.failed(stream, response, error);
    }
  }

  /** Refuses a watch past the limits, or while the server closes. */
  private admit(request: Pick<WatchRequest, 'principal'>): void {
    if (this.closed) throw new TypeplaneError('ServiceInternalError', 'the server is shutting down', [], 503);
    const mine = this.perTokenId.get(request.principal.tokenId) ?? 0;
    if (mine >= this.limits.perToken)
      throw new TypeplaneError(
        'Throttling',
        `this token has ${mine} watches open, the most one token may (typeplane serve --watch-limit-per-token): close one first`,
      );
    if (this.total >= this.limits.total)
      throw new TypeplaneError(
        'Throttling',
        `the server has ${this.total} watches open, the most it serves (typeplane serve --watch-limit): try again later`,
      );
  }

  private stream(
    request: Pick<WatchRequest, 'principal' | 'token' | 'format'>,
    response: ServerResponse,
    select: Selector,
  ): WatchStream {
    const tokenId = request.principal.tokenId;
    const stream = new WatchStream(
      response,
      request.format,
      select,
      0,
      this.limits.maxBufferedBytes,
      this.limits.bookmarkMs,
      (ended) => this.ended(request.token, tokenId, ended),
    );
    stream.counts = this.counts;
    return stream;
  }

  /** A watch that failed: a refusal still to answer is thrown; a stream begun ends with an ERROR event. */
  private failed(stream: WatchStream, response: ServerResponse, error: unknown): void {
    if (!response.headersSent) {
      stream.abandon();
      throw error;
    }
    this.logger.error({ err: error }, 'a watch failed');
    stream.end(
      'InternalFailure',
      500,
      'the watch failed on the server; watch again from the last resourceVersion',
    );
  }

  /** Ends every watch (the server is closing): each gets an ERROR event saying so. */
  close(): void {
    this.closed = true;
    for (const { streams } of this.byToken.values())
      for (const stream of streams)
        stream.end(
          'ServiceInternalError',
          503,
          'the server is shutting down: watch again from the last resourceVersion',
        );
    this.feed.stop();
    clearInterval(this.revocationTimer);
  }

  /** Which changes the watch sends, and (a filtered watch of resources) its filter. */
  private async selector(request: WatchRequest): Promise<{ select: Selector; filter?: ResourceFilter }> {
    const { target } = request;
    if (target.kind === 'requests') {
      const { token, principal } = request;
      const narrowed = Object.keys(target).length > 1;
      // As the token is now: the revocation check reads it again.
      return {
        select: (change, seenUpTo) =>
          typeVisible(this.byToken.get(token)?.principal ?? principal, change.typeName) &&
          (!narrowed || requestMatches(change, target))
            ? change.request.begunAt > seenUpTo
              ? change.request.added
              : change.request.modified
            : undefined,
      };
    }
    // The type as registered (404 for none), under its canonical name; its filters checked against it.
    const type = (await this.registry.get(target.typeName)).type;
    const typeName = type.typeName;
    const filters = parseFilters(type, target.filters);
    if (filters.length === 0)
      return {
        select: (change: PreparedChange) => (change.typeName === typeName ? change.resource : undefined),
      };
    const filter = new ResourceFilter(filters, request.from !== undefined);
    return {
      select: (change: PreparedChange) => (change.typeName === typeName ? filter.select(change) : undefined),
      filter,
    };
  }

  /** The principal a token's watches see with, updated by the revocation check. */
  private byTokenHolder(request: Pick<WatchRequest, 'principal' | 'token'>): {
    principal: Principal;
    streams: Set<WatchStream>;
  } {
    let entry = this.byToken.get(request.token);
    if (!entry)
      this.byToken.set(request.token, (entry = { principal: request.principal, streams: new Set() }));
    return entry;
  }

  private opened(request: Pick<WatchRequest, 'principal' | 'token'>, stream: WatchStream): void {
    this.byTokenHolder(request).streams.add(stream);
    const tokenId = request.principal.tokenId;
    this.perTokenId.set(tokenId, (this.perTokenId.get(tokenId) ?? 0) + 1);
    this.total++;
    if (!this.revocationTimer) {
      this.revocationTimer = setInterval(() => void this.checkTokens(), this.limits.revocationCheckMs);
      this.revocationTimer.unref();
    }
  }

  private ended(token: string, tokenId: string, stream: WatchStream): void {
    this.feed.detach(stream);
    const entry = this.byToken.get(token);
    if (!entry?.streams.delete(stream)) return;
    if (entry.streams.size === 0) this.byToken.delete(token);
    const left = (this.perTokenId.get(tokenId) ?? 1) - 1;
    if (left > 0) this.perTokenId.set(tokenId, left);
    else this.perTokenId.delete(tokenId);
    this.total--;
    if (this.total === 0) {
      clearInterval(this.revocationTimer);
      this.revocationTimer = undefined;
    }
  }

  /** Each watching token once: a revoked one's watches end, a changed one's see with its new scope. */
  private async checkTokens(): Promise<void> {
    for (const [token, entry] of [...this.byToken]) {
      let principal: Principal | undefined;
      try {
        principal = await this.tokens.authenticate(token);
      } catch (error) {
        this.logger.warn(
          { err: error },
          'checking a watching token failed; its watches go on until the next check',
        );
        continue;
      }
      if (principal) {
        entry.principal = principal;
        for (const stream of entry.streams)
          if (!stream.visibleTo(principal))
            stream.end('AccessDenied', 403, 'the token this watch was opened with no longer sees its type');
        continue;
      }
      for (const stream of entry.streams)
        stream.end('InvalidCredentials', 401, 'the token this watch was opened with was revoked');
    }
  }
}

/** The stream's headers: from here on the response is the watch's. */
function begin(
  request: Pick<WatchRequest, 'contentType'>,
  response: ServerResponse,
  started: () => void,
): void {
  started();
  response.writeHead(200, {
    'content-type': request.contentType,
    'cache-control': 'no-cache, no-store',
    // A proxy that buffers answers (nginx) would hold the events back.
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
}
