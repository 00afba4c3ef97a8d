/**
 * @module The audit record: one JSON object per change or refusal, shaped after Kubernetes'
 * `audit.k8s.io/v1` Event (same field names where the meaning is the same), adapted to Typeplane —
 * the user is a token (its id and description, never the token), the object a type, resource,
 * stack, token, recipe or environment. `docs/operations.md` (Audit trail) documents every field.
 */

/** Metadata: who, what, when, from where, outcome. Request: that, and the request body with every secret removed. */
export type AuditLevel = 'Metadata' | 'Request';

export const AUDIT_LEVELS: readonly AuditLevel[] = ['Metadata', 'Request'];

export interface AuditUser {
  /** The token's id (never the token). */
  tokenId?: string;
  description?: string;
  role?: string;
  /** How the caller proved who it is: a bearer token (`/v1`) or a SigV4 signature (Cloud Control). */
  authentication?: 'bearer' | 'sigv4';
}

export interface AuditObjectRef {
  /** `types`, `resources`, `stacks`, `tokens`, `recipes`, `environments`, `requests`, or the Cloud Control front door's `cloudcontrol`. */
  resource: string;
  typeName?: string;
  identifier?: string;
  /** The operation's request token (resources: the operation this request began or cancelled). */
  requestToken?: string;
  /** Any other name the request's path holds (stack, token id, recipe, environment, plan). */
  name?: string;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'typeplane.dev/audit/v1';
  level: AuditLevel;
  /** Unique per record. */
  auditID: string;
  /** The request id (`x-request-id`) the logs carry. */
  requestID?: string;
  /**
   * `ResponseComplete`: a request, once answered. `OperationComplete`: an operation's end, later —
   * Kubernetes has no stage after the response, and an operation outlives the 202 that began it.
   */
  stage: 'ResponseComplete' | 'OperationComplete';
  requestURI: string;
  verb: string;
  user: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef: AuditObjectRef;
  responseStatus: {
    code: number;
    /** Stage OperationComplete: the operation's terminal status. */
    operationStatus?: 'SUCCESS' | 'FAILED' | 'CANCEL_COMPLETE';
    errorCode?: string;
    message?: string;
  };
  /** Level Request only: the body without write-only, NoEcho, secret or token values. */
  requestObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** An event as written: its place in a chain and the keyed hash that seals it (see chain.ts). */
export interface ChainedEvent extends AuditEvent {
  sequence: number;
  previousHash: string;
  hash: string;
}
