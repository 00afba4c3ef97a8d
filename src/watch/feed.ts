/**
 * @module The change feed: one reader of the change log per server, whatever the number of watches.
 * It reads when this process commits a change (the store says so), when the store hears another
 * replica did (PostgreSQL's NOTIFY), and every `pollMs` besides; each change is made into its events
 * once and handed to every watch attached.
 */
import type { Store } from '../store/index.js';
import type { EventMaker, PreparedChange } from './events.js';

/** What the feed hands changes to. */
export interface FeedSubscriber {
  /** `changes` in version order; the feed has read every change up to `position`. */
  deliver(changes: readonly PreparedChange[], position: number): void;
}

/** Changes read at once; a longer backlog is read in pages, a turn of the event loop between them. */
export const PAGE = 500;
/** The least time between two reads of the log. */
const READ_GAP_MS = 10;

export class ChangeFeed {
  /** Every change up to it has been read; undefined while nobody is attached. */
  private position: number | undefined;
  private starting: Promise<number> | undefined;
  private readonly subscribers = new Set<FeedSubscriber>();
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;
  private reading = false;
  private again = false;
  private scheduled: NodeJS.Timeout | undefined;
  private lastRead = 0;

  constructor(
    private readonly store: Store,
    private readonly events: EventMaker,
    private readonly pollMs: number,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** The version every change up to which has been handed out (undefined while nobody is attached). */
  get at(): number | undefined {
    return this.position;
  }

  /** Attaches `subscriber`; resolves with the position it gets every change after. */
  async attach(subscriber: FeedSubscriber): Promise<number> {
    const position = this.position ?? (await (this.starting ??= this.start()));
    this.subscribers.add(subscriber);
    return Math.max(position, this.position ?? position);
  }

  detach(subscriber: FeedSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0 && this.position !== undefined) this.stop();
  }

  private async start(): Promise<number> {
    try {
      const position = await this.store.latestVersion();
      this.position = position;
      this.unlisten = this.store.onChanges(() => this.wake());
      this.timer = setInterval(() => this.wake(), this.pollMs);
      this.timer.unref();
      return position;
    } finally {
      this.starting = undefined;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    this.timer = undefined;
    this.unlisten?.();
    this.unlisten = undefined;
    this.position = undefined;
  }

  /**
   * Reads the log soon: at once, or once more after the read in progress, and never sooner than
   * {@link READ_GAP_MS} after the last read began — a busy store commits every few milliseconds, and
   * changes read together go to each watch in one write.
   */
  wake(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    const wait = this.lastRead + READ_GAP_MS - performance.now();
    if (wait > 0) {
      this.scheduled = setTimeout(() => {
        this.scheduled = undefined;
        this.wake();
      }, wait);
      return;
    }
    this.lastRead = performance.now();
    this.reading = true;
    this.read()
      .catch(this.failed)
      .finally(() => {
        this.reading = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async read(): Promise<void> {
    for (;;) {
      const from = this.position;
      if (from === undefined) return;
      const page = await this.store.readChanges(from, PAGE);
      const prepared = await this.events.prepare(page.changes);
      // Stopped meanwhile, or restarted from elsewhere: this page is no one's.
      if (this.position !== from) return;
      const full = page.changes.length === PAGE;
      const position = full ? page.changes.at(-1)!.version : Math.max(from, page.latest);
      this.position = position;
      for (const subscriber of this.subscribers) subscriber.deliver(prepared, position);
      if (!full) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
