/**
 * @module Deterministic choices: a stream of bytes from a keyed hash (HMAC-SHA-256 in counter mode),
 * so the same key and message always make the same value — on a re-read, after a restart, on
 * another server with the same data.
 */
import { createHmac } from 'node:crypto';

export class Seed {
  private block = Buffer.alloc(0);
  private at = 0;
  private counter = 0;

  /** `key` picks the family (the type name); `parts` the value (an identifier, a pointer …). */
  constructor(
    private readonly key: string,
    private readonly message: string,
  ) {}

  static of(key: string, ...parts: string[]): Seed {
    return new Seed(key, parts.join('\u0000'));
  }

  /** Another independent stream for a part of this value (a member, an attempt). */
  derive(part: string): Seed {
    return new Seed(this.key, `${this.message}\u0000${part}`);
  }

  private byte(): number {
    if (this.at >= this.block.length) {
      this.block = createHmac('sha256', this.key)
        .update(this.message)
        .update(`\u0000${this.counter++}`)
        .digest();
      this.at = 0;
    }
    return this.block[this.at++]!;
  }

  /** A whole number in [0, n) (n at most 2^32). */
  below(n: number): number {
    if (n <= 1) return 0;
    const x = ((this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte()) >>> 0;
    return x % n;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** `n` characters drawn from `alphabet`. */
  chars(alphabet: string, n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[this.below(alphabet.length)];
    return out;
  }

  hex(n: number): string {
    return this.chars('0123456789abcdef', n);
  }

  /** A UUID (version 4 layout, RFC 4122 variant). */
  uuid(): string {
    const h = this.hex(32).split('');
    h[12] = '4';
    h[16] = '89ab'[parseInt(h[16]!, 16) & 3]!;
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}
