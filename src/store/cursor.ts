/**
 * @module Keyset cursors: the opaque `nextToken` of a {@link Page}. A cursor is the last key of the
 * page just returned, tagged with what it pages over, as base64url JSON. Shared by every store.
 */
import { TypeplaneError } from '../errors.js';

/** What a cursor pages over; a token of one kind is refused by a listing of another. */
export type CursorKind = 'resources' | 'operations' | 'kv' | 'audit';

/** Encode the last key of a page as an opaque token. */
export function encodeCursor(kind: CursorKind, key: string | number): string {
  return Buffer.from(JSON.stringify({ [kind]: key }), 'utf8').toString('base64url');
}

/** The answer to a `nextToken` this listing did not issue. */
export function invalidCursor(): TypeplaneError {
  return new TypeplaneError(
    'InvalidRequest',
    'nextToken is not valid: pass the token of the previous page unchanged.',
    [{ pointer: '/nextToken', message: 'not a token issued by this listing' }],
  );
}

/**
 * Decode a token made by {@link encodeCursor} for `kind`; `undefined` when no token was given.
 * Throws InvalidRequest for anything else.
 */
export function decodeCursor(kind: 'operations' | 'audit', token: string | undefined): number | undefined;
export function decodeCursor(kind: 'resources' | 'kv', token: string | undefined): string | undefined;
export function decodeCursor(kind: CursorKind, token: string | undefined): string | number | undefined {
  if (token === undefined) return undefined;
  const invalid = invalidCursor;
  if (
    typeof token !== 'string' ||
    token.length === 0 ||
    token.length > 4096 ||
    !/^[A-Za-z0-9_-]+$/.test(token)
  ) {
    throw invalid();
  }
  const bytes = Buffer.from(token, 'base64url');
  // Node's decoder skips what it cannot read; a token that does not survive the round trip was not ours.
  if (bytes.toString('base64url') !== token) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid();
  const entries = Object.entries(parsed);
  const [entry] = entries;
  if (entries.length !== 1 || entry === undefined || entry[0] !== kind) throw invalid();
  const value = entry[1];
  if (kind === 'operations' || kind === 'audit') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalid();
    return value;
  }
  if (typeof value !== 'string') throw invalid();
  return value;
}

/** Checks a page size: a positive integer. */
export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new TypeplaneError('InvalidRequest', `limit must be a positive integer, got ${String(limit)}.`, [
      { pointer: '/limit', message: 'must be a positive integer' },
    ]);
  }
}

/** The list cursor that continues after the resource `identifier` (what a page ending there hands back). */
export function resourceCursor(identifier: string): string {
  return encodeCursor('resources', identifier);
}
