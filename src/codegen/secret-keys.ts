/**
 * @module What consumers are told about a string property that names a secret (a manifest's `schema`
 * on a string, kept in the model as `x-typeplane-secretSchema`): which keys that secret holds, so they
 * can read one, as Bicep's `fromSecret: { secret: …, key: 'password' }` does.
 */
import { SECRET_SCHEMA_ANNOTATION } from '../schema/manifest/to-model.js';

/** "Names a secret whose keys are `password`." for such a property; otherwise undefined. */
export function secretKeysNote(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const secret = (node as Record<string, unknown>)[SECRET_SCHEMA_ANNOTATION];
  if (typeof secret !== 'object' || secret === null) return undefined;
  const properties = (secret as Record<string, unknown>).properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const keys = Object.keys(properties).map((k) => `\`${k}\``);
  return keys.length > 0 ? `Names a secret whose keys are ${keys.join(', ')}.` : undefined;
}
