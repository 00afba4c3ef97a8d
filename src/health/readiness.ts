/**
 * @module Readiness: whether this process should be sent traffic. Kubernetes' API server answers
 * `/livez` (the process serves) apart from `/readyz` (it can do its work): a replica whose database
 * is unreachable, or that is shutting down, stays alive but is taken out of rotation, and comes back
 * by itself once the cause is gone.
 */
import type { Store } from '../store/types.js';

/** One named check, as `/readyz` reports it. */
export interface ReadinessCheck {
  name: string;
  ok: boolean;
  /** Why it failed: general words only, since anyone may ask. */
  reason?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessCheck[];
}

export interface ReadinessOptions {
  store: Store;
  /** Told when the verdict changes (with the underlying error); logs it. */
  onChange?: (report: ReadinessReport, cause?: unknown) => void;
  /** A store that has not answered by then is not ready (default 2 s). */
  timeoutMs?: number;
  /** A verdict is reused this long: probes from many balancers cost one store query (default 1 s). */
  cacheMs?: number;
}

export class Readiness {
  private shuttingDown = false;
  private last: { at: number; report: ReadinessReport } | undefined;
  private inFlight: Promise<ReadinessReport> | undefined;
  private readonly timeoutMs: number;
  private readonly cacheMs: number;

  constructor(private readonly options: ReadinessOptions) {
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.cacheMs = options.cacheMs ?? 1_000;
  }

  /** From now on not ready: the process is draining before it stops. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  /** The current verdict; concurrent callers share one check of the store. */
  async check(): Promise<ReadinessReport> {
    const now = Date.now();
    if (this.last && now - this.last.at < this.cacheMs) return this.withShutdown(this.last.report);
    this.inFlight ??= this.checkStore().finally(() => (this.inFlight = undefined));
    return this.withShutdown(await this.inFlight);
  }

  private withShutdown(report: ReadinessReport): ReadinessReport {
    const shutdown: ReadinessCheck = this.shuttingDown
      ? { name: 'shutdown', ok: false, reason: 'the server is shutting down' }
      : { name: 'shutdown', ok: true };
    const checks = [...report.checks, shutdown];
    return { ready: checks.every((c) => c.ok), checks };
  }

  private async checkStore(): Promise<ReadinessReport> {
    let cause: unknown;
    let timer: NodeJS.Timeout | undefined;
    const store: ReadinessCheck = await Promise.race([
      this.options.store.ready().then(
        (): ReadinessCheck => ({ name: 'store', ok: true }),
        (error: unknown): ReadinessCheck => {
          cause = (error as Error).cause ?? error;
          return { name: 'store', ok: false, reason: (error as Error).message };
        },
      ),
      new Promise<ReadinessCheck>((resolve) => {
        timer = setTimeout(
          () =>
            resolve({
              name: 'store',
              ok: false,
              reason: `the store did not answer within ${this.timeoutMs / 1000} s`,
            }),
          this.timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const report: ReadinessReport = { ready: store.ok, checks: [store] };
    const before = this.last?.report;
    this.last = { at: Date.now(), report };
    if (before === undefined ? !report.ready : before.ready !== report.ready)
      this.options.onChange?.(report, cause);
    return report;
  }
}
