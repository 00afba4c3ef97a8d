/**
 * @module Sealing values at rest with AES-256-GCM.
 *
 * A sealed value is text: `tp1.<keyId>.<base64url(iv ‖ ciphertext ‖ tag)>`. The version and key id
 * say which key opens it (so a wrong key is named, not mistaken for tampering, and keys can be rotated
 * later); the IV is 96 random bits per seal. Every seal is bound by its additional data (AAD) to where
 * it belongs (a resource, an operation), so a ciphertext copied to another row does not open there.
 *
 * The key given is never used directly: HKDF-SHA256 derives one subkey per purpose (sealing, keyed
 * request hashes, the key id), so the key id and the hashes reveal nothing usable about the others.
 *
 * @example
 * const sealer = createSealer(randomBytes(32));
 * const box = sealer.seal('hunter2', 'resource:Test::Widget:w1');
 * sealer.open(box, 'resource:Test::Widget:w1'); // → 'hunter2'
 */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hash,
  hkdfSync,
  randomFillSync,
} from 'node:crypto';
import { TypeplaneError } from '../errors.js';

/** The bytes of a key (AES-256). */
export const KEY_BYTES = 32;
const VERSION = 'tp1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^tp1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]+)$/;

export interface Sealer {
  /** Names the key (8 characters) without revealing it; recorded in every sealed value. */
  readonly keyId: string;
  /** `plain` encrypted and bound to `aad`. */
  seal(plain: string, aad: string): string;
  /**
   * The plain text of a sealed value.
   * @throws TypeplaneError `InternalFailure` when the value is malformed, sealed with another key,
   * tampered with, or bound to another place (the message says which, never the content).
   */
  open(sealed: string, aad: string): string;
  /** A keyed hash (HMAC-SHA256, hex) of `data`: comparable, but not brute-forceable without the key. */
  mac(data: string): string;
}

/** Random IVs drawn in batches: one call to the random source per 256 seals instead of one each. */
const ivPool = Buffer.alloc(IV_BYTES * 256);
let ivOffset = ivPool.length;

/**
 * The next IV: a view of the pool, not a copy. It must be used (given to the cipher and copied into
 * the sealed value) before the next call, which may refill the pool: `seal` does both at once.
 */
function nextIv(): Buffer {
  if (ivOffset === ivPool.length) {
    randomFillSync(ivPool);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

/** True when `value` has the form of a sealed value (it may still not open). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${VERSION}.`);
}

/** A sealer for a 32-byte key. */
export function createSealer(key: Buffer): Sealer {
  if (key.length !== KEY_BYTES) throw new Error(`a secret key has ${KEY_BYTES} bytes, not ${key.length}`);
  const derive = (purpose: string, bytes: number) =>
    Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `typeplane/${purpose}`, bytes));
  // A key object, made once: a cipher made from raw key bytes imports them again on every seal.
  const sealKey = createSecretKey(derive('seal/v1', KEY_BYTES));
  const macKey = derive('request-hash/v1', KEY_BYTES);
  const keyId = derive('key-id/v1', 6).toString('base64url');
  const header = `${VERSION}.${keyId}.`;
  const fail = (reason: string) =>
    new TypeplaneError('InternalFailure', `a sealed value cannot be opened: ${reason}`);

  return {
    keyId,
    seal(plain, aad) {
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      // The header is authenticated too: its key id cannot be swapped.
      cipher.setAAD(Buffer.from(header + aad));
      const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return header + body.toString('base64url');
    },
    open(sealed, aad) {
      const match = SEALED.exec(sealed);
      if (!match) throw fail('it is not a sealed value of a known version');
      if (match[1] !== keyId)
        throw fail(`it was sealed with key ${match[1]!}, but the key in use is ${keyId}`);
      const body = Buffer.from(match[2]!, 'base64url');
      if (body.length < IV_BYTES + TAG_BYTES) throw fail('it is truncated');
      const decipher = createDecipheriv('aes-256-gcm', sealKey, body.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(header + aad));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw fail('it was altered, or it belongs to another record');
      }
    },
    mac: hmacSha256(macKey),
  };
}

/** SHA-256's block: an HMAC key is padded to it (RFC 2104). */
const BLOCK_BYTES = 64;

/** Text up to this many UTF-16 code units is hashed from a buffer made once (3 bytes a unit at most). */
const SCRATCH_UNITS = 8192;

/**
 * HMAC-SHA256 under `key` (at most a block long), hex: the same value as createHmac's, computed with
 * two one-shot hashes over pads made once. Every create and update hashes its request: createHmac's
 * per-call key set-up made it ~3× dearer. The text is written after the inner pad in a buffer made
 * once, not copied into a new one per call (Buffer.from and concat took a third of the call's time,
 * refilling Node's buffer pool): the function never yields, so one buffer serves every call.
 */
function hmacSha256(key: Buffer): (data: string) => string {
  const inner = Buffer.alloc(BLOCK_BYTES + 3 * SCRATCH_UNITS, 0x36);
  const outer = Buffer.alloc(BLOCK_BYTES + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }
  const innerPad = inner.subarray(0, BLOCK_BYTES);
  return (data) => {
    const digest =
      data.length <= SCRATCH_UNITS
        ? hash('sha256', inner.subarray(0, BLOCK_BYTES + inner.write(data, BLOCK_BYTES, 'utf8')), 'buffer')
        : hash('sha256', Buffer.concat([innerPad, Buffer.from(data, 'utf8')]), 'buffer');
    digest.copy(outer, BLOCK_BYTES);
    return hash('sha256', outer, 'hex');
  };
}
