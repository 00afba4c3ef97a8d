/**
 * @module A stack deployment's reviewed change as a record. A deployment's changes are not requests:
 * it runs on after the request that began it (and resumes on any replica), so no request's record
 * can carry what admission policies and hooks said of them. Each change a review gave verdicts is
 * recorded on its own, as the deployer's, the way Kubernetes records each request a controller
 * makes: with the change's verb and resource, its outcome (begun, or denied) and the verdicts, and
 * the stack, logical id and deployment as annotations. A change no verdict was given is not recorded
 * here: its operation's end is (operation-end.ts).
 */
import { randomUUID } from 'node:crypto';
import { ERROR_CODES, isErrorCode } from '../errors.js';
import type { Verdict } from '../verdict.js';
import type { AuditEvent, AuditLevel } from './event.js';
import { verdictAnnotations } from './verdicts.js';

/** What a deployment tells of one reviewed change (the stacks' ReviewedStackChange). */
export interface StackReview {
  stack: string;
  deployment: string;
  phase: string;
  logicalId: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  typeName: string;
  identifier?: string;
  requestToken?: string;
  caller?: { id: string; role?: string; description?: string };
  verdicts: readonly Verdict[];
  deniedWith?: string;
  message?: string;
}

const VERBS = { CREATE: 'create', UPDATE: 'update', DELETE: 'delete' } as const;

/** The record of `review`: 202 when its operation began, the denial's status (403, or 400) when not. */
export function stackReviewEvent(review: StackReview, level: AuditLevel): AuditEvent {
  const now = new Date().toISOString();
  const code =
    review.deniedWith === undefined
      ? 202
      : isErrorCode(review.deniedWith)
        ? ERROR_CODES[review.deniedWith]
        : 403;
  return {
    kind: 'Event',
    apiVersion: 'typeplane.dev/audit/v1',
    level,
    auditID: randomUUID(),
    stage: 'ResponseComplete',
    // Where the change's stack, and its resource's events, can be read.
    requestURI: `/v1/stacks/${encodeURIComponent(review.stack)}`,
    verb: VERBS[review.operation],
    user: review.caller
      ? {
          tokenId: review.caller.id,
          ...(review.caller.role !== undefined ? { role: review.caller.role } : {}),
          ...(review.caller.description !== undefined ? { description: review.caller.description } : {}),
        }
      : {},
    sourceIPs: [],
    objectRef: {
      resource: 'resources',
      typeName: review.typeName,
      ...(review.identifier !== undefined ? { identifier: review.identifier } : {}),
      ...(review.requestToken !== undefined ? { requestToken: review.requestToken } : {}),
      name: review.stack,
    },
    responseStatus: {
      code,
      ...(review.deniedWith !== undefined ? { errorCode: review.deniedWith } : {}),
      ...(review.message !== undefined ? { message: review.message } : {}),
    },
    requestReceivedTimestamp: now,
    stageTimestamp: now,
    annotations: {
      ...verdictAnnotations(review.verdicts),
      'typeplane.dev/stack': review.stack,
      'typeplane.dev/logical-id': review.logicalId,
      'typeplane.dev/deployment': review.deployment,
      'typeplane.dev/deployment-phase': review.phase,
    },
  };
}
