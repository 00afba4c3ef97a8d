/**
 * @module Identifier values: bounded the same whatever the store, and decided from the input where
 * the input alone shows the answer.
 *
 * Identifiers are keys in every store and a segment of every resource path, so they are bounded the
 * same whatever the store: at most {@link MAX_IDENTIFIER_BYTES} bytes of UTF-8 (as Cloud Control's
 * 1,024; URL-encoded, that always fits a path segment), never U+0000, which PostgreSQL text cannot
 * hold, and in Unicode normalization form C: an NFD spelling of a name would be a second resource
 * that looks the same, so it is refused rather than silently changed. An identifier problem of a
 * provider's model is the provider's; of a request, the caller's.
 */
import { TypeplaneError, type ErrorDetail } from '../errors.js';
import { IDENTIFIER_SEPARATOR, firstValueAt, identifierOf, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';

export const MAX_IDENTIFIER_BYTES = 1024;

export function identifierProblem(identifier: string): string | undefined {
  if (identifier.includes('\u0000')) return 'contains U+0000 (NUL)';
  const bytes = Buffer.byteLength(identifier, 'utf8');
  if (bytes > MAX_IDENTIFIER_BYTES)
    return `is ${bytes} bytes long (UTF-8); an identifier is at most ${MAX_IDENTIFIER_BYTES}`;
  if (identifier.normalize('NFC') !== identifier)
    return 'is not in Unicode normalization form C (NFC); send its NFC form';
  return undefined;
}

/**
 * The identifier of a desired state, checked as far as the input shows: each part given is a
 * scalar and, in a compound identifier, holds no `|`; and when `keepsModel` (a provider that stores
 * the model as given and names nothing itself), every part but read-only ones and those it
 * `generates` (a name it gives when none is given) is given.
 */
export function checkIdentifierValues(
  type: ResourceType,
  model: Model,
  keepsModel: boolean,
  generates: readonly string[] = [],
): void {
  const parts: ErrorDetail[] = [];
  for (const pointer of type.primaryIdentifier) {
    const value = firstValueAt(model, pointer);
    if (value === undefined) {
      if (keepsModel && !type.readOnlyProperties.includes(pointer) && !generates.includes(pointer))
        parts.push({ pointer, message: 'is part of the primary identifier: give it' });
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      parts.push({ pointer, message: 'is part of the primary identifier: a string, number or boolean' });
    else if (type.primaryIdentifier.length > 1 && String(value).includes(IDENTIFIER_SEPARATOR))
      parts.push({
        pointer,
        message: `is part of a compound identifier and cannot hold '${IDENTIFIER_SEPARATOR}', which separates the parts`,
      });
  }
  if (parts.length > 0)
    throw new TypeplaneError(
      'InvalidRequest',
      `the desired state does not make a primary identifier (${type.primaryIdentifier.join(', ')}): ${parts.map((p) => `${p.pointer} ${p.message}`).join('; ')}`,
      parts,
    );
  const identifier = identifierOf(type, model);
  const problem = identifier === undefined ? undefined : identifierProblem(identifier);
  if (problem)
    throw new TypeplaneError(
      'InvalidRequest',
      `the identifier (${type.primaryIdentifier.join(', ')}) ${problem}`,
      type.primaryIdentifier.map((pointer) => ({ pointer, message: `the identifier ${problem}` })),
    );
}
