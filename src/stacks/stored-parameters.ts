/**
 * @module A stack's parameter values as stored (in its record, a deployment, a plan): NoEcho ones
 * sealed, each for its own stack and name, the others as they are.
 */
import type { StackStore, StoredValue } from './records.js';

export function openParameters(
  records: StackStore,
  stack: string,
  stored: Record<string, StoredValue> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stored ?? {}))
    out[name] = records.open(value, `stack-parameter:${stack}/${name}`);
  return out;
}

export function sealParameters(
  records: StackStore,
  stack: string,
  values: Record<string, unknown>,
  secret: ReadonlySet<string>,
): Record<string, StoredValue> {
  const out: Record<string, StoredValue> = {};
  for (const [name, value] of Object.entries(values))
    out[name] = secret.has(name) ? records.seal(value, `stack-parameter:${stack}/${name}`) : { value };
  return out;
}
