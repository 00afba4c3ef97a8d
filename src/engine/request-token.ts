/**
 * @module Request tokens: the name of each operation.
 */
import { randomFillSync } from 'node:crypto';

/**
 * Request tokens are time-ordered UUIDs (version 7, RFC 9562): the indexes keyed by them then grow
 * at their end, so a burst of operations writes a few pages instead of one random page each. The
 * first 48 bits are the millisecond time, then the version nibble 7, a 12-bit counter, the variant
 * (binary 10) and 62 random bits.
 *
 * The counter (RFC 9562 method 1) makes the tokens one process makes strictly increasing, within a
 * millisecond too, so "sorted by token" is "in the order they began": it starts at a random value
 * below 2^11 each new millisecond (room for 2,048 more) and counts up; when it runs out, or the clock
 * steps back, the time written is the last one's, moved on by a millisecond only on overflow.
 *
 * Every create makes one, so it is written as one string and nothing else: the digits go into a
 * buffer kept for the purpose and are read out once (randomUUID and slices of it made some twenty
 * strings a token, about a kilobyte). The random bits are drawn in batches: a per-call
 * getRandomValues cost 5% of a create.
 */
export function newRequestToken(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += RANDOM_BYTES;
  // 48 bits of milliseconds: above 2^32, so split into a high 16 and a low 32 before bit operations.
  const clock = Date.now();
  const later = clock > lastTime;
  if (later || ++counter > 0xfff) {
    counter = ((pool[r]! << 8) | pool[r + 1]!) & 0x7ff;
    lastTime = later ? clock : lastTime + 1;
  }
  const now = lastTime;
  const high = Math.floor(now / 0x1_0000_0000);
  const low = now >>> 0;
  hex(0, high >>> 8);
  hex(2, high);
  hex(4, low >>> 24);
  hex(6, low >>> 16);
  // text[8] is '-'
  hex(9, low >>> 8);
  hex(11, low);
  // text[13] is '-', text[14] the version '7'
  text[15] = DIGITS[counter >>> 8]!;
  hex(16, counter);
  // text[18] is '-'; the variant: binary 10 then two random bits
  text[19] = DIGITS[0x8 | (pool[r + 2]! & 0x03)]!;
  text[20] = DIGITS[pool[r + 3]! & 0x0f]!;
  hex(21, pool[r + 4]!);
  // text[23] is '-'
  for (let i = 0; i < 6; i++) hex(24 + 2 * i, pool[r + 5 + i]!);
  return text.toString('latin1', 0, LENGTH);
}

const LENGTH = 36;
/** The millisecond the last token carries, and its counter. */
let lastTime = 0;
let counter = 0;
/** Random bytes a token takes from the pool (some of their bits unused). */
const RANDOM_BYTES = 11;
const pool = Buffer.alloc(RANDOM_BYTES * 256);
let poolOffset = pool.length;
const DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** The token being written: its dashes and version digit stay where they are. */
const text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');

/** The low byte of `byte` as two hex digits at `at`. */
function hex(at: number, byte: number): void {
  text[at] = DIGITS[(byte >>> 4) & 0x0f]!;
  text[at + 1] = DIGITS[byte & 0x0f]!;
}
