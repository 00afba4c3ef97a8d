/**
 * Request tokens are UUIDs of version 7 (RFC 9562): the millisecond time first, so that the indexes
 * keyed by them grow at their end, then random bits, with the version and variant where the RFC puts
 * them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestToken } from '../../src/engine/index.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The milliseconds a token's first 48 bits hold. */
const timeOf = (token: string) => Number.parseInt(token.slice(0, 8) + token.slice(9, 13), 16);

test('a request token is a version 7 UUID whose first 48 bits are the time it was made', () => {
  const before = Date.now();
  const token = newRequestToken();
  const after = Date.now();
  assert.match(token, V7);
  assert.ok(
    timeOf(token) >= before && timeOf(token) <= after,
    `${token}: ${timeOf(token)} not in [${before}, ${after}]`,
  );
});

test('request tokens are unique, sort in the order they were made, and their random bits vary', () => {
  // More than the random pool holds (256 tokens' worth): refilled on the way, never reused.
  const tokens = Array.from({ length: 5000 }, () => newRequestToken());
  assert.equal(new Set(tokens).size, tokens.length);
  for (let i = 1; i < tokens.length; i++) {
    assert.match(tokens[i]!, V7);
    assert.ok(tokens[i]! > tokens[i - 1]!, `${tokens[i]} made after ${tokens[i - 1]} sorts after it`);
  }
  // Every random hex digit takes many values across the tokens (a digit stuck at one value would not).
  for (const at of [20, 21, 22, 24, 30, 35]) {
    const seen = new Set(tokens.map((t) => t[at]));
    assert.ok(seen.size >= 12, `digit ${at} took only ${[...seen].join('')}`);
  }
  // The variant digit holds two random bits: all four of 8, 9, a and b appear.
  assert.deepEqual(new Set(tokens.map((t) => t[19])), new Set(['8', '9', 'a', 'b']));
});

test('tokens made in one millisecond, or while the clock steps back, still sort in the order they were made', (t) => {
  let clock = Date.now() + 60_000;
  const start = clock;
  t.mock.method(Date, 'now', () => clock);
  // 10,000 in one millisecond: more than the 12-bit counter holds, so the time written moves on.
  const tokens = Array.from({ length: 10_000 }, () => newRequestToken());
  clock -= 5_000;
  tokens.push(...Array.from({ length: 100 }, () => newRequestToken()));
  for (let i = 1; i < tokens.length; i++) {
    assert.match(tokens[i]!, V7);
    assert.ok(tokens[i]! > tokens[i - 1]!, `${tokens[i]} made after ${tokens[i - 1]} sorts after it`);
  }
  assert.equal(timeOf(tokens[0]!), start);
  // Each millisecond's counter starts below 2^11, so 10,100 tokens need at most 10 milliseconds more.
  const last = timeOf(tokens.at(-1)!);
  assert.ok(
    last > start && last <= start + 10,
    `the time written moved on only by overflow: ${last - start}`,
  );
  // The counter starts at a random value each new millisecond.
  const starts = new Set<string>();
  for (let i = 0; i < 50; i++) {
    clock += 1;
    starts.add(newRequestToken().slice(15, 18));
  }
  assert.ok(starts.size >= 40, `counters start at varied values: ${[...starts].join(' ')}`);
});

test('a time past 2^32 milliseconds is written whole (the high bits are not lost)', (t) => {
  // In the year 2248: bit 43 set, and bits in both halves.
  const when = 0x1_0000_0000 * 0x800 + 0x1234_5678;
  // (Later than anything the tests before made: tokens never go back in time within a process.)
  t.mock.method(Date, 'now', () => when);
  assert.equal(timeOf(newRequestToken()), when);
});
