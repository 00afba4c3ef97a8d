/**
 * @module Fairness between tenants, modelled on Kubernetes' API Priority and Fairness: each request
 * is classified into a flow (its token) of a priority level; the level's seats are shared fairly
 * among its flows (see priority-level.ts); a token may also have a rate of its own (a token bucket).
 *
 * Levels: `system` for admin and monitor tokens (and so the metrics' scrapes), with seats of its own,
 * so no tenant's load ever starves those who run the server; `workload` for every other caller.
 * `/healthz` and `/readyz` are exempt, as Kubernetes exempts its probes: never queued.
 */
import { Flow, type Grant } from './flow.js';
import { PriorityLevel, type LevelLimits } from './priority-level.js';
import { formatRate } from './rate.js';
import { Throttled } from './throttled.js';

export interface FairnessOptions {
  /**
   * Requests of writer and reader tokens (and of callers without one) running at once (default
   * {@link DEFAULT_SEATS}: 8 on SQLite, 16 on PostgreSQL), a quarter of them kept for flows with
   * nothing running or waiting.
   */
  seats?: number;
  /** The store, which sets the default seats (workload and system). */
  store?: keyof typeof DEFAULT_SEATS;
  /** Requests of admin and monitor tokens running at once (default {@link DEFAULT_SYSTEM_SEATS}, by store). */
  systemSeats?: number;
  /**
   * Requests one flow may have waiting for a seat (default 300: Kubernetes shuffle-shards a flow over
   * a hand of 6 queues of 50, so a flow alone may have 300 waiting there).
   */
  queueLength?: number;
  /** The longest a request waits for a seat before it is refused (default 15 s, as Kubernetes'). */
  maxWaitMs?: number;
}

/**
 * What may run at once. On SQLite a create is event-loop work from end to end (0.2–0.3 ms of the
 * main thread's CPU with its HTTP; the store commits on the loop too, the writes of one turn of the
 * loop in one transaction), so the seats are the requests whose work shares a turn and its commit:
 * fewer make the commits small (more of them per create), more make the turn another token's
 * request waits for longer. A quarter of the seats is kept for flows with nothing running or waiting
 * (see priority-level.ts), so a quiet token's request runs in the turn it arrives in instead of after
 * the next one. 8 seats (6 open, 2 kept), measured on a quiet machine (bench:fairness, 6 rounds,
 * twice): a quiet tenant's p99 beside a saturating one 1.52x and 1.61x its p99 alone, the saturating
 * tenant's throughput 1.09x and 1.16x of fairness off, commits of 6 creates; 12 seats (9 open) gave
 * 1.89x and 2.11x (1.16x, 1.10x), 4 shared seats 1.03x-1.78x (0.84x-0.97x). On PostgreSQL a request
 * spends most of its time waiting for the database, off the loop: 16.
 */
export const DEFAULT_SEATS = { sqlite: 8, postgresql: 16 } as const;
/**
 * The admin and monitor tokens' requests, apart from the tenants': as many, for the same reason. On
 * PostgreSQL 8 capped one admin client's creates at 8 waiting on the database (bench:api:pg, 16
 * clients: 0.58–0.62 of a bare server's creates with 8, 0.73–0.79 with 16; the loop half idle).
 */
export const DEFAULT_SYSTEM_SEATS = { sqlite: 8, postgresql: 16 } as const;
export const DEFAULT_QUEUE_LENGTH = 300;
export const DEFAULT_MAX_WAIT_MS = 15_000;

/**
 * The seats kept for flows with nothing running or waiting: a quarter, none below 4 seats (one seat
 * kept of fewer would leave a backlogged flow too few).
 */
function keptSeats(seats: number): number {
  return Math.floor(seats / 4);
}

/** Who a request is from, as far as fairness is concerned. */
export interface Caller {
  tokenId: string;
  role: string;
  /** The token's requests per second and burst, when it has a rate of its own. */
  rate?: number;
  burst?: number;
}

/** The flow of requests without a token (the console's files, custom resource responses). */
export const ANONYMOUS_FLOW = 'anonymous';

/** Flows kept at most; idle ones are forgotten past it (a revoked token's flow is never used again). */
const MAX_FLOWS = 10_000;

