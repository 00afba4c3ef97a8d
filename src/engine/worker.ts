/**
 * @module The operation worker: claims due operations from the store (so a restarted server, or
 * another replica, resumes them), holds their leases while a step runs, and schedules callbacks.
 * What one step does is `step.ts`.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { OperationMovedOn, type OperationRecord, type Store } from '../store/types.js';
import type { EngineLogger } from './logger.js';
import type { EngineObserver } from './observer.js';

/** One step of an operation this worker holds; `fresh` when it was just begun here (never invoked). */
export type StepRunner = (op: OperationRecord, signal: AbortSignal, fresh: boolean) => Promise<void>;

export interface WorkerOptions {
  store: Store;
  log: EngineLogger;
  leaseMs: number;
  pollIntervalMs: number;
  concurrency: number;
  /**
   * Most of those running at once for one type: a type whose handlers are slow, or whose writer
   * floods it, takes no more than its share, and the others' operations still run at once.
   */
  concurrencyPerType: number;
  /**
   * Most of those running at once for one caller (an operation's `requestedBy`, a token id; its
   * stacks' and recipes' operations included): a token that floods the worker leaves the others
   * room, as fairness shares the server's front between tokens (src/fairness).
   */
  concurrencyPerFlow: number;
  step: StepRunner;
  /** Told of operations taken over from another owner. */
  observer?: Pick<EngineObserver, 'leaseTakenOver'>;
}

export class Worker {
  readonly owner = `worker-${randomUUID()}`;
  readonly leaseMs: number;
  private readonly store: Store;
  private readonly log: EngineLogger;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  private readonly perType: number;
  private readonly perFlow: number;
  /** Steps running here, by type name. */
  private readonly runningByType = new Map<string, number>();
  /** Steps running here, by caller (operations of no caller are not counted). */
  private readonly runningByFlow = new Map<string, number>();
  private readonly events = new EventEmitter();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private pollTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  /** More due operations may be waiting than there was room for. */
  private backlog = false;
  private isStopped = true;
  private readonly step: StepRunner;
  private readonly observer: WorkerOptions['observer'];

