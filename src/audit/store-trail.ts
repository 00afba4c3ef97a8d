/**
 * @module The store's trail: records buffered and appended in batches — about every 100 ms, or at
 * once when 500 are waiting — each batch one transaction that chains its records after the stored
 * trail's last (under a lock every replica takes), so a create gets no commit of its own and every
 * replica's records form one chain.
 *
 * The buffer holds at most 10,000 records (as the Kubernetes API server's batch backend's), exactly.
 * Once 9,000 wait, a request that would change something waits for room before it runs (blocking, as
 * that server's `blocking` mode waits for its backend), and is refused with 429 Throttling if none
 * comes within 10 s (the store is down or too slow), before anything is changed — fail closed. The
 * last 1,000 places are for what is already under way and cannot wait: the ends of operations in
 * flight, the records of requests admitted before, and of refusals. A record that finds even those
 * taken is dropped, counted ({@link StoreTrail.dropped}) and reported. A batch that cannot be written
 * is kept and tried again; records still buffered when the server stops are written on close.
 */
import { TypeplaneError } from '../errors.js';
import type { AuditEntry, AuditFilter, AuditLink, Page, Store } from '../store/types.js';
import { chainLine, EMPTY_CHAIN } from './chain.js';
import type { AuditEvent } from './event.js';
import { expireHourly } from './retention.js';

export interface StoreTrailOptions {
  store: Pick<Store, 'appendAuditRecords' | 'listAuditRecords' | 'expireAuditRecords'>;
  /** How long records are kept (expired hourly, see retention.ts); forever without it. */
  retentionMs?: number;
  /** The chain's key (chain.ts's chainKey). */
  key: Buffer;
  /** Longest a record waits before its batch is written (default 100 ms). */
  maxWaitMs?: number;
  /** Records a batch holds at most; a full batch is written at once (default 500). */
  maxBatch?: number;
  /** Records buffered at most (default 10,000); past it a record is dropped and counted. */
  bufferSize?: number;
  /**
   * Of the buffer, the places changes are not admitted to (default a tenth): room for the records of
   * what is under way (operations in flight end, requests admitted before are answered).
   */
  reserve?: number;
  /** How long a request waits for room before it is refused (default 10 s). */
  admitTimeoutMs?: number;
  /** Told when a batch could not be written (it is kept and tried again). */
  onError: (error: unknown) => void;
}

/** The facts a record is found by in the store. */
function entryOf(event: AuditEvent): AuditEntry {
  return {
    time: event.stageTimestamp,
    verb: event.verb,
    code: event.responseStatus.code,
    ...(event.objectRef.typeName !== undefined ? { typeName: event.objectRef.typeName } : {}),
    ...(event.user.tokenId !== undefined ? { tokenId: event.user.tokenId } : {}),
    ...(event.responseStatus.errorCode !== undefined ? { errorCode: event.responseStatus.errorCode } : {}),
  };
}

export class StoreTrail {
  private buffer: AuditEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private waiters: (() => void)[] = [];
  private closed = false;
  /** Batches that failed in a row. */
  private failures = 0;
  private readonly maxWaitMs: number;
  private readonly maxBatch: number;
  private readonly bufferSize: number;
  /** Changes are admitted while fewer records than this wait. */
  private readonly admitBelow: number;
  private readonly admitTimeoutMs: number;
  private droppedRecords = 0;
  private readonly stopExpiry: (() => void) | undefined;

  constructor(private readonly options: StoreTrailOptions) {
    this.maxWaitMs = options.maxWaitMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
    this.bufferSize = options.bufferSize ?? 10_000;
    this.admitBelow = Math.max(1, this.bufferSize - (options.reserve ?? Math.floor(this.bufferSize / 10)));
    this.admitTimeoutMs = options.admitTimeoutMs ?? 10_000;
    this.stopExpiry =
      options.retentionMs !== undefined
        ? expireHourly(options.store, options.retentionMs, options.onError)
        : undefined;
  }

  /** Records dropped because the buffer was full (the store down or too slow for that long). */
  get dropped(): number {
    return this.droppedRecords;
  }

  /** Records waiting to be stored. */
  get waiting(): number {
    return this.buffer.length;
  }

  append(event: AuditEvent): void {
    if (this.buffer.length >= this.bufferSize) {
      this.droppedRecords++;
      // Once per thousand, not per record: the log would drown in them as the store is down.
      if (this.droppedRecords % 1000 === 1)
        this.options.onError(
          new Error(
            `the audit trail's buffer is full (${this.bufferSize} records wait for the store): a record (${event.verb} ${event.requestURI}) was dropped, ${this.droppedRecords} so far`,
          ),
        );
      return;
    }
    this.buffer.push(event);
    if (this.buffer.length >= this.maxBatch) this.schedule(0);
    else this.schedule(this.maxWaitMs);
  }

  /**
   * Undefined while the buffer has room (no promise made); otherwise a promise that resolves once it
   * has, or rejects with Throttling after the admit timeout.
   */
  admit(): Promise<void> | undefined {
    if (this.buffer.length < this.admitBelow) return undefined;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(
          new TypeplaneError(
            'Throttling',
            `the audit trail is behind (${this.buffer.length} records waiting to be stored): nothing was done; retry later`,
          ),
        );
      }, this.admitTimeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(wake);
    });
  }

  /** Records of the stored trail (every replica's), newest first. */
  list(filter: AuditFilter, options: { limit: number; nextToken?: string }): Promise<Page<string>> {
    return this.options.store.listAuditRecords(filter, options);
  }

  /** Write what is buffered (trying each batch once more should one fail); no record is taken after. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopExpiry?.();
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    for (let failures = 0; this.buffer.length > 0 && failures < 2;)
      if (!(await this.writeBatch())) failures++;
    if (this.buffer.length > 0)
      this.options.onError(
        new Error(`${this.buffer.length} audit records could not be stored before stopping`),
      );
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.writing) return;
    if (this.timer && (delayMs > 0 || this.failures > 0)) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writeBatch().then((written) => {
        this.writing = undefined;
        this.failures = written ? 0 : this.failures + 1;
        if (this.buffer.length === 0) return;
        // A store that refuses is asked again less and less often (at most every 5 s).
        if (!written) this.schedule(Math.min(5000, this.maxWaitMs * 2 ** this.failures));
        else this.schedule(this.buffer.length >= this.maxBatch ? 0 : this.maxWaitMs);
      });
    }, delayMs);
  }

  /** One batch from the front of the buffer, appended; false (and the batch kept) when that failed. */
  private async writeBatch(): Promise<boolean> {
    const batch = this.buffer.slice(0, this.maxBatch);
    const key = this.options.key;
    const link: AuditLink = (_entry, index, head) => {
      const { line, head: next } = chainLine(key, head ?? EMPTY_CHAIN, batch[index]!);
      return { record: line, head: next };
    };
    try {
      await this.options.store.appendAuditRecords(batch.map(entryOf), link);
    } catch (error) {
      this.options.onError(error);
      return false;
    }
    this.buffer.splice(0, batch.length);
    const room = this.admitBelow - this.buffer.length;
    for (const wake of this.waiters.splice(0, Math.max(0, room))) wake();
    return true;
  }
}
