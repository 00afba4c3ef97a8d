/**
 * @module HMAC-SHA256 (RFC 2104) for a key used many times: the key's two padded blocks are made
 * once, and each message then costs two one-shot SHA-256 hashes, a fraction of a `createHmac` object
 * (SigV4 signs every request with a signing key that holds for a day). Both hashes answer in hex:
 * Node's one-shot hash makes a hex string faster than a Buffer.
 */
import { hash } from 'node:crypto';

const BLOCK = 64;
const DIGEST = 32;

export class HmacSha256Key {
  private readonly inner: Buffer;
  /** The outer block, then room for the inner hash: rewritten by each digest (which runs to its end at once). */
  private readonly outer: Buffer;

  constructor(key: Buffer) {
    // Keys longer than a block are hashed first (RFC 2104, section 2).
    const k = key.length > BLOCK ? hash('sha256', key, 'buffer') : key;
    this.inner = Buffer.alloc(BLOCK, 0x36);
    this.outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
    for (let i = 0; i < k.length; i++) {
      this.inner[i]! ^= k[i]!;
      this.outer[i]! ^= k[i]!;
    }
  }

  /** HMAC-SHA256 of `data` (UTF-8) under this key, as 64 lowercase hexadecimal digits. */
  hex(data: string): string {
    const length = Buffer.byteLength(data, 'utf8');
    const message = Buffer.allocUnsafe(BLOCK + length);
    this.inner.copy(message, 0);
    message.write(data, BLOCK, length, 'utf8');
    this.outer.write(hash('sha256', message, 'hex'), BLOCK, DIGEST, 'hex');
    return hash('sha256', this.outer, 'hex');
  }
}
