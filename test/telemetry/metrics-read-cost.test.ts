/**
 * What collecting metrics costs a read, as a count no machine's speed or load changes: the bytes
 * allocated per read (read-allocations.ts measures them in a process of its own), with metrics on
 * minus with metrics off.
 *
 * A read with metrics pays fastify's `onResponse` hook machinery (~250 bytes: the hook runner's
 * closures) and nothing of its own: its route's recorder is chosen when the route is registered.
 * Reading the route's template per request (fastify builds the route options anew on each read) and
 * keying the series by a string made per request cost ~230 bytes more, which this test catches.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastLineOf } from '../helpers/own-process.js';

test('collecting metrics adds at most 400 bytes of allocation to a read', (t) => {
  const perRead = lastLineOf<{ off: number; on: number }>(new URL('read-allocations.ts', import.meta.url));
  const added = perRead.on - perRead.off;
  t.diagnostic(
    `bytes allocated per read: ${perRead.off.toFixed(0)} without metrics, ${perRead.on.toFixed(0)} with (+${added.toFixed(0)})`,
  );
  assert.ok(added <= 400, `metrics add ${added.toFixed(0)} bytes of allocation to a read (at most 400)`);
});
