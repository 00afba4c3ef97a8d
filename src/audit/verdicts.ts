/**
 * @module Verdicts in the audit trail, as Kubernetes records admission in audit annotations: every
 * verdict a request's changes were given — Deny and Warn, which the caller was told too, and Audit,
 * which is recorded here only — as one annotation whose value is their JSON list.
 */
import type { Verdict } from '../verdict.js';

export const VERDICTS_ANNOTATION = 'typeplane.dev/verdicts';
/** The most verdicts one record keeps (a change reviewed by every policy can have many). */
const MAX_VERDICTS = 64;

/** The annotations for `verdicts`; undefined when there are none. */
export function verdictAnnotations(
  verdicts: readonly Verdict[] | undefined,
): Record<string, string> | undefined {
  if (!verdicts || verdicts.length === 0) return undefined;
  const kept = verdicts.slice(0, MAX_VERDICTS).map(({ source, name, action, message, pointer, reason }) => ({
    source,
    name,
    action,
    message,
    ...(pointer !== undefined ? { pointer } : {}),
    ...(reason !== undefined ? { reason } : {}),
  }));
  return {
    [VERDICTS_ANNOTATION]: JSON.stringify(kept),
    ...(verdicts.length > MAX_VERDICTS
      ? { 'typeplane.dev/verdicts-left-out': String(verdicts.length - MAX_VERDICTS) }
      : {}),
  };
}
