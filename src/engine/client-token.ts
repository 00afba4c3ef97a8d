/**
 * @module Idempotency: client tokens. A request repeated with the same client token replays the
 * operation it began; a different request with it is refused. Requests are compared by a keyed hash.
 */
import { TypeplaneError } from '../errors.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/types.js';
import type { EngineLogger } from './logger.js';
import type { Operation } from './types.js';

export const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;

/** InvalidRequest: a client token already began a different request (front doors may name it apart). */
export class ClientTokenReused extends TypeplaneError {
  constructor(requestToken?: string) {
    // Client tokens are each caller's own, so the operation named here is the caller's.
    super(
      'InvalidRequest',
      `this clientToken was already used for a different request${requestToken ? ` (${requestToken})` : ''}; use a new token for a new request`,
    );
  }
}

export function validateClientToken(token: unknown): string | undefined {
  if (token === undefined || token === null) return undefined;
  if (typeof token !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(token)) {
    throw new TypeplaneError(
      'InvalidRequest',
      'clientToken must be 1 to 128 characters of letters, digits, ".", "_", ":" or "-"',
    );
  }
  return token;
}

/**
 * Stable hash of a request, for client token comparison (key order does not matter). Keyed: a body
 * may hold a guessable secret, which a plain hash would let anyone with the store check guesses of.
 */
export function requestHash(sealer: Sealer, typeName: string, operation: Operation, body: unknown): string {
  return sealer.mac(canonicalJson([typeName, operation, body]));
}

/** JSON with object members in code-unit order of their names (undefined members left out). */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  // sort() without a comparator orders strings by UTF-16 code units.
  for (const key of Object.keys(object).sort()) {
    const member = object[key];
    if (member === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

/** Forget client tokens older than the retention, hourly. */
export function expireTokensHourly(store: Store, retentionMs: number, log: EngineLogger): NodeJS.Timeout {
  const expire = () => {
    store
      .expireTokens(new Date(Date.now() - retentionMs))
      .catch((e: unknown) => log.error('token expiry failed', { err: String(e) }));
  };
  const timer = setInterval(expire, 3600_000);
  timer.unref();
  return timer;
}
