/**
 * @module The auditor: turns what the front doors saw of a request into an event at the configured
 * level and hands it to the sinks (the log file or stdout, and the store's trail).
 */
import { randomUUID } from 'node:crypto';
import type { AuditEvent, AuditLevel, AuditObjectRef, AuditUser } from './event.js';
import type { FileSink } from './file-sink.js';
import { requestObjectOf, type Masking } from './request-object.js';

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

/** Where events go besides the file: the store's trail (see trail.ts). */
export interface EventSink {
  append(event: AuditEvent): void;
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

  /** Record `request`; never throws (an audit failure is reported through onError). */
  async record(request: AnsweredRequest): Promise<void> {
    try {
      this.emit(await this.eventOf(request));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  close(): void {
    this.options.file?.close();
  }

  private emit(event: AuditEvent): void {
    this.options.file?.write(event);
    this.options.trail?.append(event);
  }

  private async eventOf(request: AnsweredRequest): Promise<AuditEvent> {
    const user = { ...request.user };
    if (user.tokenId !== undefined && user.description === undefined) {
      const description = await this.options.describeToken?.(user.tokenId);
      if (description !== undefined) user.description = description;
    }
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
      stageTimestamp: new Date().toISOString(),
      ...(request.annotations ? { annotations: request.annotations } : {}),
    };
  }
}
