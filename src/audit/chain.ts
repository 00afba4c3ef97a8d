/**
 * @module The keyed hash chain that makes a trail tamper-evident.
 *
 * A record is written as one line: the event's JSON with `sequence` and `previousHash` (the `hash` of
 * the record before it in the chain), then `"hash"` last — HMAC-SHA256, under a key derived from the
 * service's secret key, of the line's text up to that field. Changing a record breaks its hash;
 * removing one breaks the next record's `previousHash`; inserting one needs the key. The hash covers
 * the exact text written, so nothing is re-serialised to check it.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { AuditEvent } from './event.js';

/** The `previousHash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64);

const HASH_SUFFIX = /,"hash":"([0-9a-f]{64})"\}$/;

/** The chain's key: derived from the secret key for this purpose alone (see secrets/sealer.ts). */
export function chainKey(secretKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'typeplane/audit-chain/v1', 32));
}

export interface ChainHead {
  sequence: number;
  hash: string;
}

export const EMPTY_CHAIN: ChainHead = { sequence: 0, hash: GENESIS_HASH };

/** The line (no newline) that follows `head` in a chain, and the chain's new head. */
export function chainLine(
  key: Buffer,
  head: ChainHead,
  event: AuditEvent,
): { line: string; head: ChainHead } {
  const sequence = head.sequence + 1;
  const body = JSON.stringify({ ...event, sequence, previousHash: head.hash }).slice(0, -1);
  const hash = hmac(key, body);
  return { line: `${body},"hash":"${hash}"}`, head: { sequence, hash } };
}

/** A line's claimed hash and whether the key makes it; undefined for a line that is no chained record. */
export function checkLine(key: Buffer, line: string): { hash: string; sealed: boolean } | undefined {
  const match = HASH_SUFFIX.exec(line);
  if (!match) return undefined;
  const hash = match[1]!;
  return { hash, sealed: hmac(key, line.slice(0, match.index)) === hash };
}

function hmac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}
