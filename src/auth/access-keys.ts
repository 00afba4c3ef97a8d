/**
 * @module AWS-style access keys (an access key id and a secret access key) issued beside an API
 * token, for clients that sign requests with Signature Version 4.
 *
 * Unlike a bearer token, a signing secret cannot be kept as a hash: the server needs it to compute
 * the signature it compares. It is stored sealed with the server's secret key (AES-256-GCM, bound to
 * its access key id), under `typeplane:access-keys`, with the store key of the token it belongs to:
 * the key pair acts as that token (its role and type globs), and stops working when the token is
 * revoked, as the token's record is looked up on every use.
 */
import { randomBytes } from 'node:crypto';
import { TypeplaneError } from '../errors.js';
import type { Sealer } from '../secrets/index.js';
import type { Store } from '../store/index.js';

const NAMESPACE = 'typeplane:access-keys';
const WRITTEN_BY = 'typeplane:auth';
/** `TPAK` and 16 characters of the RFC 4648 base32 alphabet, the form of an AWS access key id. */
const ACCESS_KEY_ID = /^TPAK[A-Z2-7]{16}$/;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export interface AccessKeyPair {
  accessKeyId: string;
  /** Shown once, when the key pair is created; stored only sealed. */
  secretAccessKey: string;
}

/** Whether `value` has the form of an access key id Typeplane issues. */
export function isAccessKeyId(value: string): boolean {
  return ACCESS_KEY_ID.test(value);
}

function newAccessKeyId(): string {
  let id = 'TPAK';
  for (const byte of randomBytes(16)) id += BASE32[byte & 31];
  return id;
}

function aad(accessKeyId: string): string {
  return `access-key:${accessKeyId}`;
}

export class AccessKeys {
  constructor(
    private readonly store: Store,
    private readonly sealer: Sealer,
  ) {}

  /** A new key pair acting as the token stored under `tokenKey`. */
  async issue(tokenKey: string): Promise<AccessKeyPair> {
    const accessKeyId = newAccessKeyId();
    // 240 bits, 40 characters: the length of an AWS secret access key.
    const secretAccessKey = randomBytes(30).toString('base64url');
    const value = { tokenKey, secret: this.sealer.seal(secretAccessKey, aad(accessKeyId)) };
    if (!(await this.store.kvInsert(NAMESPACE, accessKeyId, { value, writtenBy: WRITTEN_BY })))
      throw new TypeplaneError('InternalFailure', 'access key id collision; try again');
    return { accessKeyId, secretAccessKey };
  }

  /** The secret of a key pair and the store key of its token; undefined for an unknown key id. */
  async find(accessKeyId: string): Promise<{ tokenKey: string; secretAccessKey: string } | undefined> {
    if (!isAccessKeyId(accessKeyId)) return undefined;
    const found = await this.store.kvGet(NAMESPACE, accessKeyId);
    const { tokenKey, secret } = (found?.value ?? {}) as { tokenKey?: unknown; secret?: unknown };
    if (typeof tokenKey !== 'string' || typeof secret !== 'string') return undefined;
    return { tokenKey, secretAccessKey: this.sealer.open(secret, aad(accessKeyId)) };
  }

  async remove(accessKeyId: string): Promise<void> {
    await this.store.kvDelete(NAMESPACE, accessKeyId);
  }
}
