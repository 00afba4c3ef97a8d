/**
 * @module Request tokens: the name of each operation.
 */
import { randomUUID } from 'node:crypto';

/**
 * Request tokens are time-ordered UUIDs (version 7, RFC 9562): the indexes keyed by them then grow
 * at their end, so a burst of operations writes a few pages instead of one random page each. Built
 * from randomUUID, whose entropy Node draws in batches (a per-call getRandomValues cost 5% of a
 * create): the first 48 bits become the millisecond time and the version nibble 7.
 */
export function newRequestToken(): string {
  const time = Date.now().toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
