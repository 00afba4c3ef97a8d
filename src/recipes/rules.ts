/**
 * @module The catalogue of recipe rules (TP7xxx), declared once: what registering a recipe checks
 * beyond the template rules (TP4xxx) its template is also held to.
 */
import type { Diagnostic, RuleInfo } from '../schema/diagnostics.js';

export const RECIPE_RULES = {
  TP7001: { severity: 'error', title: 'recipe reads a context value that does not exist' },
  TP7002: { severity: 'error', title: 'recipe input does not fit where it is used' },
  TP7003: { severity: 'error', title: 'recipe output fills no read-only or write-only property of the type' },
  TP7004: { severity: 'error', title: 'a secret would flow to a property that is not write-only' },
  TP7005: { severity: 'error', title: 'required read-only property is never produced' },
  TP7006: { severity: 'error', title: 'template parameter gets no value' },
  TP7007: { severity: 'error', title: 'recipe metadata is malformed' },
  TP7008: { severity: 'error', title: 'recipe output does not fit the property it fills' },
  TP7009: { severity: 'warning', title: 'recipe output fills no property' },
  TP7010: { severity: 'error', title: 'template kind is not supported' },
} as const satisfies Record<string, RuleInfo>;

export type RecipeRuleId = keyof typeof RECIPE_RULES;

export function recipeDiagnostic(rule: RecipeRuleId, pointer: string, message: string): Diagnostic {
  return { severity: RECIPE_RULES[rule].severity, rule, message, pointer };
}
