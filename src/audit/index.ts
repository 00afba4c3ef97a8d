/**
 * @module The audit trail: every change and every refusal as a chained, keyed-hash JSON line (shaped
 * after Kubernetes' audit.k8s.io/v1 Event), written to a file or stdout and, where configured, to the
 * store's trail that `GET /v1/audit` serves. Off unless `serve --audit-log` or `--audit-store` is given.
 * See docs/operations.md (Audit trail).
 *
 * @example
 * const auditor = new Auditor({ level: 'Metadata', file: new FileSink({ path: '-', key: chainKey(secret) }), masking });
 * await auditor.record(answeredRequest);
 */
export type { AuditEvent, AuditLevel, AuditObjectRef, AuditUser, ChainedEvent } from './event.js';
export { AUDIT_LEVELS } from './event.js';
export { chainKey, chainLine, checkLine, EMPTY_CHAIN, GENESIS_HASH, type ChainHead } from './chain.js';
export { FileSink, DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES, type FileSinkOptions } from './file-sink.js';
export { verifyTrail, type TrailFile, type TrailProblem, type TrailReport } from './verify.js';
export { isAudited, objectRefOf, verbOf } from './request-facts.js';
export { Auditor, type AnsweredRequest, type AuditorOptions, type EventSink } from './auditor.js';
export { recordOperationEnds, operationEndEvent, type OperationEnd } from './operation-end.js';
export { recordRestore, restoreEvent, type RestoreFacts } from './restore-event.js';
export { stackReviewEvent, type StackReview } from './stack-review.js';
export { REMOVED, type Masking } from './request-object.js';
export { tokenDescriptions } from './token-descriptions.js';
export { openAuditor, DEFAULT_RETENTION_MS, type AuditSettings, type AuditDependencies } from './open.js';
export { StoreTrail, type StoreTrailOptions } from './store-trail.js';
export { verdictAnnotations, VERDICTS_ANNOTATION } from './verdicts.js';
