/**
 * @module One watch: a response that stays open, sending events as Server-Sent Events (`id:` is the
 * resource version, so an EventSource resumes with Last-Event-ID) or as NDJSON, one event a line.
 * It never buffers without limit: a client that reads too slowly is cut with an ERROR event.
 */
import type { ServerResponse } from 'node:http';
import type { Principal } from '../auth/index.js';
import type { Store } from '../store/index.js';
import { bookmarkJson, errorJson, type EventMaker, type PreparedChange } from './events.js';
import { PAGE, type FeedSubscriber } from './feed.js';

export type WatchFormat = 'sse' | 'ndjson';

/** Which changes a watch sends, and as which event. */
export type Selector = (change: PreparedChange, seenUpTo: number) => string | undefined;

/** Why a watch ended, as its metrics count it (the ERROR event's status, or the client's leaving). */
export type WatchEndReason =
  | 'client_closed'
  | 'slow_consumer'
  | 'revoked'
  | 'forbidden'
  | 'not_found'
  | 'expired'
  | 'shutdown'
  | 'failed';

const END_REASONS: Record<number, WatchEndReason> = {
  401: 'revoked',
  403: 'forbidden',
  404: 'not_found',
  410: 'expired',
  429: 'slow_consumer',
  503: 'shutdown',
};

/** What a server's watches sent, and why they ended: counted as they go, read by its metrics. */
export interface WatchCounts {
  events: number;
  bytes: number;
  ended: Record<WatchEndReason, number>;
}

export function newWatchCounts(): WatchCounts {
  const ended = {} as Record<WatchEndReason, number>;
  for (const reason of ['client_closed', 'failed', ...Object.values(END_REASONS)] as WatchEndReason[])
    ended[reason] = 0;
  return { events: 0, bytes: 0, ended };
}

/** How long a cut client has to take its final event before its connection is closed. */
const LINGER_MS = 2_000;
/** Live changes a watch holds while it replays the log. */
const MAX_PENDING = 20 * PAGE;

export class WatchStream implements FeedSubscriber {
  /** Every change up to it was sent or not this watch's. */
  private sent: number;
  /** Live changes that came while the watch replayed the log. */
  private pending: PreparedChange[] | undefined = [];
  private pendingPosition = 0;
  private ended = false;
  private readonly bookmarks: NodeJS.Timeout;
  /** Why it ended; undefined while it has not, or when its client left. */
  private endedWith: WatchEndReason | undefined;
  /** Where what it sends and why it ends are counted (the server's, for its metrics). */
  counts: WatchCounts | undefined;

  constructor(
    private readonly response: ServerResponse,
    private readonly format: WatchFormat,
    private readonly select: Selector,
    from: number,
    private readonly maxBufferedBytes: number,
    bookmarkMs: number,
    private readonly onEnd: (stream: WatchStream) => void,
  ) {
    this.sent = from;
    this.bookmarks = setInterval(() => {
      if (this.pending === undefined) {
        const version = this.versionSent();
        this.write(this.framed(version, bookmarkJson(version)), 1);
      }
    }, bookmarkMs);
    this.bookmarks.unref();
    response.on('close', () => this.finish());
  }

  get open(): boolean {
    return !this.ended;
  }

  /**
   * The version a BOOKMARK names, and a slow client is told to watch again from: the change log's
   * (a number); a stack's events' watch sets its own (the last event id it sent).
   */
  versionSent: () => string = () => String(this.sent);

  /** Whether the watch may go on for a token's (re-read) principal; set by whoever opened it. */
  visibleTo: (principal: Principal) => boolean = () => true;

  /** The watch sends what changed after `from`. */
  startAt(from: number): void {
    this.sent = from;
  }

  /** Drops a watch refused before it sent anything (its response answers the refusal). */
  abandon(): void {
    // Refused: it was never open, so nothing of it is counted.
    this.counts = undefined;
    this.finish();
  }

