/**
 * @module The fields routes read from a JSON request body, each refused with where and why: the body
 * as an object, and a `parameters` map (stack templates and recipes take one alike).
 */
import { TypeplaneError } from '../../errors.js';

export function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeplaneError('InvalidRequest', 'request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** `parameters`: names to values, `{}` when absent. */
export function parametersOf(body: Record<string, unknown>): Record<string, unknown> {
  const p = body.parameters ?? {};
  if (typeof p !== 'object' || p === null || Array.isArray(p))
    throw new TypeplaneError('InvalidRequest', 'parameters must map parameter names to values', [
      { pointer: '/parameters', message: 'an object is required' },
    ]);
  return p as Record<string, unknown>;
}
