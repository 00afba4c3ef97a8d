/**
 * @module A priority level: a number of seats (requests running at once) shared by its flows with
 * fair queuing, as Kubernetes' API Priority and Fairness shares a level's concurrency.
 *
 * A request takes a free seat at once while nobody waits (no promise, no allocation). Otherwise it
 * waits in its flow's queue (bounded: a full queue refuses). Each freed seat goes to the next flow
 * of a round over the flows with requests waiting, so every waiting flow gets a seat in turn
 * however many requests the others queue: a flow that sends more waits longer, not everyone. A flow
 * that starts waiting joins the round next in line (as fair queuing's virtual time puts a newly
 * active flow ahead of the backlogged ones). Requests cost one seat each: a request's cost is known
 * only once it ran.
 *
 * Some seats are kept: never handed to a queue, taken only by a request of a flow with nothing
 * running or waiting, at once, even while others wait. Fair queuing would seat such a flow next
 * anyway; keeping seats for it seats it now instead of when a seat frees, which on SQLite is the
 * next commit of the store: the loop runs a turn of seated requests, commits their writes together,
 * answers them and seats the next (a request holds its seat while it waits for its commit, so that
 * a turn's work stays bounded: with seats given back at the commit, a turn would run every waiting
 * request, as with no fairness). A flow cannot take more than its share through the kept seats: one
 * of its requests running or waiting makes it wait like any other.
 */
import type { Flow, Grant } from './flow.js';
import { Throttled } from './throttled.js';

export interface LevelLimits {
  /** Requests running at once. */
  seats: number;
  /** Of the seats, those kept for a request of a flow with nothing running or waiting. */
  kept: number;
  /** Requests one flow may have waiting. */
  queueLength: number;
  /** The longest a request waits for a seat before it is refused. */
  maxWaitMs: number;
}

/** How often waiting requests are looked at for their deadline. */
const SWEEP_MS = 100;

export class PriorityLevel {
  /** Seats taken now. */
  inUse = 0;
  /** Requests waiting, all flows together. */
  waiting = 0;
  /** Flows with requests waiting, in the order they get seats; `next` is whose turn it is. */
  private readonly round: Flow[] = [];
  private next = 0;
  private dispatching = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    readonly limits: LevelLimits,
  ) {}

  /**
   * Takes a seat now: an open one (not kept) while nobody waits for one, or any free one for a flow
   * with nothing running or waiting.
   */
  tryEnter(flow: Flow): boolean {
    const open = this.waiting === 0 && this.inUse < this.limits.seats - this.limits.kept;
    if (!open && !(flow.idle && this.inUse < this.limits.seats)) return false;
    this.inUse++;
    flow.inFlight++;
    flow.dispatched++;
    return true;
  }

  /** Queues the request for a seat; `grant` is called once: with no argument when seated, or refused. */
  wait(flow: Flow, grant: Grant): void {
    if (flow.queue.length >= this.limits.queueLength) {
      flow.rejectedQueueFull++;
      grant(
        new Throttled(
          'queue-full',
          1,
          `this token already has ${flow.queue.length} requests waiting for the server (its queue's length; other tokens keep their share); retry after 1 s`,
        ),
      );
      return;
    }
    flow.queue.push({ grant, since: performance.now() });
    flow.queued++;
    this.waiting++;
    if (!flow.active) {
      flow.active = true;
      this.round.splice(this.next, 0, flow);
    }
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    // A seat may be free (the queue was for fairness only).
    this.dispatch();
  }

  /** A request of `flow` gave its seat back. */
  leave(flow: Flow): void {
    this.inUse--;
    flow.inFlight--;
    if (this.waiting > 0) this.dispatch();
  }

  private dispatch(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      // Queued requests get open seats only: the kept ones stay free for flows that are not waiting.
      while (this.inUse < this.limits.seats - this.limits.kept && this.waiting > 0) {
        if (this.next >= this.round.length) this.next = 0;
        const flow = this.round[this.next]!;
        const waiter = flow.queue.shift()!;
        this.waiting--;
        if (flow.queue.length === 0) this.drop(this.next);
        else this.next++;
        this.inUse++;
        flow.inFlight++;
        flow.dispatched++;
        flow.waitSeconds += (performance.now() - waiter.since) / 1000;
        waiter.grant();
      }
    } finally {
      this.dispatching = false;
    }
    this.stopSweeping();
  }

  /** Refuses the requests that waited past the level's longest wait. */
  private sweep(): void {
    const deadline = performance.now() - this.limits.maxWaitMs;
    for (let i = this.round.length - 1; i >= 0; i--) {
      const flow = this.round[i]!;
      while (flow.queue.length > 0 && flow.queue[0]!.since <= deadline) {
        const waiter = flow.queue.shift()!;
        this.waiting--;
        flow.rejectedTimeout++;
        flow.waitSeconds += (performance.now() - waiter.since) / 1000;
        waiter.grant(
          new Throttled(
            'queue-timeout',
            1,
            `the request waited ${Math.round(this.limits.maxWaitMs / 1000)} s for the server without getting its turn (the server is busy); retry after 1 s`,
          ),
        );
      }
      if (flow.queue.length === 0) this.drop(i);
    }
    this.stopSweeping();
  }

  private drop(index: number): void {
    this.round[index]!.active = false;
    this.round.splice(index, 1);
    if (index < this.next) this.next--;
  }

  private stopSweeping(): void {
    if (this.waiting === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Stops the timer of waiting requests, refusing them (the server closes). */
  close(): void {
    for (const flow of this.round.splice(0)) {
      flow.active = false;
      for (const waiter of flow.queue.splice(0))
        waiter.grant(new Throttled('queue-timeout', 1, 'the server is shutting down; retry later'));
    }
    this.waiting = 0;
    this.next = 0;
    this.stopSweeping();
  }
}
