/**
 * @module "did you mean …?" for a type name that is not registered: the registered names close to it,
 * among those the caller's token may see (a suggestion never reveals a type outside its scope).
 */
import type { FastifyRequest } from 'fastify';
import { typeVisible } from '../auth/index.js';
import { TypeNotRegistered, similarNames, type Registry } from '../registry/index.js';

/** Adds the suggestions to the error's message and, as `suggestions`, to a detail of its own. */
export async function suggestTypeNames(
  error: unknown,
  request: FastifyRequest,
  registry: Registry,
): Promise<void> {
  if (!(error instanceof TypeNotRegistered) || !request.principal) return;
  const principal = request.principal;
  const names = (await registry.list()).map((t) => t.typeName).filter((name) => typeVisible(principal, name));
  const suggestions = similarNames(error.typeName, names);
  if (suggestions.length === 0) return;
  const question = `did you mean ${suggestions.join(' or ')}?`;
  error.message = `${error.message}; ${question}`;
  error.details.push({ pointer: '/typeName', message: question, suggestions });
}