/** One flow's figures, for the metrics (the flow is a token id, never a token). */
export interface FlowStats {
  level: string;
  flow: string;
  inFlight: number;
  waiting: number;
  dispatched: number;
  queued: number;
  waitSeconds: number;
  rejected: { rate: number; 'queue-full': number; 'queue-timeout': number };
}

export interface LevelStats {
  level: string;
  seats: number;
  inUse: number;
  waiting: number;
}

export class Fairness {
  readonly system: PriorityLevel;
  readonly workload: PriorityLevel;
  private readonly flows = new Map<string, Flow>();
  private anonymous: Flow;

  constructor(options: FairnessOptions = {}) {
    const queueing = {
      queueLength: options.queueLength ?? DEFAULT_QUEUE_LENGTH,
      maxWaitMs: options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    };
    // Only the tenants' level keeps seats: the system level's few trusted flows are apart from them already.
    this.system = new PriorityLevel('system', {
      seats: options.systemSeats ?? DEFAULT_SYSTEM_SEATS[options.store ?? 'sqlite'],
      kept: 0,
      ...queueing,
    } satisfies LevelLimits);
    const seats = options.seats ?? DEFAULT_SEATS[options.store ?? 'sqlite'];
    this.workload = new PriorityLevel('workload', { seats, kept: keptSeats(seats), ...queueing });
    this.anonymous = new Flow(ANONYMOUS_FLOW, this.workload);
  }

  /** The flow of a caller (undefined: a request without a token), its limits as its token has them now. */
  flowOf(caller: Caller | undefined): Flow {
    if (caller === undefined) return this.anonymous;
    let flow = this.flows.get(caller.tokenId);
    if (flow === undefined) {
      if (this.flows.size >= MAX_FLOWS) this.forgetIdle();
      const level = caller.role === 'admin' || caller.role === 'monitor' ? this.system : this.workload;
      flow = new Flow(caller.tokenId, level);
      this.flows.set(caller.tokenId, flow);
    }
    // A token's limits change with its record (read again within a second of a change).
    if (flow.rate !== (caller.rate ?? 0)) flow.limit(caller.rate ?? 0, caller.burst ?? 0);
    else if (caller.burst !== undefined && flow.burst !== caller.burst) flow.limit(flow.rate, caller.burst);
    return flow;
  }

  /**
   * Admits a request of `flow`: `true` when it took a seat (give it back with {@link leave}),
   * `false` when it must {@link wait} for one, or the refusal when the token is over its rate.
   */
  enter(flow: Flow): boolean | Throttled {
    const wait = flow.take();
    if (wait > 0) {
      flow.rejectedRate++;
      const seconds = Math.max(1, Math.ceil(wait));
      return new Throttled(
        'rate',
        seconds,
        `this token is over its rate of ${formatRate(flow.rate)} (burst ${flow.burst}); retry after ${seconds} s, or ask an admin for a higher rate ('typeplane token update <id> --rate …')`,
      );
    }
    return flow.level.tryEnter(flow);
  }

  /** Queues a request that {@link enter} could not seat; `grant` is called once, seated or refused. */
  wait(flow: Flow, grant: Grant): void {
    flow.level.wait(flow, grant);
  }

  /** A seated request ended (answered, or its client gone). */
  leave(flow: Flow): void {
    flow.level.leave(flow);
  }

  /** Refuses whatever waits and stops the timers (the server closes). */
  close(): void {
    this.system.close();
    this.workload.close();
  }

  levels(): LevelStats[] {
    return [this.system, this.workload].map((level) => ({
      level: level.name,
      seats: level.limits.seats,
      inUse: level.inUse,
      waiting: level.waiting,
    }));
  }

  flowStats(): FlowStats[] {
    return [this.anonymous, ...this.flows.values()].map((flow) => ({
      level: flow.level.name,
      flow: flow.id,
      inFlight: flow.inFlight,
      waiting: flow.queue.length,
      dispatched: flow.dispatched,
      queued: flow.queued,
      waitSeconds: flow.waitSeconds,
      rejected: {
        rate: flow.rejectedRate,
        'queue-full': flow.rejectedQueueFull,
        'queue-timeout': flow.rejectedTimeout,
      },
    }));
  }

  private forgetIdle(): void {
    for (const [id, flow] of this.flows) if (flow.idle) this.flows.delete(id);
  }
}
