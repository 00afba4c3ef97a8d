/**
 * @module typeplane — the public library API.
 *
 * @example
 * import { loadTypes, validateDocument } from 'typeplane';
 * const { valid, types } = await loadTypes(['./types']);
 */
export * from './schema/index.js';
