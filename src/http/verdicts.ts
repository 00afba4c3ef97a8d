/**
 * @module What a request's reviews said, at the HTTP edge: the verdicts of the engine calls a route
 * makes are kept on the request for its audit record (Audit ones included, and those of a refusal),
 * and the warnings an answer carries are also sent as `Warning: 299 - "…"` headers, as the Kubernetes
 * API server sends admission warnings, so clients that print those (kubectl-like) show them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectingVerdicts, type Caller } from '../engine/index.js';
import type { Verdict } from '../verdict.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Every verdict the request's changes were given (see reviewing()). */
    verdicts?: Verdict[];
  }
}

/**
 * The request's caller for an engine call: the verdicts its reviews give are kept on the request,
 * whatever the call's outcome.
 */
export function reviewing(request: FastifyRequest, caller: Caller): Caller {
  return collectingVerdicts(caller, (request.verdicts ??= []));
}

/** The verdicts' collector of the request, for a stack's plan (see reviewsTo in src/stacks). */
export function verdictsOf(request: FastifyRequest): (change: { verdicts: readonly Verdict[] }) => void {
  const into = (request.verdicts ??= []);
  return (change) => into.push(...change.verdicts);
}

/** Most Warning headers one answer carries, and the longest text of one (Kubernetes: 4 KiB in all). */
const MAX_WARNINGS = 16;
const MAX_WARNING_TEXT = 256;

/** Adds a `Warning` header per warning (RFC 7234's warn-code 299, "miscellaneous persistent warning"). */
export function warningHeaders(reply: FastifyReply, warnings: readonly Verdict[] | undefined): void {
  if (!warnings || warnings.length === 0) return;
  reply.header(
    'warning',
    warnings.slice(0, MAX_WARNINGS).map((w) => `299 - "${quoted(`${w.source} ${w.name}: ${w.message}`)}"`),
  );
}

/**
 * The text as a quoted-string of printable ASCII: a message is the policy author's or a hook's, and
 * may hold line breaks (a header injected) or characters a header cannot carry.
 */
function quoted(text: string): string {
  const cut = text.length > MAX_WARNING_TEXT ? `${text.slice(0, MAX_WARNING_TEXT)}...` : text;
  return cut.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&');
}
