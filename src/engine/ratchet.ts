/**
 * @module Validation ratcheting (as Kubernetes has it): an update is checked against the default
 * version of its type, but a value the update leaves as it was may keep violating it (it was written
 * under an earlier version). Tightening a pattern then never makes existing resources un-updatable for
 * unrelated changes; a value that changes, or a new one, must satisfy the version in force. Values
 * written under the version in force were checked against it, so for them this changes nothing.
 */
import type { ErrorDetail } from '../errors.js';
import { jsonEqual, type Model } from '../model/index.js';
import { pointerTokens } from '../schema/diagnostics.js';

/** The problems an update must answer for: those at values it changes (or adds). */
export function ratchet(problems: readonly ErrorDetail[], before: Model, after: Model): ErrorDetail[] {
  return problems.filter((p) => p.pointer === undefined || !unchangedAt(before, after, p.pointer));
}

/** Whether the value at `pointer` (a model path) is the same in both, absence included; the whole model never is. */
function unchangedAt(before: Model, after: Model, pointer: string): boolean {
  if (pointer === '') return false;
  const tokens = pointerTokens(pointer);
  const a = at(before, tokens);
  const b = at(after, tokens);
  return a.found === b.found && (!a.found || jsonEqual(a.value, b.value));
}

function at(model: unknown, tokens: readonly string[]): { found: boolean; value?: unknown } {
  let value: unknown = model;
  for (const token of tokens) {
    if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= value.length) return { found: false };
      value = value[Number(token)];
    } else if (typeof value === 'object' && value !== null && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value };
}