  constructor(options: WorkerOptions) {
    this.store = options.store;
    this.log = options.log;
    this.leaseMs = options.leaseMs;
    this.pollIntervalMs = options.pollIntervalMs;
    this.concurrency = options.concurrency;
    this.perType = options.concurrencyPerType;
    this.perFlow = options.concurrencyPerFlow;
    this.step = options.step;
    this.observer = options.observer;
    this.events.setMaxListeners(0);
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  /** Start working: resume whatever is due, then keep polling. */
  start(): void {
    if (!this.isStopped) return;
    this.isStopped = false;
    const poll = () => {
      this.kick();
      this.pollTimer = setTimeout(poll, this.pollIntervalMs);
      this.pollTimer.unref();
    };
    poll();
  }

  /**
   * Stop taking work; let running handler invocations finish for up to `graceMs`, then abort them.
   * Whatever is not terminal stays in the store, leases released, to be resumed by the next start.
   */
  async stop(graceMs: number): Promise<void> {
    this.isStopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const inflight = [...this.running.values()];
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all(inflight.map((r) => r.done)), grace]);
    for (const r of this.running.values()) r.abort.abort(new Error('server shutting down'));
    await Promise.all([...this.running.values()].map((r) => r.done));
    await this.claiming;
  }

  /** Steps running here now, by type name (handler slots in use). */
  get runningByTypeName(): ReadonlyMap<string, number> {
    return this.runningByType;
  }

  /** Whether an operation of `typeName`, asked for by `requestedBy`, begun now can run here at once. */
  hasRoom(typeName: string, requestedBy: string | undefined): boolean {
    return (
      !this.isStopped &&
      this.running.size < this.concurrency &&
      (this.runningByType.get(typeName) ?? 0) < this.perType &&
      (requestedBy === undefined || (this.runningByFlow.get(requestedBy) ?? 0) < this.perFlow)
    );
  }

  /** An operation was queued for any worker to claim. */
  queued(): void {
    this.backlog = true;
    this.kick();
  }

  /** Whether a step of the operation runs here now (its end is then told to this process's waiters). */
  runningHere(requestToken: string): boolean {
    return this.running.has(requestToken);
  }

  /** Abort the step running for an operation here, if any. */
  abort(requestToken: string, reason: Error): void {
    this.running.get(requestToken)?.abort.abort(reason);
  }

  /** Tell waiters that an operation changed: `ended`, the record just written when it ended. */
  notify(requestToken: string, ended?: OperationRecord): void {
    this.events.emit(requestToken, ended);
  }

  /**
   * Resolves when this process changes the operation (with its record, when that change ended it),
   * or after `ms` (with nothing).
   */
  changed(requestToken: string, ms: number): Promise<OperationRecord | undefined> {
    return new Promise<OperationRecord | undefined>((resolve) => {
      const done = (ended?: OperationRecord) => {
        clearTimeout(timer);
        this.events.off(requestToken, done);
        resolve(ended);
      };
      const timer = setTimeout(done, ms);
      this.events.on(requestToken, done);
    });
  }

  /** Claim due operations and run them; coalesces concurrent calls. */
  kick(): void {
    if (this.isStopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = (async () => {
      // Yield first: otherwise a pass that ends at once runs its finally (clearing `claiming`) before
      // `claiming` is assigned, leaving it set for good and the loop stopped.
      await null;
      try {
        do {
          this.claimAgain = false;
          const room = this.concurrency - this.running.size;
          if (room <= 0) {
            // Full: the next finished slot claims again.
            this.backlog = true;
            break;
          }
          const ops = await this.store.claimOperations(this.owner, new Date(), this.leaseMs, room, {
            perType: this.perType,
            running: this.runningByType,
            perFlow: this.perFlow,
            runningByFlow: this.runningByFlow,
          });
          for (const op of ops) {
            if (op.takenOver) this.observer?.leaseTakenOver(op.typeName);
            this.launch(op);
          }
          this.backlog = ops.length === room;
          if (this.backlog) this.claimAgain = true;
        } while (this.claimAgain && !this.isStopped);
      } catch (e) {
        this.log.error('claiming operations failed', { err: String(e) });
      } finally {
        this.claiming = undefined;
      }
    })();
  }

  /** Run one step of an operation this worker holds; `fresh` when it was just begun here (never invoked). */
  launch(op: OperationRecord, fresh = false): void {
    const abort = new AbortController();
    const renew = setInterval(
      () => {
        this.store.renewLease(op.requestToken, this.owner, new Date(), this.leaseMs).catch(() => undefined);
      },
      Math.max(100, this.leaseMs / 3),
    );
    renew.unref();
    this.runningByType.set(op.typeName, (this.runningByType.get(op.typeName) ?? 0) + 1);
    const flow = op.requestedBy;
    if (flow !== undefined) this.runningByFlow.set(flow, (this.runningByFlow.get(flow) ?? 0) + 1);
    const done = this.step(op, abort.signal, fresh)
      .catch((e: unknown) => {
        if (e instanceof OperationMovedOn) {
          this.log.warn(
            'operation moved on while this worker ran it (ended, or taken over): its step is dropped',
            {
              requestToken: op.requestToken,
            },
          );
        } else {
          this.log.error('operation step failed', { requestToken: op.requestToken, err: String(e) });
        }
      })
      .finally(() => {
        clearInterval(renew);
        this.running.delete(op.requestToken);
        const left = (this.runningByType.get(op.typeName) ?? 1) - 1;
        if (left > 0) this.runningByType.set(op.typeName, left);
        else this.runningByType.delete(op.typeName);
        const flowLeft = flow === undefined ? 0 : (this.runningByFlow.get(flow) ?? 1) - 1;
        if (flow !== undefined)
          if (flowLeft > 0) this.runningByFlow.set(flow, flowLeft);
          else this.runningByFlow.delete(flow);
        this.events.emit(op.requestToken);
        // A finished slot lets queued work in; without a backlog the poll loop is enough. A type or a
        // caller that was at its share may have operations waiting that the last claim left out; and a
        // claim under way counted this step as running, so it may leave out what this slot lets in
        // (one pass more, once it ends).
        if (
          this.backlog ||
          this.claiming !== undefined ||
          left + 1 >= this.perType ||
          flowLeft + 1 >= this.perFlow
        )
          this.kick();
      });
    this.running.set(op.requestToken, { abort, done });
  }

  /** Claim again after `ms` (a callback's delay). */
  later(ms: number): void {
    if (this.isStopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.kick();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
