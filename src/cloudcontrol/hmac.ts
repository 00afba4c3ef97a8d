/**
 * @module HMAC-SHA256 (RFC 2104) for a key used many times: the key's two padded blocks are made
 * once, and each message then costs two one-shot SHA-256 hashes, a fraction of a `createHmac` object
 * (SigV4 signs every request with a signing key that holds for a day). Both hashes answer in hex:
 * Node's one-shot hash makes a hex string faster than a Buffer.
 */
import { hash } from 'node:crypto';

const BLOCK = 64;
const DIGEST = 32;
/** Room for the message after the inner block: a SigV4 string to sign is about 150 bytes. */
const ROOM = 1024;

export class HmacSha256Key {
  /** The inner block, then the message: rewritten by each digest (which runs to its end at once). */
  private inner: Buffer;
  /** The outer block, then room for the inner hash: rewritten by each digest. */
  private readonly outer: Buffer;

  constructor(key: Buffer) {
    // Keys longer than a block are hashed first (RFC 2104, section 2).
    const k = key.length > BLOCK ? hash('sha256', key, 'buffer') : key;
    this.inner = Buffer.alloc(BLOCK + ROOM, 0x36);
    this.outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
    for (let i = 0; i < k.length; i++) {
      this.inner[i]! ^= k[i]!;
      this.outer[i]! ^= k[i]!;
    }
  }

  /** HMAC-SHA256 of `data` (UTF-8) under this key, as 64 lowercase hexadecimal digits. */
  hex(data: string): string {
    // A UTF-8 character takes at most three bytes per UTF-16 unit.
    if (BLOCK + data.length * 3 > this.inner.length) {
      const larger = Buffer.allocUnsafe(BLOCK + data.length * 3);
      this.inner.copy(larger, 0, 0, BLOCK);
      this.inner = larger;
    }
    const length = this.inner.write(data, BLOCK, 'utf8');
    this.outer.write(hash('sha256', this.inner.subarray(0, BLOCK + length), 'hex'), BLOCK, DIGEST, 'hex');
    return hash('sha256', this.outer, 'hex');
  }
}
