/**
 * @module A flow: the requests of one token (or of one Cloud Control access key, which acts as its
 * token), with its queue, its requests running, its rate bucket and its figures.
 */
import type { PriorityLevel } from './priority-level.js';
import type { Throttled } from './throttled.js';

/** A queued request: granted a seat (no argument) or refused, exactly once. */
export type Grant = (refusal?: Throttled) => void;

export interface Waiter {
  grant: Grant;
  /** performance.now() when it was queued. */
  since: number;
}

export class Flow {
  /** Requests of this flow holding a seat now. */
  inFlight = 0;
  /** Requests waiting for a seat, oldest first. */
  readonly queue: Waiter[] = [];
  /** In its level's round of flows with requests waiting. */
  active = false;
  /** Requests per second (0: no limit of its own) and the bucket's size. */
  rate = 0;
  burst = 0;
  private tokens = 0;
  private refilledAt = 0;
  // Figures, read at each scrape of the metrics.
  dispatched = 0;
  queued = 0;
  waitSeconds = 0;
  rejectedRate = 0;
  rejectedQueueFull = 0;
  rejectedTimeout = 0;

  constructor(
    /** The token's id (never the token), or a name of the server's own for callers without one. */
    readonly id: string,
    readonly level: PriorityLevel,
  ) {}

  /** Sets the token's limits; a change starts the bucket full. */
  limit(rate: number, burst: number): void {
    if (rate === this.rate && burst === this.burst) return;
    this.rate = rate;
    this.burst = burst;
    this.tokens = burst;
    this.refilledAt = performance.now();
  }

  /**
   * Takes one request from the bucket: 0 when it may go, else the seconds until one may (the
   * caller refuses it). A flow without a rate always may, reading no clock.
   */
  take(): number {
    if (this.rate === 0) return 0;
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.rate) / 1000);
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return (1 - this.tokens) / this.rate;
  }

  /** Holds nothing: no seat, no queue (a flow so idle may be forgotten, its figures with it). */
  get idle(): boolean {
    return this.inFlight === 0 && this.queue.length === 0;
  }
}
