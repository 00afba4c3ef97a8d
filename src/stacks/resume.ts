/**
 * @module Running deployments under a lease: each one this server begins or claims runs here, its
 * lease renewed while it runs; those another server left behind (crashed, or lost) are claimed once
 * their lease has passed and resumed where their records say they were.
 */
import { Deployment } from './deployment.js';
import type { StacksCore } from './core.js';
import type { Analysis } from './analyze.js';
import type { DeploymentRecord, ResourceRecord } from './records.js';

/** What a deployment begun in this process already knows, so that it need not read or make it again. */
export interface Begun {
  /** The analysis its template and parameters were begun with. */
  analysis: Analysis;
  /** The stack's resource records, when they are known to be these (a stack its deployment made: none). */
  resources?: Map<string, ResourceRecord>;
}

/** Run a deployment just written with lease stamp `stamp` (begun, or claimed). */
export type Launch = (record: DeploymentRecord, stamp: string, begun?: Begun) => void;

export class DeploymentRunner {
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly core: StacksCore,
    private readonly pollIntervalMs: number,
  ) {}

  /** Resume deployments left behind, and keep looking for them (another replica's, after it is lost). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const poll = () => {
      this.resumeDue().catch((e: unknown) =>
        this.core.ctx.log.warn({ err: String(e) }, 'resuming stack deployments failed'),
      );
      this.timer = setTimeout(poll, this.pollIntervalMs);
      this.timer.unref();
    };
    poll();
  }

  /** Stop resuming; running deployments stop issuing operations and stay resumable. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.running.values()]);
  }

  readonly run: Launch = (record, stamp, begun) => {
    this.launch(this.core, record, stamp, begun);
  };

  /**
   * Run a deployment over `core`'s records (this runner's, or a buffered deployment's: buffered.ts,
   * whose lease writes stay in memory until its records are flushed); ends when the deployment does.
   */
  launch(core: StacksCore, record: DeploymentRecord, stamp: string, begun?: Begun): Promise<void> {
    const already = this.running.get(record.id);
    if (already) return already;
    const { records, ctx } = core;
    const { owner, leaseMs } = this.core;
    let current = stamp;
    let lost = false;
    let chain: Promise<unknown> = Promise.resolve();
    /** Lease writes one at a time: each compares against the stamp the previous one left. */
    const write = (next: DeploymentRecord): Promise<boolean> => {
      const attempt = chain.then(async () => {
        if (lost) return false;
        const written = await records.swapDeployment(
          { ...next, owner, leaseUntil: new Date(Date.now() + leaseMs).toISOString() },
          current,
        );
        if (written === undefined) lost = true;
        else current = written;
        return written !== undefined;
      });
      chain = attempt.catch(() => false);
      return attempt;
    };
    let latest = record;
    const persist = (next: DeploymentRecord) => {
      latest = next;
      return write(next);
    };
    const renew = setInterval(() => void write(latest).catch(() => undefined), Math.max(50, leaseMs / 3));
    renew.unref();
    const deployment = new Deployment(ctx, record, persist, () => lost || this.stopped, begun);
    const done = deployment
      .run()
      .catch((e: unknown) =>
        ctx.log.warn(
          { stack: record.stack, deployment: record.id, err: deployment.masked(String(e)) },
          'stack deployment stopped',
        ),
      )
      .finally(() => {
        clearInterval(renew);
        this.running.delete(record.id);
      });
    this.running.set(record.id, done);
    return done;
  }

  private async resumeDue(): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    for (const { record, writtenBy } of await this.core.records.listDeployments()) {
      if (this.running.has(record.id) || Date.parse(record.leaseUntil) > now) continue;
      const claimed = {
        ...record,
        owner: this.core.owner,
        leaseUntil: new Date(now + this.core.leaseMs).toISOString(),
      };
      const stamp = await this.core.records.swapDeployment(claimed, writtenBy);
      if (stamp === undefined) continue; // another server took it
      this.core.ctx.log.info(
        { stack: record.stack, deployment: record.id, phase: record.phase },
        'resuming stack deployment',
      );
      this.run(claimed, stamp);
    }
  }
}
