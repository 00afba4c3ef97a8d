/**
 * @module The catalogue of template rules (TP4xxx), declared once: stable ids users match on, the
 * severity, and a title. Messages say what is wrong and how to fix it.
 */
import { TypeplaneError } from '../errors.js';
import type { Diagnostic, RuleInfo } from '../schema/diagnostics.js';

export const STACK_RULES = {
  TP4001: { severity: 'error', title: 'template is malformed' },
  TP4002: { severity: 'error', title: 'template declares no resources' },
  TP4003: { severity: 'error', title: 'resource declaration is malformed' },
  TP4004: { severity: 'error', title: 'resource type is not registered' },
  TP4005: { severity: 'error', title: "property does not satisfy the type's schema" },
  TP4006: { severity: 'error', title: 'read-only property is set' },
  TP4007: { severity: 'error', title: 'Ref names nothing the template declares' },
  TP4008: { severity: 'error', title: 'Fn::GetAtt target or attribute does not exist' },
  TP4009: { severity: 'error', title: 'Fn::GetAtt of a write-only property' },
  TP4010: { severity: 'error', title: 'resources depend on each other in a cycle' },
  TP4011: { severity: 'error', title: 'parameter declaration is malformed' },
  TP4012: { severity: 'error', title: 'parameter value is missing or fails its constraints' },
  TP4013: { severity: 'warning', title: 'parameter is never used' },
  TP4014: { severity: 'error', title: 'intrinsic function is malformed' },
  TP4015: { severity: 'error', title: 'condition or mapping lookup fails' },
  TP4016: { severity: 'error', title: 'DependsOn names no resource of the template' },
  TP4017: { severity: 'error', title: 'output is malformed' },
  TP4018: { severity: 'error', title: 'feature is not supported' },
  TP4019: { severity: 'warning', title: 'condition is never used' },
  TP4020: { severity: 'error', title: 'type version is not the served one' },
  TP4021: { severity: 'error', title: 'Fn::ImportValue names no export' },
} as const satisfies Record<string, RuleInfo>;

export type StackRuleId = keyof typeof STACK_RULES;

export function stackDiagnostic(rule: StackRuleId, pointer: string, message: string): Diagnostic {
  return { severity: STACK_RULES[rule].severity, rule, message, pointer };
}

/** The closest of `candidates` to `name` (edit distance at most a third of its length), for "did you mean". */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  const lower = name.toLowerCase();
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - name.length) >= bestDistance) continue;
    const d = distance(lower, candidate.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance, giving up (returning `cap`) once every path exceeds it. */
function distance(a: string, b: string, cap: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= cap) return cap;
    previous = current;
  }
  return previous[b.length]!;
}

/** Thrown when a template does not validate: carries the diagnostics. */
export function invalidTemplate(diagnostics: Diagnostic[]): TypeplaneError {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return new TypeplaneError(
    'InvalidRequest',
    `the template is invalid: ${errors.length} error${errors.length === 1 ? '' : 's'}, first: ${errors[0]?.rule} ${errors[0]?.message}`,
    diagnostics.map((d) => ({ ...d })),
  );
}
