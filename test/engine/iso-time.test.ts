/**
 * isoOf (src/engine/iso-time.ts) keeps the last two times it formatted: whatever the order it is
 * asked in, it answers what Date's toISOString gives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isoOf } from '../../src/engine/iso-time.js';

test('isoOf answers as toISOString for any sequence of times, repeated, alternating or new', () => {
  // Few distinct times, so that sequences repeat and alternate between them.
  const time = fc.constantFrom(0, 1, 999, 1_000, 1_764_000_000_000, 1_764_000_000_001, 8_640_000_000_000);
  fc.assert(
    fc.property(
      fc.array(fc.oneof(time, fc.integer({ min: 0, max: 8_640_000_000_000 })), { maxLength: 40 }),
      (ms) => {
        for (const t of ms) assert.equal(isoOf(t), new Date(t).toISOString());
      },
    ),
    { numRuns: 500 },
  );
});