  /**
   * Sends what changed after `from` up to where the feed is (the feed's changes meanwhile wait), then
   * goes live. Pages of the log wait for the client to take the one before.
   */
  async replay(
    store: Store,
    events: EventMaker,
    first: { changes: PreparedChange[]; full: boolean },
  ): Promise<void> {
    let page = first;
    for (;;) {
      this.send(page.changes);
      if (!page.full || this.ended) break;
      await this.drained();
      const read = await store.readChanges(this.sent, PAGE);
      // The operations after where the replay is expired meanwhile: what it would send is gone.
      if (read.horizon > this.sent)
        return this.end(
          'NotFound',
          410,
          `the change log expired past resourceVersion ${this.sent} while the watch replayed it: list again and watch from the list's resourceVersion`,
        );
      page = { changes: await events.prepare(read.changes), full: read.changes.length === PAGE };
    }
    const pending = this.pending ?? [];
    this.pending = undefined;
    this.send(pending);
    this.sent = Math.max(this.sent, this.pendingPosition);
  }

  deliver(changes: readonly PreparedChange[], position: number): void {
    if (this.ended) return;
    if (this.pending !== undefined) {
      this.pending.push(...changes);
      this.pendingPosition = position;
      // Changes come faster than the replay sends the log: it would never catch up.
      if (this.pending.length > MAX_PENDING)
        this.end(
          'Throttling',
          429,
          `more than ${MAX_PENDING} changes came while the watch replayed the log, faster than it could be sent: list again and watch from the list's resourceVersion`,
        );
      return;
    }
    this.send(changes);
    this.sent = Math.max(this.sent, position);
  }

  /**
   * Sends `events` (already JSON) at the version the watch starts from, then waits for the client to
   * take them; false once the watch has ended.
   */
  async sendCurrent(events: readonly string[]): Promise<boolean> {
    if (events.length > 0) this.write(events.map((e) => this.framed(this.sent, e)).join(''), events.length);
    await this.drained();
    return !this.ended;
  }

  /**
   * Sends events that carry their own versions (a stack's events: their ids), in one write, then
   * waits for the client to take them; false once the watch has ended. The first call makes the
   * watch live: BOOKMARKs go out from then on.
   */
  async sendVersioned(events: readonly { version: string; json: string }[]): Promise<boolean> {
    this.pending = undefined;
    if (events.length > 0)
      this.write(events.map((e) => this.framed(e.version, e.json)).join(''), events.length);
    await this.drained();
    return !this.ended;
  }

  /** Resolves once the watch has ended, or after `ms`, whichever comes first. */
  pause(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.response.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.response.on('close', done);
    });
  }

  /** Sends the changes this watch has not sent and may see, in one write. */
  private send(changes: readonly PreparedChange[]): void {
    let text = '';
    let events = 0;
    for (const change of changes) {
      if (change.version <= this.sent) continue;
      const event = this.select(change, this.sent);
      this.sent = change.version;
      if (event === undefined) continue;
      text += this.framed(change.version, event);
      events++;
    }
    if (text !== '') this.write(text, events);
  }

  private framed(version: number | string, json: string): string {
    return this.format === 'sse' ? `id: ${version}\ndata: ${json}\n\n` : `${json}\n`;
  }

  private write(text: string, events: number): void {
    if (this.ended) return;
    this.response.write(text);
    if (this.counts) {
      this.counts.events += events;
      this.counts.bytes += Buffer.byteLength(text);
    }
    if (this.response.writableLength > this.maxBufferedBytes)
      this.end(
        'Throttling',
        429,
        `the client read too slowly: more than ${this.maxBufferedBytes} bytes of events waited for it, so the watch was ended; watch again from resourceVersion ${this.versionSent()}`,
      );
  }

  /** Resolves once the client has taken what was written (at once when little waits). */
  private drained(): Promise<void> {
    if (this.response.writableLength < this.maxBufferedBytes / 4 || this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        this.response.off('close', done);
        resolve();
      };
      this.response.on('drain', done);
      this.response.on('close', done);
    });
  }

  /** Ends the watch with an ERROR event saying why; the connection closes once it is sent. */
  end(errorCode: string, code: number, message: string): void {
    if (this.ended) return;
    const json = errorJson(errorCode, code, message);
    const text = this.format === 'sse' ? `data: ${json}\n\n` : `${json}\n`;
    this.response.end(text);
    if (this.counts) {
      this.counts.events++;
      this.counts.bytes += Buffer.byteLength(text);
    }
    this.endedWith = END_REASONS[code] ?? 'failed';
    this.finish();
    setTimeout(() => this.response.destroy(), LINGER_MS).unref();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.counts) this.counts.ended[this.endedWith ?? 'client_closed']++;
    clearInterval(this.bookmarks);
    this.pending = undefined;
    this.onEnd(this);
  }
}
