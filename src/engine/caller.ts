/**
 * @module Who asks for a change. A shared engine serves many callers: each one's client tokens are
 * its own (another caller's token neither replays nor collides with theirs), and a model may refer
 * only to types its caller may see. Without a caller (the engine's own users, such as stacks), one
 * namespace and every type.
 */
import { hash } from 'node:crypto';
import { validateClientToken } from './client-token.js';
import type { ReviewedChange } from './review.js';

export interface Caller {
  /** Stable across restarts and replicas (an API token's id). */
  id: string;
  /** Whether the caller may see resources of `typeName`. */
  canSee(typeName: string): boolean;
  /** What admission policies and hooks are told of who asks (`request` in a policy's CEL). */
  role?: string;
  /** The token's description, as its creator wrote it. */
  description?: string;
  /** The stack whose deployment makes the change, when one does. */
  stack?: string;
  /** The change came through the Cloud Control API (hooks' TargetOperations tell it apart). */
  cloudControl?: boolean;
  /**
   * Told of each of this caller's changes a review gave verdicts (Audit ones included): the front
   * door's audit record, a stack's trail (see collectingVerdicts).
   */
  reviews?: (change: ReviewedChange) => void;
}

/**
 * The client token as the store keeps it: the caller's, checked, then hashed with the caller's id,
 * so equal tokens of two callers are two keys. Fits the client token syntax (45 characters).
 */
export function scopedClientToken(
  token: unknown,
  caller: Pick<Caller, 'id'> | undefined,
): string | undefined {
  const checked = validateClientToken(token);
  if (checked === undefined || caller === undefined) return checked;
  return `c.${hash('sha256', `${caller.id}\n${checked}`, 'base64url')}`;
}
