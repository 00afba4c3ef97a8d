/**
 * @module Verdicts: one shape for what a rule in a type's schema (CEL), an admission policy or a hook
 * says of a change. A verdict is an error detail too, so a refusal carries its verdicts in the
 * `details` every error answer has. `Deny` refuses the change; `Warn` lets it proceed and is told to the
 * caller (the answer and the operation's events); `Audit` is recorded only.
 */
import { TypeplaneError, type ErrorDetail } from './errors.js';

export type VerdictSource = 'rule' | 'policy' | 'hook';
export type VerdictAction = 'Deny' | 'Warn' | 'Audit';

export interface Verdict extends ErrorDetail {
  /** What decided: a rule of the type's schema, an admission policy, a hook. */
  source: VerdictSource;
  /** Which one: a rule's place in the schema (its JSON pointer and index), a policy's or a hook's name. */
  name: string;
  action: VerdictAction;
  message: string;
  /** Where in the resource the verdict points (a JSON pointer into the model), when it says. */
  pointer?: string;
  /** A machine-readable reason (Kubernetes' `reason`: FieldValueInvalid, FieldValueForbidden …). */
  reason?: string;
}

/**
 * A change refused by verdicts: rules answer 400 (the value is invalid), policies and hooks 403 (the
 * value is allowed by its type, but not here, now or to this caller).
 */
export class DeniedByVerdicts extends TypeplaneError {
  readonly verdicts: readonly Verdict[];

  constructor(
    verdicts: readonly Verdict[],
    /** The hooks that passed the change all the same (kept where a refusal is kept, never in `details`). */
    readonly hooksPassed: readonly Verdict[] = [],
  ) {
    const denials = verdicts.filter((v) => v.action === 'Deny');
    const byRule = denials.every((v) => v.source === 'rule');
    super(
      byRule ? 'InvalidRequest' : 'AccessDenied',
      `${denials.length === 1 ? 'the change is' : `the change is refused ${String(denials.length)} times:`} ${denials
        .map((v) => `${denials.length === 1 ? 'refused by ' : ''}${describe(v)}: ${v.message}`)
        .join('; ')}`,
      [...verdicts],
    );
    this.verdicts = verdicts;
  }
}

function describe(v: Verdict): string {
  const where = v.pointer ? ` at ${v.pointer === '' ? '/' : v.pointer}` : '';
  return `${v.source} ${v.name}${where}`;
}

/**
 * A hook's pass: a hook that answered SUCCESS gives an Audit verdict, kept with the operation (not
 * told in its answer) so that Cloud Control can list the hooks that passed, as AWS does.
 */
export function isHookPass(v: Verdict): boolean {
  return v.source === 'hook' && v.action === 'Audit';
}
