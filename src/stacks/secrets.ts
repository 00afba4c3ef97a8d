/**
 * @module Keeping secrets out of what is shown: write-only property values and NoEcho parameter
 * values (and any text holding one) are replaced by a mask in plans, events, outputs and drift.
 */
import type { ResourceType } from '../schema/index.js';
import { escapePointerToken } from '../schema/diagnostics.js';
import { maskQuoted } from '../engine/index.js';
import { touchesWriteOnly } from '../model/index.js';
import type { ParameterValue } from './intrinsics.js';
import { importsIn } from './imports.js';
import { MASK } from './parameters.js';
import { referencesIn } from './references.js';

/** Where a stack's secrets come from: its NoEcho parameters, and the secret exports it imports. */
export interface SecretSources {
  parameters: ReadonlySet<string>;
  imports: ReadonlySet<string>;
}

/**
 * Whether an expression's value comes from a secret: it refers to a NoEcho parameter or imports a
 * secret export. Read from the text alone, so a value derived from a secret (a piece of a split, a
 * Base64 of it) is known as one though it does not hold the secret's text.
 */
export function fromSecret(expression: unknown, sources: SecretSources): boolean {
  return (
    referencesIn(expression, '').some((r) => r.kind === 'ref' && sources.parameters.has(r.name)) ||
    [...importsIn(expression)].some((name) => sources.imports.has(name))
  );
}

/**
 * A reason (an evaluation error, a provider's message) with every secret text in it masked: each
 * reason, event and log line a deployment writes goes through here.
 */
export function maskReason(text: string, secrets: readonly string[]): string {
  return secrets.length === 0 ? text : maskQuoted(text, secrets, MASK);
}

/** The texts to hide: every NoEcho parameter value (each item of a list). */
export function secretTexts(
  parameters: ReadonlyMap<string, ParameterValue>,
  secret: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const name of secret) {
    const value = parameters.get(name);
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value])
      if (String(item) !== '') out.push(String(item));
  }
  return out;
}

/** A copy of `value` with secret texts masked; with `type`, its write-only properties too. */
export function mask(value: unknown, secrets: readonly string[], type?: ResourceType, pointer = ''): unknown {
  if (type && pointer !== '' && touchesWriteOnly(type, pointer)) return MASK;
  if (typeof value === 'string') return secrets.some((s) => value.includes(s)) ? MASK : value;
  if (typeof value === 'number' || typeof value === 'boolean')
    return secrets.includes(String(value)) ? MASK : value;
  if (Array.isArray(value)) return value.map((v, i) => mask(v, secrets, type, `${pointer}/${i}`));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = mask(v, secrets, type, `${pointer}/${escapePointerToken(k)}`);
    return out;
  }
  return value;
}

/** Whether a value holds a secret (then it is sealed at rest and masked when shown). */
export function holdsSecret(value: unknown, secrets: readonly string[]): boolean {
  return secrets.length > 0 && JSON.stringify(mask(value, secrets)) !== JSON.stringify(value);
}
