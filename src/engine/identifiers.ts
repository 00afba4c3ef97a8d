/**
 * @module Identifier values: bounded the same whatever the store.
 *
 * Identifiers are keys in every store and a segment of every resource path, so they are bounded the
 * same whatever the store: at most {@link MAX_IDENTIFIER_BYTES} bytes of UTF-8 (as Cloud Control's
 * 1,024; URL-encoded, that always fits a path segment), and never U+0000, which PostgreSQL text cannot
 * hold. An identifier problem of a provider's model is the provider's; of a request, the caller's.
 */
import { TypeplaneError } from '../errors.js';
import { identifierOf, type Model } from '../model/index.js';
import type { ResourceType } from '../schema/index.js';

export const MAX_IDENTIFIER_BYTES = 1024;

export function identifierProblem(identifier: string): string | undefined {
  if (identifier.includes('\u0000')) return 'contains U+0000 (NUL)';
  const bytes = Buffer.byteLength(identifier, 'utf8');
  if (bytes > MAX_IDENTIFIER_BYTES)
    return `is ${bytes} bytes long (UTF-8); an identifier is at most ${MAX_IDENTIFIER_BYTES}`;
  return undefined;
}

export function checkIdentifierValues(type: ResourceType, model: Model): void {
  const identifier = identifierOf(type, model);
  const problem = identifier === undefined ? undefined : identifierProblem(identifier);
  if (problem)
    throw new TypeplaneError(
      'InvalidRequest',
      `the identifier (${type.primaryIdentifier.join(', ')}) ${problem}`,
      type.primaryIdentifier.map((pointer) => ({ pointer, message: `the identifier ${problem}` })),
    );
}
