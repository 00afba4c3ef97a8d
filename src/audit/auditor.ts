/**
 * @module The auditor: turns what the front doors saw of a request into an event at the configured
 * level and hands it to the sinks (the log file or stdout, and the store's trail).
 */
import { randomUUID } from 'node:crypto';
import type { AuditFilter, Page } from '../store/types.js';
import type { AuditEvent, AuditLevel, AuditObjectRef, AuditUser } from './event.js';
import type { FileSink } from './file-sink.js';
import { operationEndEvent, type OperationEnd } from './operation-end.js';
import { requestObjectOf, type Masking } from './request-object.js';
import { stackReviewEvent, type StackReview } from './stack-review.js';

/** What a front door knows of a request once it is answered. */
export interface AnsweredRequest {
  requestID?: string;
  method: string;
  url: string;
  /** The route template (`/v1/resources/:typeName`); undefined when no route matched. */
  route?: string;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  verb: string;
  objectRef: AuditObjectRef;
  user: AuditUser;
  sourceIP?: string;
  userAgent?: string;
  status: number;
  errorCode?: string;
  message?: string;
  receivedAt: number;
  annotations?: Record<string, string>;
}

/** Where events go besides the file: the store's trail (see store-trail.ts). */
export interface EventSink {
  append(event: AuditEvent): void;
  /** Undefined when a record can be taken now; else when one can (see store-trail.ts). */
  admit(): Promise<void> | undefined;
  /** Records dropped because its buffer was full (see store-trail.ts). */
  readonly dropped: number;
  /** The stored trail's records, newest first. */
  list(filter: AuditFilter, options: { limit: number; nextToken?: string }): Promise<Page<string>>;
  close(): Promise<void>;
}

export interface AuditorOptions {
  level: AuditLevel;
  file?: FileSink;
  trail?: EventSink;
  masking: Masking;
  /** A token's description by id, when known (never the token). */
  describeToken?: (tokenId: string) => Promise<string | undefined>;
  /** Told when recording failed: the request was answered, its record is lost. */
  onError?: (error: unknown) => void;
}

export class Auditor {
  constructor(private readonly options: AuditorOptions) {}

  get level(): AuditLevel {
    return this.options.level;
  }

  /** The store's trail, when records are kept there (`GET /v1/audit` serves it). */
  get trail(): EventSink | undefined {
    return this.options.trail;
  }

  /**
   * Before a request that will be recorded runs: undefined when its record can be taken, else a
   * promise that resolves when it can, or rejects (Throttling) when it cannot in time.
   */
  admit(): Promise<void> | undefined {
    return this.options.trail?.admit();
  }

  /** The last record handed on: records are handed on in the order they were asked for. */
  private previous: Promise<void> = Promise.resolve();

  /**
   * Record `request`; never throws (an audit failure is reported through onError). Records are made
   * at once and handed on in the order of these calls, though making one may wait (for a token's
   * description) longer than making the next.
   */
  record(request: AnsweredRequest): Promise<void> {
    // The time the request reached this stage: now, not once the record is made (its token's
    // description may take a store read, longer for one record than for the next).
    return this.enqueue(this.eventOf(request, new Date().toISOString()));
  }

  /** Record the end of an operation (see operation-end.ts), as `record` records a request. */
  recordOperationEnd(end: OperationEnd): Promise<void> {
    const event = operationEndEvent(end, this.options.level);
    return this.enqueue(this.describe(event.user).then((user) => ({ ...event, user })));
  }

  /** Record a stack deployment's change and its verdicts (see stack-review.ts), as `record` records a request. */
  recordStackReview(review: StackReview): Promise<void> {
    const event = stackReviewEvent(review, this.options.level);
    return this.enqueue(this.describe(event.user).then((user) => ({ ...event, user })));
  }

  private enqueue(event: Promise<AuditEvent>): Promise<void> {
    this.previous = this.previous
      .then(() => event)
      .then((made) => this.emit(made))
      .catch((error: unknown) => this.options.onError?.(error));
    return this.previous;
  }

  /**
   * Store what the trail still holds, and close the file. The records already asked for go first:
   * one may still wait for its token's description (a store read), and the trail takes none once closed.
   */
  async close(): Promise<void> {
    await this.previous;
    await this.options.trail?.close();
    this.options.file?.close();
  }

  private emit(event: AuditEvent): void {
    this.options.file?.write(event);
    this.options.trail?.append(event);
  }

  /** `user` with its token's description, when known. */
  private async describe(user: AuditUser): Promise<AuditUser> {
    if (user.tokenId === undefined || user.description !== undefined) return user;
    const description = await this.options.describeToken?.(user.tokenId);
    return description !== undefined ? { ...user, description } : user;
  }

  private async eventOf(request: AnsweredRequest, stageTimestamp: string): Promise<AuditEvent> {
    const user = await this.describe({ ...request.user });
    const requestObject =
      this.options.level === 'Request'
        ? await requestObjectOf(
            request.route,
            request.params,
            request.query,
            request.body,
            this.options.masking,
          )
        : undefined;
    return {
      kind: 'Event',
      apiVersion: 'typeplane.dev/audit/v1',
      level: this.options.level,
      auditID: randomUUID(),
      ...(request.requestID !== undefined ? { requestID: request.requestID } : {}),
      stage: 'ResponseComplete',
      requestURI: request.url,
      verb: request.verb,
      user,
      sourceIPs: request.sourceIP !== undefined ? [request.sourceIP] : [],
      ...(request.userAgent !== undefined ? { userAgent: request.userAgent } : {}),
      objectRef: request.objectRef,
      responseStatus: {
        code: request.status,
        ...(request.errorCode !== undefined ? { errorCode: request.errorCode } : {}),
        ...(request.message !== undefined ? { message: request.message } : {}),
      },
      ...(requestObject !== undefined ? { requestObject } : {}),
      requestReceivedTimestamp: new Date(request.receivedAt).toISOString(),
      stageTimestamp,
      ...(request.annotations ? { annotations: request.annotations } : {}),
    };
  }
}
