/**
 * @module The server's reviewer (the engine's `Reviewer`): every change on every path — `/v1`,
 * Cloud Control, stacks, recipes — is put to its parts in order, admission policies first, then
 * whatever else is plugged in (hooks). A part is not asked once an earlier one denied: the change
 * is refused anyway, and a hook's call costs time and may have effects.
 */
import type { Caller, Reviewer, ReviewedBy, ReviewRequest } from '../engine/index.js';
import { stripWriteOnly, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';
import type { Verdict } from '../verdict.js';
import type { CompiledPolicy, RequestFacts } from './compile.js';
import { anyTakes, reviewPolicies } from './evaluate.js';
import type { Policies } from './policies.js';

/** One kind of reviewer the server's reviewer runs: admission policies, hooks. */
export interface ReviewPart {
  /** Every verdict of this part on the change (Deny ones included). */
  review(request: ReviewRequest): Promise<readonly Verdict[]>;
  /** Whether anything of this part is bound to such a change (see `Reviewer.concerns`). */
  concerns(change: ReviewedBy): boolean | Promise<boolean>;
}

export class ServerReviewer implements Reviewer {
  constructor(private readonly parts: readonly ReviewPart[]) {}

  async review(request: ReviewRequest): Promise<readonly Verdict[]> {
    let verdicts: Verdict[] | undefined;
    for (const part of this.parts) {
      const said = await part.review(request);
      if (said.length === 0) continue;
      (verdicts ??= []).push(...said);
      if (said.some((v) => v.action === 'Deny')) break;
    }
    return verdicts ?? [];
  }

  /** At once while every part can say at once (the usual case); a part that must read makes it a promise. */
  concerns(change: ReviewedBy, from = 0): boolean | Promise<boolean> {
    for (let i = from; i < this.parts.length; i++) {
      const said = this.parts[i]!.concerns(change);
      if (said === true) return true;
      if (said !== false) return said.then((yes) => yes || this.concerns(change, i + 1));
    }
    return false;
  }
}

/**
 * The registered admission policies as a part. A policy sees the resource without its write-only
 * values: they are the caller's secrets, and a policy's message would carry them back out.
 */
export function admissionPolicies(policies: Policies<CompiledPolicy>): ReviewPart {
  return {
    async review(request) {
      const current = await policies.current();
      if (current.length === 0) return [];
      const type = request.compiled.type;
      return reviewPolicies(current, {
        operation: request.operation,
        typeName: type.typeName,
        ...(request.object ? { object: visible(type, request.object) } : {}),
        ...(request.oldObject ? { oldObject: visible(type, request.oldObject) } : {}),
        request: requestFacts(request, request.caller),
      });
    },
    concerns({ compiled, operation }) {
      const fresh = policies.fresh();
      const typeName = compiled.type.typeName;
      return fresh
        ? anyTakes(fresh, typeName, operation)
        : policies.current().then((current) => anyTakes(current, typeName, operation));
    },
  };
}

function visible(type: ResourceType, model: Model): Model {
  return type.writeOnlyProperties.length === 0 ? model : stripWriteOnly(type, model);
}

/** `request` as a policy reads it: every field present, the empty string when not known. */
export function requestFacts(
  request: Pick<ReviewRequest, 'operation' | 'compiled' | 'identifier' | 'dryRun'>,
  caller: Caller | undefined,
): RequestFacts {
  return {
    operation: request.operation,
    typeName: request.compiled.type.typeName,
    identifier: request.identifier ?? '',
    tokenId: caller?.id ?? '',
    role: caller?.role ?? '',
    description: caller?.description ?? '',
    stack: caller?.stack ?? '',
    dryRun: request.dryRun === true,
  };
}
